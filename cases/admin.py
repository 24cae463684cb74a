"""The admin, where editors write cases and reviewers approve them.

Editors are staff who may change cases; reviewers also hold `cases.review_case` (the
Reviewer group), which alone shows the "Approve" and "Return to draft" buttons and actions.
Nobody types a review by hand: `reviewed_by`, `reviewer` and `reviewed_at` are read-only
and set by cases/review/workflow.py, which also keeps concurrent edits from overwriting each other.
"""

import copy

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.utils import unquote
from django.contrib.admin.views.main import ChangeList
from django.contrib.admin.widgets import AdminTextareaWidget
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import models
from django.db.models import Count, Q
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.functional import lazy
from django.utils.html import format_html
from django.utils.text import capfirst
from django.utils.translation import get_language, gettext_lazy, gettext_noop, ngettext
from django.utils.translation import gettext as _

from cases import translations
from cases.caching import cached_value
from cases.exchange.format import format_timestamp
from cases.listing import search
from cases.listing.selection import facet_condition
from cases.models import (
    LIST_FACETS,
    REVIEWED,
    ActionItem,
    Case,
    CaseTerm,
    Facet,
    ImportedChange,
    Organisation,
    RelatedCase,
    RemediationStep,
    Source,
    Term,
)
from cases.review import duplicates
from cases.review import workflow as review
from cases.review.forms import (
    APPROVE,
    RETURN_TO_DRAFT,
    CaseAdminForm,
    JSONTextField,
    MultilineTextField,
    OrderedItemForm,
    OrderedItemFormSet,
    offer_still_correct,
)
from cases.review.widgets import KeyCheckedAutocomplete

# The change form's sections, in the order the case page reads.
SUMMARY = gettext_lazy("Summary")
WHAT_HAPPENED = gettext_lazy("What happened")
WHY = gettext_lazy("Why")
FIX_AND_LESSONS = gettext_lazy("Fix and lessons")
SOURCES = gettext_lazy("Sources")
REVIEW = gettext_lazy("Review")

admin.site.site_header = admin.site.site_title = "incidentlib"


def translation_queue_counts(request=None):
    """{'stale': cases, 'missing': cases, 'terms_needing_labels': terms}, as the admin index
    shows them: computed once per library generation (cases/caching.py), since the stale
    condition hashes every English text of the library, and any write to a case or a term
    gives a new generation."""

    def compute():
        counts = Case.objects.aggregate(
            stale=Count("pk", filter=translations.CASES_BY_STATE[translations.STALE]),
            missing=Count("pk", filter=translations.CASES_BY_STATE[translations.MISSING]),
        )
        counts["terms_needing_labels"] = Term.objects.filter(
            TERMS_NEEDING_LABELS["missing"]
        ).count()
        return counts

    return cached_value("admin-translation-queue", compute, request)


def _index_with_terms_needing_labels(index):
    """The admin index, with the translation queue's counts (templates/admin/index.html)."""

    def index_view(request, extra_context=None):
        counts = translation_queue_counts(request)
        return index(
            request,
            {
                "terms_needing_labels": counts["terms_needing_labels"],
                "translation_counts": counts,
                **(extra_context or {}),
            },
        )

    return index_view


REVIEW_FIELDS = ("status", "reviewed_by", "reviewed_at", "reviewer", "last_change")

ROWS_BUSY = gettext_lazy(
    "Another write (an import, most likely) holds what this one needs, so nothing was "
    "changed. Try again in a moment."
)


def refused_as_busy_request(request):
    """A copy of a POST to a change form whose write found its rows held by an import,
    marked to show the form again, refused (LibraryAdmin._unless_busy, get_form)."""
    refused = copy.copy(request)
    refused.refused_as_busy = True
    return refused


def refused_as_busy(form_class):
    """`form_class`, every form of it refused with ROWS_BUSY, before any other check (the
    case form's own look at its row would wait again)."""

    class Refused(form_class):
        def clean(self):
            raise ValidationError(
                [ROWS_BUSY, gettext_lazy("Your input is kept below: try again in a moment.")],
                code="busy",
            )

    Refused.__name__ = form_class.__name__
    return Refused


