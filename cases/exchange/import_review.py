"""What an import does with the review of a case it changes: the review rule
(review.workflow.review_lapses) applied to a stored case and the file's copy of it.

Of each case it replaces, the writing knows which fields change (format.changed_fields):
`review_after_import` gives the case to write and what became of its review (`ReviewOutcome`),
which the command reports and the case's ImportedChange keeps for its admin History.
"""

from dataclasses import dataclass

from cases.exchange.format import parse_timestamp
from cases.models import ImportedChange
from cases.review.workflow import review_lapses


@dataclass(frozen=True)
class ReviewOutcome:
    """What an import did with a review when it changed a case's reviewed content (`fields`):
    the case is a draft (ImportedChange.RETURNED_TO_DRAFT: `reviewer` and `reviewed_at` are
    the library's review that lapsed; OLDER_REVIEW: the file's own, older than the library's
    version, not taken), or has the file's newer review (NEWER_REVIEW: that review)."""

    outcome: str
    reviewer: str | None
    reviewed_at: str | None
    fields: tuple

    def said(self, *, dry_run=False):
        fields = ", ".join(self.fields)
        review = f"the review by {self.reviewer} ({self.reviewed_at})"
        if self.outcome == ImportedChange.NEWER_REVIEW:
            verb = "would keep" if dry_run else "kept"
            return f"{verb} the file's own {review[4:]}, newer than the library's ({fields})"
        if self.outcome == ImportedChange.OLDER_REVIEW:
            verb = "would stay" if dry_run else "stays"
            return (
                f"{verb} a draft: the file's {review[4:]} is older than the library's "
                f"version, so it did not vouch for the changes ({fields})"
            )
        verb = "would return" if dry_run else "returned"
        return f"{verb} to draft: the import changes what {review} vouched for ({fields})"


def review_after_import(stored, data, changes):
    """(the case to write, its ReviewOutcome or None): the review rule (review_lapses) for a
    stored case `stored` that an import replaces with `data` (both exchange cases), `changes`
    the paths that differ. A review vouches for what it read: when the content changes, the
    case is a draft, unless the file carries a review of its own later than the library's
    (than the library's version, `updated_at`, for a draft). A file's review no later than
    that never replaces the library's, so that a review the library saw lapse does not come
    back with the same file imported again."""
    content = tuple(path for path in changes if path != "updated_at" and path[:7] != "review.")
    before, given = stored["review"], data["review"]
    library = before["reviewed_at"] or stored["updated_at"]
    newer = bool(
        given["reviewed_at"] and parse_timestamp(given["reviewed_at"]) > parse_timestamp(library)
    )
    if not content:
        if newer or not any(path.startswith("review.reviewed_") for path in changes):
            return data, None
        # Only the review differs, and the file's is not the later: the library's stands.
        kept = {**given, "reviewed_at": before["reviewed_at"], "reviewed_by": before["reviewed_by"]}
        return {**data, "review": kept}, None
    if before["reviewed_at"] is None and given["reviewed_at"] is None:
        return data, None
    if not review_lapses(reviewed=True, changed=True, newer_review=newer):
        outcome = ImportedChange.NEWER_REVIEW
        return data, ReviewOutcome(outcome, given["reviewed_by"], given["reviewed_at"], content)
    draft = {**given, "reviewed_at": None, "reviewed_by": None}
    if before["reviewed_at"]:
        outcome, lapsed = ImportedChange.RETURNED_TO_DRAFT, before
    else:
        outcome, lapsed = ImportedChange.OLDER_REVIEW, given
    return {**data, "review": draft}, ReviewOutcome(
        outcome, lapsed["reviewed_by"], lapsed["reviewed_at"], content
    )
