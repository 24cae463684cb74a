"""Forms of the case admin: the case form that refuses stale edits, and orderable inline lists."""

import json
import re
from contextlib import contextmanager

from django import forms
from django.contrib.admin.widgets import AdminTextareaWidget
from django.forms.fields import InvalidJSONInput
from django.utils.functional import cached_property
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from cases import translations
from cases.review import workflow as review

APPROVE, RETURN_TO_DRAFT = "_approve", "_return_to_draft"
UNPAIRED_SURROGATE = re.compile("[\ud800-\udfff]")


class MultilineTextField(forms.CharField):
    """Text from a textarea, whose line breaks browsers send as CR LF; the library keeps LF.

    Normalised here, an unchanged text also counts as unchanged (has_changed uses to_python).
    """

    def to_python(self, value):
        value = super().to_python(value)
        return value.replace("\r\n", "\n") if isinstance(value, str) else value


class JSONTextField(forms.JSONField):
    """JSON edited as text: non-ASCII text shown as it is, but an unpaired surrogate escaped.

    Typing `"\\ud800"` gives a string holding one (refused by Case.clean), and a page cannot
    hold it: shown back raw, it would fail the response instead of showing the error.
    """

    def prepare_value(self, value):
        text = super().prepare_value(value)
        return UNPAIRED_SURROGATE.sub(lambda match: f"\\u{ord(match[0]):04x}", text)

    def to_python(self, value):
        with _readable_json():
            return super().to_python(value)

    def bound_data(self, data, initial):
        # Shown back as typed, as Django does for text that is not JSON at all.
        try:
            return super().bound_data(data, initial)
        except (RecursionError, ValueError):
            return InvalidJSONInput(data)


@contextmanager
def _readable_json():
    """Python's JSON reader gives up on some text JSON allows: say so on the field."""
    try:
        yield
    except RecursionError:
        raise forms.ValidationError(_("This JSON is nested too deeply to be read.")) from None
    except ValueError as error:
        if isinstance(error, json.JSONDecodeError):
            raise
        raise forms.ValidationError(
            _("This JSON holds a number with too many digits to be read.")
        ) from None


class KoreanTextarea(AdminTextareaWidget):
    """A Korean text, and under it its state and its own "still correct" box: ticked, the
    form's `still_correct` receives the text's key (the box is named for that field)."""

    def __init__(self, attrs=None, *, text=None, ticked=False):
        super().__init__(attrs)
        self.text, self.ticked = text, ticked  # a translations.TextState, or None

    def render(self, name, value, attrs=None, renderer=None):
        textarea = super().render(name, value, attrs, renderer)
        text = self.text
        if text is None:
            return textarea
        if text.is_missing:
            return format_html(
                '{}<p class="still-correct still-correct-missing">{}</p>',
                textarea,
                gettext("Missing: Korean readers see the English of this text."),
            )
        if text.is_stale and text.english_at:
            state = gettext("Stale: the English changed on %(date)s.") % {
                "date": text.english_at[:10]
            }
        elif text.is_stale:
            state = gettext("Stale: the English changed since this Korean was written.")
        elif not text.known:
            state = gettext("Not known: nothing records which English this Korean translates.")
        else:
            state = gettext("Current.")
        return format_html(
            '{}<p class="still-correct still-correct-{}">{} '
            '<label><input type="checkbox" name="still_correct" value="{}"{}> {}</label></p>',
            textarea,
            text.state,
            state,
            text.key,
            mark_safe(" checked") if self.ticked else "",
            gettext("Korean still correct: %(text)s") % {"text": translations.key_label(text.key)},
        )


def offer_still_correct(field, text, form):
    """Give a Korean text's field its state and its "still correct" box (KoreanTextarea)."""
    ticked = form.is_bound and text.key in form.data.getlist("still_correct")
    field.widget = KoreanTextarea(field.widget.attrs, text=text, ticked=ticked)


class TextsField(forms.MultipleChoiceField):
    """Ticked texts: an empty value (a form posted back as it was shown) means none."""

    def to_python(self, value):
        return [text for text in super().to_python(value) if text]