class CaseChangeList(ChangeList):
    """The admin's list of cases, whose translation column reads each case's items (two
    queries a page)."""

    def get_results(self, request):
        super().get_results(request)
        self.result_list = self.result_list.prefetch_related("remediation_steps", "action_items")


class LibraryAdmin(KeyCheckedAutocomplete, admin.ModelAdmin):
    """What the library's admins share: the keys import files name a row by stay fixed.

    An import finds a case by its id, a term by its facet and slug, an organisation by its
    slug; changing one in the admin would cut the row off from the files that name it.
    """

    import_keys = ()
    show_facets = admin.ShowFacets.ALWAYS
    formfield_overrides = {models.TextField: {"form_class": MultilineTextField}}
    short_texts = ()  # text fields shown two rows high; the others are six

    class Media:
        css = {"all": ("cases/admin.css",)}

    def get_readonly_fields(self, request, obj=None):
        readonly = tuple(super().get_readonly_fields(request, obj))
        return readonly + self.import_keys if obj is not None else readonly

    # A write that needs rows an import holds is refused after a moment, not left waiting.

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        return self._unless_busy(
            super().changeform_view,
            request,
            object_id,
            form_url,
            extra_context,
            form_again=True,
        )

    def delete_view(self, request, object_id, extra_context=None):
        return self._unless_busy(super().delete_view, request, object_id, extra_context)

    def changelist_view(self, request, extra_context=None):
        return self._unless_busy(super().changelist_view, request, extra_context)

    def _unless_busy(self, view, request, *args, form_again=False):
        """The view, its writes refused after a moment if an import holds rows they need:
        a form then comes back with what was typed (`form_again`), anything else with a
        message on the page it was sent from."""
        if request.method != "POST":
            return view(request, *args)
        # The messages the attempt queues: a wait at COMMIT (a deferred foreign key's check)
        # comes after the view has said "… was changed successfully".
        queued = getattr(getattr(request, "_messages", None), "_queued_messages", [])
        before = len(queued)
        try:
            with review.waiting_briefly_for_rows():
                return view(request, *args)
        except review.RowsBusy:
            del queued[before:]  # nothing was changed: no message may say otherwise
            if form_again:
                # The same view again, its form refused at once: it saves nothing and shows
                # what was typed, the main form's and the inlines'.
                return view(refused_as_busy_request(request), *args)
            self.message_user(request, ROWS_BUSY, messages.ERROR)
            return HttpResponseRedirect(request.get_full_path())

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change=change, **kwargs)
        return refused_as_busy(form) if getattr(request, "refused_as_busy", False) else form

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        if isinstance(db_field, models.TextField):
            rows = 2 if db_field.name in self.short_texts else 6
            kwargs["widget"] = AdminTextareaWidget(attrs={"rows": rows})
        return super().formfield_for_dbfield(db_field, request, **kwargs)


@admin.register(Organisation)
class OrganisationAdmin(LibraryAdmin):
    import_keys = ("slug",)
    list_display = ("name", "slug", "case_count")
    search_fields = ("name", "slug")
    # Explicit: Meta.ordering is not used by a query with an aggregate (the case count), and
    # the autocomplete pages through the organisations.
    ordering = ("name", "slug")

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(case_count=Count("cases"))

    @admin.display(description=gettext_lazy("cases"), ordering="case_count")
    def case_count(self, organisation):
        return organisation.case_count

    def save_model(self, request, organisation, form, change):
        super().save_model(request, organisation, form, change)
        if change and "name" in form.changed_data:
            # Each of its cases reads differently now (its `org`): a copy kept in sync by
            # ?updated_since= (the library's time of each change) must fetch them again, and
            # "last change" names who made it (not the case's last editor, at this time).
            Case.objects.filter(organisation=organisation).update(
                changed_at=timezone.now(), changed_by=request.user.get_username()
            )


