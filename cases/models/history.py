"""What the library keeps of past writes: deleted cases, and each import's changes."""

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.utils.translation import gettext_lazy as _

from cases.models.case import Case


class DeletedCaseQuerySet(models.QuerySet):
    def since(self, moment=None):
        """(case id, time) of each case that left the public library at or after `moment`
        (every one without it), latest first (/api/cases/deleted/): the cases deleted, and
        when drafts are hidden the drafts changed since (a case returned to draft among them);
        when drafts are hidden, only cases once reviewed: the public never saw the others."""
        deleted = self if moment is None else self.filter(deleted_at__gte=moment)
        hidden = Case.objects.hidden()
        if settings.INCIDENTLIB_HIDE_DRAFTS:  # a draft the public never saw is never named
            deleted = deleted.filter(once_reviewed=True)
            hidden = hidden.filter(once_reviewed=True)
        if moment is not None:
            hidden = hidden.filter(changed_at__gte=moment)
        return (
            deleted.values_list("case_id", "deleted_at")
            .union(hidden.values_list("id", "changed_at"), all=True)
            .order_by("-deleted_at", "case_id")
        )


class DeletedCase(models.Model):
    """A case deleted from the library, kept so that a copy kept in sync learns of it.

    Written by the database only (cases/migrations/), whatever deletes the case: the admin,
    SQL. A case made again under the same id takes its id out of this table.
    """

    case_id = models.CharField(_("case id"), max_length=20, primary_key=True)
    # The database's time of the deleting transaction: a sync time (exchange.export.sync_time)
    # taken before it is never later.
    deleted_at = models.DateTimeField(_("deleted at"))
    # Whether the case was ever reviewed (Case.once_reviewed): with drafts hidden, a deleted
    # draft that never was is a case the public never saw, and is not named.
    once_reviewed = models.BooleanField(_("once reviewed"), default=True)

    objects = DeletedCaseQuerySet.as_manager()

    class Meta:
        verbose_name = _("deleted case")
        verbose_name_plural = _("deleted cases")
        indexes = [
            # /api/cases/deleted/?since=: the deletions since a time, latest first.
            models.Index(fields=["-deleted_at", "case_id"], name="deleted_case_since_idx"),
        ]

    def __str__(self):
        return self.case_id


class ImportedChange(models.Model):
    """One import's change to a case, for the case's admin history: Django's history
    (LogEntry) is of users' actions, and an import has no user. Written by the import
    (cases/exchange/writer.py), one row for each case it creates or changes."""

    CREATED, RETURNED_TO_DRAFT = "created", "returned-to-draft"
    NEWER_REVIEW, OLDER_REVIEW = "newer-review", "older-review"

    case_id = models.CharField(_("case id"), max_length=20)
    imported_at = models.DateTimeField(_("imported at"))
    file = models.TextField(_("file"))
    # The paths of what changed in the exchange format ("lessons.ko", "sources"); none for a
    # case the import created.
    fields = ArrayField(models.TextField(), verbose_name=_("fields"), default=list)
    # CREATED, or what the change did to the case's review (review_lapses), or "".
    outcome = models.CharField(_("outcome"), max_length=20, blank=True, default="")

    class Meta:
        verbose_name = _("imported change")
        verbose_name_plural = _("imported changes")
        indexes = [
            models.Index(fields=["case_id", "imported_at"], name="imported_change_case_idx"),
        ]

    def __str__(self):
        return f"{self.case_id} {self.imported_at:%Y-%m-%d %H:%M} {self.file}"
