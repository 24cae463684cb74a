"""Likely duplicates of a drafted item: the hook for the search issue (issue 32).

The item admin shows what `likely_duplicates(item)` returns beside each draft. Issue 32's
one ranking for the library (same source address, or the same organisation within a few
days and similar text, in either language) is to answer here; until then, only the cases
that already cite the item's own address.
"""

from cases.models import Case


def likely_duplicates(item, limit=5):
    """Cases other than the item's own draft that are likely the same incident."""
    if not item.url:
        return []
    return list(Case.objects.citing(item.url).exclude(pk=item.case_id).only("pk")[:limit])