class TermLabelFilter(admin.SimpleListFilter):
    """Terms an import made with a label from their slug, and terms with no Korean label."""

    title = gettext_lazy("labels")
    parameter_name = "labels"

    def lookups(self, request, model_admin):
        return [
            ("missing", _("Needing a label")),
            ("from_slug", _("Made from the slug by an import")),
            ("no_korean", _("No Korean label")),
        ]

    def queryset(self, request, queryset):
        condition = TERMS_NEEDING_LABELS.get(self.value())
        return queryset.filter(condition) if condition is not None else queryset


TERMS_NEEDING_LABELS = {
    "missing": Q(needs_label=True) | Q(label_ko=""),
    "from_slug": Q(needs_label=True),
    "no_korean": Q(label_ko=""),
}


@admin.register(Term)
class TermAdmin(LibraryAdmin):
    import_keys = ("facet", "slug")
    list_display = ("slug", "facet", "label_en", "label_ko", "needs_label")
    list_filter = (TermLabelFilter, "facet")
    search_fields = ("slug", "label_en", "label_ko")
    ordering = ("facet", "slug")
    # Saving a term in the admin gives it its labels.
    exclude = ("needs_label",)

    def save_model(self, request, obj, form, change):
        obj.needs_label = False
        super().save_model(request, obj, form, change)

    def get_search_results(self, request, queryset, search_term):
        queryset, may_have_duplicates = super().get_search_results(request, queryset, search_term)
        # The tags inline offers only the facets a case has several terms of; severity
        # and root cause are fields of the case (their limit_choices_to narrows them).
        if request.GET.get("model_name") == "caseterm":
            queryset = queryset.filter(facet__in=LIST_FACETS)
        return queryset, may_have_duplicates


class ConditionFilter(admin.SimpleListFilter):
    """A filter each of whose choices is one condition on the case row (`condition`), which
    both narrows the list and, when the counts are asked for, counts in one pass over the
    selection: not Django's one subquery per choice, minutes at 100,000 cases."""

    def condition(self, value):
        raise NotImplementedError

    def queryset(self, request, queryset):
        value = self.value()
        if value not in {str(choice) for choice, _label in self.lookup_choices}:
            return queryset  # none, or not one of the choices: the list unfiltered
        return queryset.filter(self.condition(value))

    def get_facet_counts(self, pk_attname, filtered_qs):
        return {
            f"{number}__c": Count(pk_attname, filter=self.condition(value))
            for number, (value, _label) in enumerate(self.lookup_choices)
        }


class ReviewStatusFilter(ConditionFilter):
    title = gettext_lazy("status")
    parameter_name = "status"

    def lookups(self, request, model_admin):
        return [("draft", _("Draft")), ("reviewed", _("Reviewed"))]

    def condition(self, value):
        return ~REVIEWED if value == "draft" else REVIEWED


class TranslationFilter(ConditionFilter):
    """The translation queue: cases with a stale or missing Korean text, oldest change first
    (CaseAdmin.get_ordering)."""

    title = gettext_lazy("translation")
    parameter_name = "translation"

    def lookups(self, request, model_admin):
        return [
            (translations.STALE, _("Stale: the English changed since")),
            (translations.MISSING, _("Missing: some text has no Korean")),
            (translations.CURRENT, _("Current")),
        ]

    def condition(self, value):
        return translations.CASES_BY_STATE[value]


# "By domain", as Django writes "By status": translated when shown, then lowercased.
lowercase = lazy(lambda text: str(text).lower(), str)


