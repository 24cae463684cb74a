"""Likely duplicates of a drafted item: those of its draft, as the case's own admin page shows
them (cases/review/duplicates.py: same source address, or the same organisation within a few
days and similar text, in either language, in the library's one ranking)."""

from cases.review import duplicates


def likely_duplicates(item, limit=duplicates.LIKELY_DUPLICATES):
    """Cases other than the item's own draft that are likely the same incident."""
    if item.case_id is None:
        return []
    return [found.case for found in duplicates.likely_duplicates(item.case, limit)]