class CaseAdminForm(forms.ModelForm):
    """A case as the admin edits it, saved only over the version it was opened at.

    `seen_version` carries that version through the round trip; `clean` locks the case row
    (the admin saves inside a transaction) and refuses the form if someone changed the case
    since, leaving the user's input on the form. An approval pressed on the form is checked
    along with the edit.
    """

    seen_version = forms.CharField(widget=forms.HiddenInput, required=False)
    approve_again = forms.BooleanField(
        label=_("Approve again"),
        required=False,
        help_text=_(
            "This case is already reviewed. Tick this and press “Approve” to replace that "
            "review with yours: you become its reviewer, as of now."
        ),
    )

    still_correct = TextsField(
        label=_("Korean still correct"),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_(
            "Tick a text whose Korean still says what its English says: it is recorded as "
            "translating the English as it is now. Editing a Korean text records it too."
        ),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if not self.instance._state.adding:
            self.initial.setdefault("seen_version", review.version_of(self.instance))
            texts = translations.case_states(self.instance).values()
            self.fields["still_correct"].choices = [
                (text.key, translations.key_label(text.key))
                for text in texts
                if not text.is_missing
            ]
            # The case's own texts; the items' are offered by their rows (NamedRowsFormSet).
            for text in texts:
                if f"{text.key}_ko" in self.fields:
                    offer_still_correct(self.fields[f"{text.key}_ko"], text, self)

    @cached_property
    def changed_data(self):
        # What changed in the case itself (the declared fields are the form's own), for the
        # history and for the case's version.
        return [name for name in super().changed_data if name not in self.declared_fields]

    @property
    def review_action(self):
        return next((action for action in (APPROVE, RETURN_TO_DRAFT) if action in self.data), None)

    def clean_docs(self):
        docs = self.cleaned_data.get("docs")
        return [] if docs is None else docs

    def clean(self):
        cleaned_data = super().clean()
        if self.instance._state.adding:
            return cleaned_data
        try:
            current = review.lock_unchanged(
                self.instance.pk,
                self.data.get("seen_version"),
                recurrence_changes="recurrence_of" in self.changed_data,
            )
            if self.review_action == APPROVE:
                review.check_approval(current, again=cleaned_data.get("approve_again"))
        except review.AlreadyReviewed as refusal:
            self.add_error("approve_again", str(refusal))
        except review.CaseBusy as refusal:
            raise forms.ValidationError(
                [
                    str(refusal),
                    _("Your input is kept below: try again in a moment."),
                ],
                code="busy",
            ) from None
        except review.CaseChanged as refusal:
            raise forms.ValidationError(
                [
                    str(refusal),
                    _(
                        "Nothing was saved; your input is kept below. Open the case again in "
                        "another tab to see the current version, and make your changes there."
                    ),
                ],
                code="stale",
            ) from None
        return cleaned_data


class OrderedItemForm(forms.ModelForm):
    """One item of an ordered list of a case; `order` places it, empty meaning at the end."""

    order = forms.IntegerField(
        label=_("order"),
        required=False,
        min_value=1,
        widget=forms.NumberInput(attrs={"size": 3, "class": "vIntegerField order-field"}),
    )


class OrderedItemFormSet(forms.BaseInlineFormSet):
    """Saves the items in the order their `order` fields give, renumbering the positions.

    An item whose order was just typed goes before the others of the same number, so that
    typing 2 moves an item to the second place without renumbering the rest; an item with
    no order goes last.
    """

    def add_fields(self, form, index):
        super().add_fields(form, index)
        if index is not None and index < self.initial_form_count():
            form.fields["order"].initial = index + 1

    def save(self, commit=True):
        listed = [
            (index, form)
            for index, form in enumerate(self.forms)
            if (form.instance.pk is not None or form.has_changed())
            and not self._should_delete_form(form)
        ]
        listed.sort(key=lambda item: self._sort_key(*item))
        for position, (_index, form) in enumerate(listed):
            form.instance.position = position
        saved = super().save(commit=commit)
        if commit:
            # The items that did not change were not saved: their positions may have.
            # (The (case, position) constraints are deferred, so swaps are fine.)
            items = [form.instance for _index, form in listed]
            self.model.objects.bulk_update(items, ["position"])
        return saved

    @staticmethod
    def _sort_key(index, form):
        order = form.cleaned_data.get("order")
        return (order is None, order or 0, "order" not in form.changed_data, index)