class FacetFilter(ConditionFilter):
    """Cases having one term of a facet; `for_facet` makes the filter of each facet."""

    facet = None

    @classmethod
    def for_facet(cls, facet):
        return type(
            f"{facet.name.title().replace('_', '')}Filter",
            (cls,),
            {"facet": facet, "title": lowercase(facet.label), "parameter_name": facet.value},
        )

    def lookups(self, request, model_admin):
        language = get_language()
        return [(term.slug, str(term.label(language))) for term in _terms(request).of(self.facet)]

    def condition(self, value):
        # As the public list filters: the case's term ids, GIN-indexed (tags, severity, root
        # cause and the kinds of its remediation steps alike).
        return facet_condition(self.facet, [value], _terms(self.request))


def _terms(request):
    """The TermIndex, read once a request: the admin builds its filters several times a
    request (once more for each filter's counts)."""
    if not hasattr(request, "term_index"):
        request.term_index = Term.objects.order_by("slug").index()
    return request.term_index


# Cases whose id holds the text of a search of the admin's list, at most.
MAX_ID_MATCHES = 1000

# Organisations the filter lists: those with the most cases (a library has thousands; the
# others are found with the search box, which reads their names).
FILTER_ORGANISATIONS = 20


class OrganisationFilter(ConditionFilter):
    title = gettext_lazy("organisation")
    parameter_name = "organisation"

    def lookups(self, request, model_admin):
        # Read once a request, as the terms are (see _terms).
        if not hasattr(request, "organisations"):
            organisations = Organisation.objects.most_cases(FILTER_ORGANISATIONS)
            chosen = self.value()
            if chosen and chosen not in {organisation.slug for organisation in organisations}:
                organisations += Organisation.objects.filter(slug=chosen)
            request.organisations = organisations
        return [(organisation.slug, organisation.name) for organisation in request.organisations]

    def condition(self, value):
        return Q(organisation__slug=value)


class NamedRowsFormSet(OrderedItemFormSet):
    """A list whose inputs each say, for screen readers, which column and row they are in.

    A table row's inputs have no <label>: the column heads name them for the eye only. Each
    gets an aria-label ("Order (tag 2)", "Delete (tag 2)", "Address (new source)"), which
    static/cases/admin.js also gives the autocomplete boxes drawn over the selects.
    """

    item_name = ""  # the inline's verbose_name, set by OrderedInline.get_formset
    list_name = None  # a list of bilingual texts ("remediation"): each row's own "still correct"

    def add_fields(self, form, index):
        super().add_fields(form, index)
        if index is not None and index < self.initial_form_count():
            row = _("%(item)s %(number)d") % {"item": self.item_name, "number": index + 1}
        else:
            row = _("new %(item)s") % {"item": self.item_name}
        for field in form.fields.values():
            # An autocomplete select sits inside RelatedFieldWidgetWrapper, which renders
            # its inner widget's attrs.
            widget = getattr(field.widget, "widget", field.widget)
            if not widget.is_hidden:
                widget.attrs["aria-label"] = _("%(column)s (%(row)s)") % {
                    "column": capfirst(field.label),
                    "row": row,
                }
        if self.list_name and form.instance.pk is not None and "text_ko" in form.fields:
            item = form.instance
            key = translations.item_key(self.list_name, item.position)
            text = translations.text_state(
                self.instance.translations, key, item.text_en, item.text_ko
            )
            offer_still_correct(form.fields["text_ko"], text, self)


class OrderedInline(KeyCheckedAutocomplete, admin.TabularInline):
    """An ordered list of a case, shown in the change form's `section`."""

    form = OrderedItemForm
    formset = NamedRowsFormSet
    template = "admin/cases/edit_inline/tabular.html"
    formfield_overrides = LibraryAdmin.formfield_overrides
    extra = 1
    section = None
    list_name = None  # for the lists of bilingual texts: their name in cases/translations.py

    def get_formset(self, request, obj=None, **kwargs):
        formset = super().get_formset(request, obj, **kwargs)  # a class made for this request
        formset.item_name = self.verbose_name
        formset.list_name = self.list_name
        return formset

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        if isinstance(db_field, models.TextField):
            kwargs["widget"] = AdminTextareaWidget(attrs={"rows": 2})
        return super().formfield_for_dbfield(db_field, request, **kwargs)


