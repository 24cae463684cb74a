"""Approving cases and returning them to draft, without losing anyone's update.

A case's version is its `version` column: every write raises it (the admin on each save
that changes something, an approval, a return to draft, an import) and records who wrote it
(`changed_by`, none for an import) and when (`changed_at`). Whoever acts on a case says
which version they saw; the row is locked and the action refused if the case changed since,
naming who changed it and when. Each approval or return is written to the admin history
(LogEntry).
"""

import datetime
from contextlib import contextmanager
from dataclasses import dataclass

from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.contenttypes.models import ContentType
from django.db import OperationalError, connection, transaction
from django.utils import formats, timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from cases.models import Case

# Kept in English in the history and translated when shown
# (templates/admin/cases/case/object_history.html).
APPROVED = gettext_noop("Approved.")
APPROVED_AGAIN = gettext_noop("Approved again, replacing the previous review.")
RETURNED_TO_DRAFT = gettext_noop("Returned to draft.")
RETURNED_EDITED = gettext_noop("Returned to draft (edited).")

# Cases one bulk approval or return acts on at most. Each is its own write (a reviewer vouches
# for each case, and a case changed meanwhile is refused alone), a few milliseconds apiece:
# "every draft" of a 100,000-case library would outlast any request, and its confirmation
# page, listing every case with its version, would outgrow what Django accepts in one POST
# (DATA_UPLOAD_MAX_NUMBER_FIELDS, 1,000 fields: two a case).
BULK_LIMIT = 200


class ReviewRefused(Exception):
    """An approval, return or edit that would overwrite or override someone else's work."""


class CaseChanged(ReviewRefused):
    def __init__(self, case, change):
        self.case, self.change = case, change
        super().__init__(
            _("%(case)s was changed by %(who)s on %(when)s, after you opened it.")
            % {"case": case.pk, "who": change.who, "when": change.when}
        )


