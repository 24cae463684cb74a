"""Approving cases and returning them to draft, without losing anyone's update.

A case's version is its `updated_at`: every change bumps it (the admin on each save, an
approval, a return to draft, an import). Whoever acts on a case says which version they
saw; the row is locked and the action refused if the case changed since, naming who
changed it and when. Each approval or return is written to the admin history (LogEntry).
"""

import datetime
from dataclasses import dataclass

from django.contrib.admin.models import ADDITION, CHANGE, LogEntry
from django.contrib.contenttypes.models import ContentType
from django.db import transaction
from django.utils import formats, timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from .models import Case

# Kept in English in the history and translated when shown
# (templates/admin/cases/case/object_history.html).
APPROVED = gettext_noop("Approved.")
APPROVED_AGAIN = gettext_noop("Approved again, replacing the previous review.")
RETURNED_TO_DRAFT = gettext_noop("Returned to draft.")


class ReviewRefused(Exception):
    """An approval, return or edit that would overwrite or override someone else's work."""


class CaseChanged(ReviewRefused):
    def __init__(self, case, change):
        self.case, self.change = case, change
        super().__init__(
            _("%(case)s was changed by %(who)s on %(when)s, after you opened it.")
            % {"case": case.pk, "who": change.who, "when": change.when}
        )


class AlreadyReviewed(ReviewRefused):
    def __init__(self, case):
        self.case = case
        super().__init__(
            _(
                "%(case)s is already reviewed by %(reviewer)s on %(when)s: approving it again "
                "makes you its reviewer, as of now, and needs your confirmation."
            )
            % {"case": case.pk, "reviewer": case.reviewed_by, "when": _when(case.reviewed_at)}
        )


def _when(moment):
    return formats.date_format(timezone.localtime(moment), "DATETIME_FORMAT")


@dataclass(frozen=True)
class LastChange:
    """Who last changed a case (a username, or None outside the admin) and when."""

    username: str | None
    at: datetime.datetime

    @property
    def who(self):
        return self.username or _("an import")

    @property
    def when(self):
        return _when(self.at)


def version_of(case):
    """The version of a case a form or page carries: its updated_at, to the microsecond."""
    return case.updated_at.isoformat()


def parse_version(text):
    try:
        version = datetime.datetime.fromisoformat(text or "")
    except ValueError:
        return None
    return version if timezone.is_aware(version) else None


def last_change(case):
    """Who made the case's current version: the first admin history entry at or after it.

    The admin writes its entry just after saving, and approvals write theirs at the very
    instant they set; an import leaves no entry, so its changes are nobody's.
    """
    entry = (
        LogEntry.objects.filter(
            content_type=ContentType.objects.get_for_model(Case),
            object_id=str(case.pk),
            action_flag__in=(ADDITION, CHANGE),
            action_time__gte=case.updated_at,
        )
        .select_related("user")
        .order_by("action_time", "id")
        .first()
    )
    return LastChange(entry.user.get_username() if entry else None, case.updated_at)


def lock_unchanged(case_id, seen_version):
    """The case, locked until the transaction ends, if it is still the version seen.

    Must run inside a transaction. `seen_version` is the text `version_of` gave.
    """
    case = Case.objects.select_for_update().get(pk=case_id)
    if parse_version(seen_version) != case.updated_at:
        raise CaseChanged(case, last_change(case))
    return case


def check_approval(case, *, again):
    """Refuse to replace a case's review unless the reviewer confirmed it (`again`)."""
    if not case.is_draft and not again:
        raise AlreadyReviewed(case)


def approve(case_id, user, *, seen_version, again=False):
    """Mark the case reviewed by `user`, now; return it. Raises ReviewRefused.

    A case already reviewed keeps its review unless `again` confirms replacing it.
    """
    with transaction.atomic():
        case = lock_unchanged(case_id, seen_version)
        check_approval(case, again=again)
        message = APPROVED if case.is_draft else APPROVED_AGAIN
        now = timezone.now()
        case.reviewed_by, case.reviewer, case.reviewed_at = user.get_username(), user, now
        _save_review(case, user, now, message)
    return case


def return_to_draft(case_id, user, *, seen_version):
    """Clear the case's review; return the case. Raises CaseChanged."""
    with transaction.atomic():
        case = lock_unchanged(case_id, seen_version)
        now = timezone.now()
        case.reviewed_by, case.reviewer, case.reviewed_at = None, None, None
        _save_review(case, user, now, RETURNED_TO_DRAFT)
    return case


def _save_review(case, user, now, message):
    case.updated_at = now
    case.save(update_fields=["reviewed_by", "reviewer", "reviewed_at", "updated_at"])
    LogEntry.objects.create(
        action_time=now,
        user=user,
        content_type=ContentType.objects.get_for_model(Case),
        object_id=str(case.pk),
        object_repr=str(case)[:200],
        action_flag=CHANGE,
        change_message=message,
    )