class CaseTermInline(OrderedInline):
    model = CaseTerm
    fields = ("order", "term")
    autocomplete_fields = ("term",)
    section = WHY
    verbose_name = gettext_lazy("tag")
    verbose_name_plural = gettext_lazy("tags: domain, symptoms, components, contributing factors")

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "term":
            kwargs["queryset"] = Term.objects.filter(facet__in=LIST_FACETS)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


class RemediationInline(OrderedInline):
    model = RemediationStep
    fields = ("order", "text_en", "text_ko", "kind")
    section = FIX_AND_LESSONS
    list_name = "remediation"

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "kind":
            # A plain select of the fix facet's terms (a few dozen at most), in label order.
            kwargs["queryset"] = Term.objects.filter(facet=Facet.FIX).order_by("label_en")
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


class ActionItemInline(OrderedInline):
    model = ActionItem
    fields = ("order", "text_en", "text_ko")
    section = FIX_AND_LESSONS
    list_name = "action_items"


class SourceInline(OrderedInline):
    model = Source
    fields = ("order", "url", "kind", "license", "archived")
    section = SOURCES
    verbose_name_plural = gettext_lazy("cited sources")


class RelatedCaseInline(OrderedInline):
    model = RelatedCase
    fk_name = "from_case"
    fields = ("order", "to_case")
    autocomplete_fields = ("to_case",)
    section = SOURCES


