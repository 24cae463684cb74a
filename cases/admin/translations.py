"""The case admin's translation bookkeeping: which Korean text translates which English
(cases/translations.py holds the rule), recorded at each save, said in the history, and
shown in the list's "translation" column."""

from django.contrib import admin
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop

from cases import translations
from cases.exchange.format import format_timestamp
from cases.models import ActionItem, RemediationStep


def positions_before(formsets):
    """The bilingual lists' forms (remediation steps, action items), each with its item's
    position before the save: record_translations follows a text that moved."""
    return [
        (formset, [(item_form, item_form.instance.position) for item_form in formset.forms])
        for formset in formsets
        if formset.model in (RemediationStep, ActionItem)
    ]


class TranslationBookkeeping:
    """The case admin's side of cases/translations.py (CaseAdmin)."""

    @admin.display(description=gettext_lazy("translation"))
    def translation(self, case):
        """Which texts are stale or missing: the queue says what needs a translator."""
        affected = translations.affected(case)
        parts = []
        if affected[translations.STALE]:
            parts.append(
                _("stale: %(texts)s")
                % {"texts": ", ".join(map(translations.key_label, affected[translations.STALE]))}
            )
        if affected[translations.MISSING]:
            parts.append(
                _("missing: %(texts)s")
                % {"texts": ", ".join(map(translations.key_label, affected[translations.MISSING]))}
            )
        return "; ".join(parts) or _("current")

    def record_translations(self, request, form, items_before):
        """Record which English each Korean text now translates (cases/translations.py);
        whether the case's translations changed. `items_before`: positions_before(formsets),
        taken before the lists were saved."""
        case = form.instance
        confirmed = set(form.cleaned_data.get("still_correct") or ())
        edits = [
            translations.TextEdit(
                name,
                name,
                form.initial.get(f"{name}_en"),
                getattr(case, f"{name}_en"),
                form.initial.get(f"{name}_ko"),
                getattr(case, f"{name}_ko"),
                name in confirmed,
            )
            for name in translations.CASE_FIELDS
        ]
        for formset, forms in items_before:
            list_name = "remediation" if formset.model is RemediationStep else "action_items"
            for item_form, position_before in forms:
                item = item_form.instance
                if item.pk is None or formset._should_delete_form(item_form):
                    continue
                new = not item_form.initial
                key_before = None if new else translations.item_key(list_name, position_before)
                edits.append(
                    translations.TextEdit(
                        key_before,
                        translations.item_key(list_name, item.position),
                        item_form.initial.get("text_en"),
                        item.text_en,
                        item_form.initial.get("text_ko"),
                        item.text_ko,
                        key_before in confirmed,
                    )
                )
        after = translations.after_edit(case.translations, edits, format_timestamp(timezone.now()))
        if after == case.translations:
            return False
        case.translations = after
        case.save(update_fields=["translations"])
        return True

    def construct_change_message(self, request, form, formsets, add=False):
        message = super().construct_change_message(request, form, formsets, add)
        # "Still correct" is no field of the case: said in the history as a change of it.
        for key in sorted(form.cleaned_data.get("still_correct") or ()):
            message.append(
                {
                    "changed": {
                        # The key, shown in the reader's words (cases/review/history.py).
                        "name": translations.CONFIRMED,
                        "object": key,
                        "fields": [gettext_noop("Korean still correct")],
                    }
                }
            )
        return message
