"""The cases' admin: the list of cases, its search box, and the change form where editors
write a case and reviewers approve it or return it to draft.

The parts it is made of have modules of their own: its filters (filters.py), the lists in
the form (inlines.py), the form's sections (sections.py), the translation bookkeeping
(translations.py), the bulk review actions (actions.py), and what every admin of the
library shares (library_admin.py, busy_rows.py).
"""

from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.contrib.admin.views.main import ChangeList
from django.core.exceptions import PermissionDenied
from django.db import models
from django.db.models import Count, Q
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from cases import translations
from cases.admin.actions import ReviewActions
from cases.admin.filters import (
    FacetFilter,
    OrganisationFilter,
    ReviewStatusFilter,
    TranslationFilter,
)
from cases.admin.inlines import (
    ActionItemInline,
    CaseTermInline,
    RelatedCaseInline,
    RemediationInline,
    SourceInline,
)
from cases.admin.library_admin import LibraryAdmin
from cases.admin.sections import FIX_AND_LESSONS, REVIEW, SOURCES, SUMMARY, WHAT_HAPPENED, WHY
from cases.admin.translations import TranslationBookkeeping, positions_before
from cases.listing import search
from cases.models import REVIEWED, Case, Facet, ImportedChange
from cases.review import duplicates
from cases.review import workflow as review
from cases.review.forms import APPROVE, RETURN_TO_DRAFT, CaseAdminForm, JSONTextField

REVIEW_FIELDS = ("status", "reviewed_by", "reviewed_at", "reviewer", "last_change")

# Cases whose id holds the text of a search of the admin's list, at most.
MAX_ID_MATCHES = 1000


class CaseChangeList(ChangeList):
    """The admin's list of cases, whose translation column reads each case's items (two
    queries a page)."""

    def get_results(self, request):
        super().get_results(request)
        self.result_list = self.result_list.prefetch_related("remediation_steps", "action_items")


class CaseAdmin(ReviewActions, TranslationBookkeeping, LibraryAdmin):
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
        items_before = positions_before(formsets)
        super().save_related(request, form, formsets, change)
        translated = self.record_translations(request, form, items_before)
        if change and (
            form.has_changed() or translated or any(fs.has_changed() for fs in formsets)
        ):
            # (The form's clean locked the row, at the version this instance holds.)
            review.record_edit(form.instance, request.user)

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