@admin.register(Case)
class CaseAdmin(LibraryAdmin):
    form = CaseAdminForm
    formfield_overrides = {
        **LibraryAdmin.formfield_overrides,
        models.JSONField: {"form_class": JSONTextField},
    }
    import_keys = ("id",)
    short_texts = ("title_en", "title_ko", "impact_scope", "impact_users", "impact_region")
    list_display = (
        "id",
        "title_en",
        "organisation",
        "date",
        "status",
        # A draft from a followed source says which ("followed source github", ingest/).
        "written_by",
        "reviewed_by",
        "updated_at",
        "translation",
    )
    list_display_links = ("id", "title_en")
    list_filter = (
        ReviewStatusFilter,
        TranslationFilter,
        *(FacetFilter.for_facet(facet) for facet in Facet),
        OrganisationFilter,
    )
    list_select_related = ("organisation",)
    # Each filter's counts only when asked ("Show counts"): they count the selection once per
    # value, seconds at 100,000 cases, which every page of the list would otherwise wait for.
    show_facets = admin.ShowFacets.ALLOW
    # The search box: see get_search_results.
    search_fields = ("id", "title_en", "title_ko", "organisation__name")
    ordering = ("-date", "id")
    date_hierarchy = "date"
    autocomplete_fields = ("organisation", "severity", "root_cause", "recurrence_of")
    readonly_fields = (*REVIEW_FIELDS, "created_at")
    inlines = (CaseTermInline, RemediationInline, ActionItemInline, SourceInline, RelatedCaseInline)
    actions = ("approve_selected", "return_selected_to_draft")
    change_form_template = "admin/cases/case/change_form.html"

    class Media:
        js = ("cases/admin.js",)

    def get_fieldsets(self, request, obj=None):
        review_fields = ["written_by"]
        if obj is not None:
            review_fields += [
                "status",
                ("reviewed_by", "reviewed_at"),
                "reviewer",
                ("last_change", "created_at"),
            ]
            if not obj.is_draft and self.has_review_permission(request):
                review_fields.append("approve_again")
        bilingual = [
            (f"{name}_en", f"{name}_ko")
            for name in ("summary", "trigger", "symptoms_text", "detection")
        ]
        return [
            (
                SUMMARY,
                {
                    "fields": [
                        "id",
                        ("title_en", "title_ko"),
                        "organisation",
                        ("date", "date_kind"),
                        "severity",
                        ("impact_scope", "impact_users", "impact_region"),
                        "url",
                    ]
                },
            ),
            (WHAT_HAPPENED, {"fields": [*bilingual, ("detected_after", "resolved_after")]}),
            (WHY, {"fields": ["root_cause", "recurrence_of"]}),
            (FIX_AND_LESSONS, {"fields": [("lessons_en", "lessons_ko")]}),
            (SOURCES, {"fields": ["docs"]}),
            (REVIEW, {"fields": review_fields}),
        ]

    # Permissions ---------------------------------------------------------------

    def has_review_permission(self, request):
        return request.user.has_perm(f"{self.opts.app_label}.review_case")

    # The list ------------------------------------------------------------------

    @admin.display(description=gettext_lazy("status"), ordering="reviewed_at")
    def status(self, case):
        return _("Draft") if case.is_draft else _("Reviewed")

    @admin.display(description=gettext_lazy("last change"))
    def last_change(self, case):
        change = review.last_change(case)
        return _("%(when)s by %(who)s") % {"when": change.when, "who": change.who}

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

    def get_changelist(self, request, **kwargs):
        return CaseChangeList

    def get_ordering(self, request):
        if request.GET.get(TranslationFilter.parameter_name) in (
            translations.STALE,
            translations.MISSING,
        ):
            return ("changed_at", "id")  # the queue: the longest waiting first
        return super().get_ordering(request)

    def changelist_view(self, request, extra_context=None):
        counts = Case.objects.aggregate(
            drafts=Count("pk", filter=~REVIEWED),
            reviewed=Count("pk", filter=REVIEWED),
        )
        return super().changelist_view(request, {**(extra_context or {}), "review_counts": counts})

    def view_on_site(self, case):
        if Case.objects.published().filter(pk=case.pk).exists():
            return case.get_absolute_url()
        return None

    # The change form -----------------------------------------------------------

    def history_view(self, request, object_id, extra_context=None):
        """Django's history, and the imports that changed the case (ImportedChange): an
        import is no user's action, which Django's history (LogEntry) is made of."""
        imports = ImportedChange.objects.filter(case_id=unquote(object_id)).order_by(
            "imported_at", "id"
        )
        return super().history_view(
            request, object_id, {**(extra_context or {}), "imported_changes": imports}
        )

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        review_action = next((a for a in (APPROVE, RETURN_TO_DRAFT) if a in request.POST), None)
        # The buttons are not shown to whom these refuse: a request that presses them anyway
        # gets templates/403.html, saying why.
        if review_action and object_id is None:
            raise PermissionDenied(
                _("A new case cannot be approved or returned to draft: save it first.")
            )
        if review_action and not self.has_review_permission(request):
            raise PermissionDenied(
                _(
                    "Only reviewers may approve a case or return it to draft, and your account "
                    "does not have that permission (cases.review_case). Nothing was saved: go "
                    "back to keep your changes and press “Save”, then ask a reviewer."
                )
            )
        extra_context = {**(extra_context or {}), "can_review": self.has_review_permission(request)}
        return super().changeform_view(request, object_id, form_url, extra_context)

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        # A draft's likely duplicates, above its form (cases/review/duplicates.py). A reviewed
        # case has been judged already: a later draft of the same incident shows it instead.
        if change and obj is not None and obj.is_draft:
            context["likely_duplicates"] = duplicates.likely_duplicates(obj)
            context["likely_duplicates_days"] = duplicates.DAYS_APART
        return super().render_change_form(request, context, add, change, form_url, obj)

    def save_model(self, request, case, form, change):
        if not change:
            case.updated_at = case.changed_at = timezone.now()
            case.changed_by = request.user.get_username()
        super().save_model(request, case, form, change)

    def save_related(self, request, form, formsets, change):
        items_before = [
            (formset, [(item_form, item_form.instance.position) for item_form in formset.forms])
            for formset in formsets
            if formset.model in (RemediationStep, ActionItem)
        ]
        super().save_related(request, form, formsets, change)
        translated = self.record_translations(request, form, items_before)
        if change and (
            form.has_changed() or translated or any(fs.has_changed() for fs in formsets)
        ):
            # (The form's clean locked the row, at the version this instance holds.)
            review.record_edit(form.instance, request.user)

    def record_translations(self, request, form, items_before):
        """Record which English each Korean text now translates (cases/translations.py);
        whether the case's translations changed."""
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

    def log_change(self, request, case, message):
        # Pressing "Approve" on an unchanged form is an approval, logged as one, not an edit.
        if message or not {APPROVE, RETURN_TO_DRAFT} & request.POST.keys():
            super().log_change(request, case, message)

    def response_change(self, request, case):
        if APPROVE in request.POST:
            review.approve(
                case.pk,
                request.user,
                seen_version=review.version_of(case),
                again=bool(request.POST.get("approve_again")),
            )
            self.message_user(
                request,
                format_html(_("{case} was approved: you are its reviewer."), case=case.pk),
                messages.SUCCESS,
            )
            return self.response_post_save_change(request, case)
        if RETURN_TO_DRAFT in request.POST:
            try:
                review.return_to_draft(case.pk, request.user, seen_version=review.version_of(case))
            except review.AlreadyDraft as refusal:
                self.message_user(request, str(refusal), messages.INFO)
            else:
                self.message_user(
                    request,
                    format_html(_("{case} was returned to draft."), case=case.pk),
                    messages.SUCCESS,
                )
            return self.response_post_save_change(request, case)
        seen_version = request.POST.get("seen_version")
        if reviewer := review.return_if_edited(case, request.user, seen_version=seen_version):
            self.message_user(
                request,
                format_html(
                    _(
                        "{case} was returned to draft: it changed after {reviewer} reviewed it "
                        "(a text, a field, a list, or a Korean text confirmed as still "
                        "correct). A reviewer needs to approve it again."
                    ),
                    case=case.pk,
                    reviewer=reviewer,
                ),
                messages.WARNING,
            )
        return super().response_change(request, case)

    def get_search_results(self, request, queryset, search_term):
        """The library's own search (the search vector, GIN-indexed: the words of the texts in
        both languages, the organisation's name), as the public list's, or a case whose id
        holds the text ("IL-01", "0137"). Django's default, a substring of every field, reads
        every case's texts: seconds at 100,000 cases.

        The ids are found first, in the primary key's index alone (one small query), so
        that the two conditions are two index look-ups."""
        text = search.as_searched(search_term).strip()
        if not text:
            return queryset, False
        ids = []
        if len(text) <= Case._meta.pk.max_length and not any(c.isspace() for c in text):
            ids = list(
                Case.objects.filter(id__contains=text.upper()).values_list("id", flat=True)[
                    :MAX_ID_MATCHES
                ]
            )
        return queryset.filter(Q(id__in=ids) | search.every_word(text)), False

    # Actions on the list -------------------------------------------------------

    @admin.action(permissions=["review"], description=gettext_lazy("Approve the selected cases"))
    def approve_selected(self, request, queryset):
        """Ask first, showing each case's version; then approve those still as shown."""
        cases = self.chosen(request, queryset)
        if cases is None:
            return None
        if not request.POST.get("post"):
            return self.confirmation(
                request, "approve_selected_confirmation.html", _("Approve cases"), cases
            )
        approved, kept, refused = review.for_each(
            cases,
            lambda case: review.approve(
                case.pk,
                request.user,
                seen_version=request.POST.get(f"version-{case.pk}"),
                again=bool(request.POST.get("approve_again")),
            ),
            review.AlreadyReviewed,
        )
        if approved:
            self.message_user(
                request,
                ngettext(
                    "%(count)d case approved: %(ids)s.",
                    "%(count)d cases approved: %(ids)s.",
                    len(approved),
                )
                % {"count": len(approved), "ids": ", ".join(approved)},
                messages.SUCCESS,
            )
        if kept:
            self.message_user(
                request,
                _("Already reviewed, left as they were: %(ids)s.") % {"ids": ", ".join(kept)},
                messages.INFO,
            )
        for refusal in refused:
            self.message_user(
                request,
                _("%(refusal)s It was not approved.") % {"refusal": refusal},
                messages.ERROR,
            )
        return None

    @admin.action(
        permissions=["review"], description=gettext_lazy("Return the selected cases to draft")
    )
    def return_selected_to_draft(self, request, queryset):
        """Ask first, showing each case's version; then return those still as shown."""
        cases = self.chosen(request, queryset)
        if cases is None:
            return None
        if not request.POST.get("post"):
            return self.confirmation(
                request, "return_selected_confirmation.html", _("Return cases to draft"), cases
            )
        returned, drafts, refused = review.for_each(
            cases,
            lambda case: review.return_to_draft(
                case.pk, request.user, seen_version=request.POST.get(f"version-{case.pk}")
            ),
            review.AlreadyDraft,
        )
        if returned or not (drafts or refused):
            self.message_user(
                request,
                ngettext(
                    "%(count)d case returned to draft: %(ids)s.",
                    "%(count)d cases returned to draft: %(ids)s.",
                    len(returned),
                )
                % {"count": len(returned), "ids": ", ".join(returned) or "-"},
                messages.SUCCESS if returned else messages.WARNING,
            )
        if drafts:
            self.message_user(
                request,
                ngettext(
                    "%(count)d case was already a draft, left as it was: %(ids)s.",
                    "%(count)d cases were already drafts, left as they were: %(ids)s.",
                    len(drafts),
                )
                % {"count": len(drafts), "ids": ", ".join(drafts)},
                messages.INFO,
            )
        for refusal in refused:
            self.message_user(
                request,
                _("%(refusal)s It was not returned to draft.") % {"refusal": refusal},
                messages.ERROR,
            )
        return None

    def chosen(self, request, queryset):
        """The cases an action acts on, or None (with a message) when they are more than
        review.BULK_LIMIT. Once confirmed: every case the confirmation listed (their ids are
        posted), whether or not it still matches the list's filters (Django filters the
        selection by them again): a case approved or edited meanwhile is then refused by
        name, not left out in silence."""
        if request.POST.get("post"):
            queryset = Case.objects.filter(
                pk__in=request.POST.getlist(helpers.ACTION_CHECKBOX_NAME)
            )
        count = queryset.count()
        if count > review.BULK_LIMIT:
            self.message_user(
                request,
                _(
                    "You chose %(count)s cases; a review action takes at most %(limit)s at a "
                    "time. Nothing was changed: narrow the list with its filters or its search, "
                    "or choose cases on one page."
                )
                % {"count": count, "limit": review.BULK_LIMIT},
                messages.ERROR,
            )
            return None
        cases = list(queryset.select_related("organisation").order_by("id"))
        if request.POST.get("post"):
            gone = sorted(
                set(request.POST.getlist(helpers.ACTION_CHECKBOX_NAME)) - {c.id for c in cases}
            )
            if gone:
                self.message_user(
                    request,
                    ngettext(
                        "%(ids)s is no longer in the library (deleted meanwhile): nothing was "
                        "done to it.",
                        "%(ids)s are no longer in the library (deleted meanwhile): nothing was "
                        "done to them.",
                        len(gone),
                    )
                    % {"ids": ", ".join(gone)},
                    messages.ERROR,
                )
        return cases

    def confirmation(self, request, template, title, cases):
        """The page a bulk review action asks on, carrying the version of each case shown."""
        return TemplateResponse(
            request,
            f"admin/cases/case/{template}",
            {
                **self.admin_site.each_context(request),
                "title": title,
                "opts": self.opts,
                "drafts": [c for c in cases if c.is_draft],
                "reviewed": [c for c in cases if not c.is_draft],
                # The versions shown: the action refuses cases changed since.
                "selection": [(c, review.version_of(c)) for c in cases],
                "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
                "media": self.media,
            },
        )


admin.site.index = _index_with_terms_needing_labels(admin.site.index)