class CaseBusy(ReviewRefused):
    """The case's row is locked by another write (an import's write phase, most likely)."""

    def __init__(self, case_id):
        self.case_id = case_id
        super().__init__(
            _(
                "%(case)s is being imported (or saved by someone else) right now, so nothing "
                "was saved."
            )
            % {"case": case_id}
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


class AlreadyDraft(ReviewRefused):
    def __init__(self, case):
        self.case = case
        super().__init__(
            _("%(case)s is already a draft: there was no review to clear.") % {"case": case.pk}
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
    """The version of a case a form or page carries, as text."""
    return str(case.version)


def parse_version(text):
    text = (text or "").strip()
    return int(text) if text.isascii() and text.isdigit() else None


def last_change(case):
    """Who wrote the case's current version (a username, or none for an import) and when."""
    return LastChange(case.changed_by, case.changed_at)


# How long a save waits for the case's row: a save never waits on a long import (whose write
# phase holds the rows it rewrites), it says so at once and keeps the input.
LOCK_WAIT = "2s"
LOCK_NOT_AVAILABLE = "55P03"
# What PostgreSQL ends a transaction with when it would otherwise wait forever (a deadlock
# with a write from outside the admin) or when it may not commit as it ran: nothing was
# changed, and the same write a moment later may go through.
TRY_AGAIN = frozenset({LOCK_NOT_AVAILABLE, "40P01", "40001"})

# The order of an admin write's locks. Two admin writes never wait for each other in a
# cycle (G-20 made a recurrence of G-21 while G-21 was made a recurrence of G-20 deadlocked):
# 1. RECURRENCE_LOCK, for a save that changes what its case is a recurrence of, so that such
#    saves run one at a time and each checks for a loop (Case.clean) with the others'
#    changes committed: two saves that each seem fine alone never make a loop together;
# 2. the case's own row (lock_unchanged), FOR NO KEY UPDATE: the lock an UPDATE of the row
#    takes anyway, which the check of a foreign key naming the case (FOR KEY SHARE: another
#    save making a case a recurrence of it, or related to it) does not wait for;
# 3. the rows the save writes: its case's and its lists';
# 4. at COMMIT, the rows its foreign keys name (FOR KEY SHARE: only a deletion or an
#    import's FOR UPDATE makes it wait), then the library's generation row and the facet
#    counts (cases/migrations/), each transaction's last locks.
RECURRENCE_LOCK = 0x1C_1A_0E_71


class RowsBusy(Exception):
    """A write of the admin needed rows that another transaction (an import) holds."""


@contextmanager
def waiting_briefly_for_rows():
    """A transaction whose waits for rows locked by another one end after LOCK_WAIT with
    RowsBusy, so that an admin write (a deletion, an organisation renamed) never hangs
    behind an import for the minutes it writes, past the app server's timeout. A deadlock
    or a serialization failure (of a write from outside the admin) ends it the same way."""
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SELECT set_config('lock_timeout', %s, true)", [LOCK_WAIT])
            yield
    except OperationalError as error:
        if getattr(error.__cause__, "sqlstate", None) in TRY_AGAIN:
            raise RowsBusy() from None
        raise


def lock_unchanged(case_id, seen_version, *, recurrence_changes=False):
    """The case, locked until the transaction ends, if it is still the version seen.

    Must run inside a transaction. `seen_version` is the text `version_of` gave;
    `recurrence_changes`: the write changes what the case is a recurrence of (it then takes
    RECURRENCE_LOCK first). Raises CaseBusy if another transaction holds the row for more
    than LOCK_WAIT, CaseChanged if the case is no longer the version seen.
    """
    try:
        # A savepoint: a lock timeout aborts only it, and the form can still be shown.
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(
                "SELECT current_setting('lock_timeout'), set_config('lock_timeout', %s, true)",
                [LOCK_WAIT],
            )
            previous, _new = cursor.fetchone()
            if recurrence_changes:
                cursor.execute("SELECT pg_advisory_xact_lock(%s)", [RECURRENCE_LOCK])
            case = Case.objects.select_for_update(no_key=True).get(pk=case_id)
            cursor.execute("SELECT set_config('lock_timeout', %s, true)", [previous])
    except OperationalError as error:
        if getattr(error.__cause__, "sqlstate", None) == LOCK_NOT_AVAILABLE:
            raise CaseBusy(case_id) from None
        raise
    if parse_version(seen_version) != case.version:
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


def return_to_draft(case_id, user, *, seen_version, edited=False):
    """Clear the case's review; return the case. Raises CaseChanged, or AlreadyDraft for a
    draft (which is left as it is: no new version, nothing in its history).

    `edited`: the return is the consequence of `user` changing the reviewed content.
    """
    with transaction.atomic():
        case = lock_unchanged(case_id, seen_version)
        if case.is_draft:
            raise AlreadyDraft(case)
        now = timezone.now()
        case.reviewed_by, case.reviewer, case.reviewed_at = None, None, None
        _save_review(case, user, now, RETURNED_EDITED if edited else RETURNED_TO_DRAFT)
    return case


def record_edit(case, user):
    """A save that changed `case` (its content, lists or translations: the admin's change
    form says which saves do) writes its next version, so that whoever opened the case
    before it may not overwrite it. return_if_edited then applies the review rule."""
    case.updated_at = timezone.now()
    mark_written(case, user, case.updated_at)
    case.save(update_fields=["updated_at", "version", "changed_by", "changed_at"])


def for_each(cases, act, already):
    """`act` on each case in turn, each its own write (a bulk approval or return): the ids
    of the cases acted on, of those that already were as asked (`act` raised `already`),
    and the refusals of the others (changed since the reviewer saw them, or busy)."""
    done, left, refused = [], [], []
    for case in cases:
        try:
            act(case)
            done.append(case.pk)
        except already:
            left.append(case.pk)
        except (CaseChanged, CaseBusy) as refusal:
            refused.append(str(refusal))
    return done, left, refused


def review_lapses(*, reviewed, changed, newer_review=False):
    """The review rule, for the admin (return_if_edited) and the import alike: a review
    vouches for the content it read, so a reviewed case whose content, lists or translations
    change returns to draft; unless the change brings a newer review of its own (an import's
    file whose `reviewed_at` is later than the library's)."""
    return reviewed and changed and not newer_review


def return_if_edited(case, user, *, seen_version):
    """The review rule: a review vouches for the content it read. A save that wrote a new
    version of a reviewed case (its content, lists or translations), other than with a review
    button, returns the case to draft. Returns the reviewer whose review lapsed, else None.

    `case`: the case as just saved; `seen_version`: the version the editor opened (the form
    saved only over it: lock_unchanged), as text.
    """
    if not review_lapses(
        reviewed=not case.is_draft, changed=case.version != parse_version(seen_version)
    ):
        return None
    reviewer = case.reviewed_by
    return_to_draft(case.pk, user, seen_version=version_of(case), edited=True)
    return reviewer


def _save_review(case, user, now, message):
    case.updated_at = now
    mark_written(case, user, now)
    case.save(
        update_fields=[
            "reviewed_by",
            "reviewer",
            "reviewed_at",
            "updated_at",
            "version",
            "changed_by",
            "changed_at",
        ]
    )
    LogEntry.objects.create(
        action_time=now,
        user=user,
        content_type=ContentType.objects.get_for_model(Case),
        object_id=str(case.pk),
        object_repr=str(case)[:200],
        action_flag=CHANGE,
        change_message=message,
    )


def mark_written(case, user, now):
    """Make `case` (not saved here) the next version, written by `user` at `now`."""
    case.version += 1
    case.changed_by = user.get_username()
    case.changed_at = now
