"""The admin of followed sources: follow one, see its runs, review what it drafted."""

from django.contrib import admin, messages
from django.db import transaction
from django.db.models import ProtectedError
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from cases.models import Case
from ingest import duplicates
from ingest.models import FollowedSource, Item, ItemState, Language
from ingest.tasks import defer_poll

STATE_FIELDS = (
    "last_run_at",
    "last_outcome",
    "last_error",
    "last_error_at",
    "errors_in_a_row",
    "next_poll_at",
    "items_listed",
    "shrunk",
    "runs",
    "drafted",
    "updated",
    "skipped",
    "flagged",
    "refused",
    "errors",
    "created_at",
)


@admin.register(FollowedSource)
class FollowedSourceAdmin(admin.ModelAdmin):
    list_display = (
        "name",
        "kind",
        "active",
        "last_run_at",
        "last_outcome",
        "drafted",
        "updated",
        "skipped",
        "errors",
        "has_shrunk",
    )
    list_filter = ("kind", "active")
    search_fields = ("name", "url")
    readonly_fields = STATE_FIELDS
    actions = ("poll_now", "clear_shrunk")
    fieldsets = (
        (
            None,
            {"fields": ("name", "kind", "url", "licence", "language", "every_minutes", "active")},
        ),
        (
            gettext_lazy("Which incidents to keep"),
            {"fields": ("min_impact", "postmortem_only", "words")},
        ),
        (gettext_lazy("Runs"), {"fields": STATE_FIELDS}),
    )

    @admin.display(description=gettext_lazy("listed far fewer"), boolean=True)
    def has_shrunk(self, source):
        return bool(source.shrunk)

    @admin.action(description=gettext_lazy("Poll the selected sources now (the worker)"))
    def poll_now(self, request, queryset):
        queued = sum(defer_poll(source) for source in queryset)
        self.message_user(
            request,
            ngettext(
                "%(count)d run queued for the worker; its outcome shows here when done.",
                "%(count)d runs queued for the worker; their outcomes show here when done.",
                queued,
            )
            % {"count": queued},
        )

    @admin.action(description=gettext_lazy("Clear the “listed far fewer” flag"))
    def clear_shrunk(self, request, queryset):
        queryset.update(shrunk="")


class ChangedFilter(admin.SimpleListFilter):
    title = gettext_lazy("changed at the source")
    parameter_name = "changed"

    def lookups(self, request, model_admin):
        return [("yes", _("Yes"))]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.exclude(changed_at_source="")
        return queryset


@admin.register(Item)
class ItemAdmin(admin.ModelAdmin):
    """The drafts' queue, by source: each item read, its draft, and what changed."""

    list_display = ("title", "source", "state", "draft", "changed", "translation", "fetched_at")
    list_filter = ("state", ChangedFilter, "source")
    list_select_related = ("source",)
    search_fields = ("title", "item_id", "url")
    actions = ("dismiss",)
    fields = (
        "source",
        "item_id",
        "url",
        "title",
        "state",
        "draft",
        "likely_duplicates",
        "changed_at_source",
        "problem",
        "fetched_at",
        "content_hash",
        "first_seen_at",
        "read",
    )
    readonly_fields = fields

    def has_add_permission(self, request):
        return False  # items come from their sources only

    @admin.display(description=gettext_lazy("draft case"))
    def draft(self, item):
        if not item.case_id:
            return "-"
        url = reverse("admin:cases_case_change", args=[item.case_id])
        return format_html('<a href="{}">{}</a>', url, item.case_id)

    @admin.display(description=gettext_lazy("changed at the source"), boolean=True)
    def changed(self, item):
        return bool(item.changed_at_source)

    @admin.display(description=gettext_lazy("translation"))
    def translation(self, item):
        if item.state != ItemState.DRAFTED:
            return "-"
        if item.source.language == Language.KOREAN:
            return _("needs English")
        return _("needs Korean")

    @admin.display(description=gettext_lazy("likely duplicates"))
    def likely_duplicates(self, item):
        found = duplicates.likely_duplicates(item)
        if not found:
            return _("none found")
        return format_html_join(
            ", ",
            '<a href="{}">{}</a>',
            ((reverse("admin:cases_case_change", args=[case.pk]), case.pk) for case in found),
        )

    @admin.action(description=gettext_lazy("Dismiss: delete the draft, never draft it again"))
    def dismiss(self, request, queryset):
        dismissed = kept = 0
        for item in queryset.select_related("case"):
            with transaction.atomic():
                draft = item.case if item.case_id and item.case.is_draft else None
                try:
                    if draft is not None:
                        Case.objects.filter(pk=draft.pk).delete()
                except ProtectedError:
                    kept += 1
                    continue
                item.state, item.case = ItemState.DISMISSED, None
                item.save(update_fields=["state", "case"])
                dismissed += 1
        self.message_user(
            request,
            ngettext("%(count)d item dismissed.", "%(count)d items dismissed.", dismissed)
            % {"count": dismissed},
        )
        if kept:
            self.message_user(
                request,
                _(
                    "%(count)d draft is linked from another case (related or recurrence) and "
                    "was kept: remove the link first."
                )
                % {"count": kept},
                messages.WARNING,
            )
