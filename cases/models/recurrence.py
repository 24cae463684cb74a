"""The recurrence chain: the cases linked by `recurrence_of`, walked up (what a case repeats)
and down (what repeated it) in SQL, one query for a whole chain."""

from django.db.models.expressions import RawSQL

_EARLIER = """
    earlier(id, recurrence_of_id) AS (
        SELECT id, recurrence_of_id FROM {table} WHERE id = %s
        UNION
        SELECT c.id, c.recurrence_of_id
        FROM {table} c JOIN earlier e ON c.id = e.recurrence_of_id
    )"""
_LATER = """
    later(id) AS (
        SELECT id FROM {table} WHERE id = %s
        UNION
        SELECT c.id FROM {table} c JOIN later l ON c.recurrence_of_id = l.id
    )"""


def earlier_ids(model, case_id):
    """The ids of the stored case `case_id` and of every case it repeats, up the chain, as
    a subquery (`id__in=`). A loop in the chain ends the walk (UNION keeps each row once)."""
    table = model._meta.db_table
    return RawSQL(
        f"WITH RECURSIVE {_EARLIER.format(table=table)} SELECT id FROM earlier", [case_id]
    )


def chain_ids(model, case_id):
    """The ids of every case linked to `case_id` by recurrence, earlier and later, as a
    subquery (`id__in=`)."""
    table = model._meta.db_table
    return RawSQL(
        f"""WITH RECURSIVE {_EARLIER.format(table=table)}, {_LATER.format(table=table)}
        SELECT id FROM earlier UNION SELECT id FROM later""",
        [case_id, case_id],
    )


def loops_back(model, case_id, recurrence_of):
    """Whether making the stored case `case_id` a recurrence of `recurrence_of` closes a
    loop: whether `case_id` is among the cases that `recurrence_of` repeats (itself
    included), as stored. One query."""
    return model.objects.filter(id=case_id, id__in=earlier_ids(model, recurrence_of)).exists()


def recurrence_loops(case_id, recurrence_of, parent_of):
    """Whether making `case_id` a recurrence of `recurrence_of` closes a loop, for a run of
    cases not yet stored (the import: cases/exchange/checks_across_cases.py), whose links are
    in memory.

    `parent_of(id)` gives the case `id` is a recurrence of, or None. The walk up the chain
    stops at a loop that does not pass through `case_id` (stored data can hold none, but a
    run being imported might).
    """
    seen, current = set(), recurrence_of
    while current and current not in seen:
        if current == case_id:
            return True
        seen.add(current)
        current = parent_of(current)
    return False


def in_link_order(cases):
    """`cases` (oldest first), each followed by the cases repeating it, depth first. A case
    whose original is not among them starts a chain of its own."""
    cases = list(cases)
    ids = {case.id for case in cases}
    repeating = {}
    for case in cases:
        original = case.recurrence_of_id if case.recurrence_of_id in ids else None
        repeating.setdefault(original, []).append(case)
    ordered, seen = [], set()
    to_visit = list(reversed(repeating.get(None, [])))
    while to_visit:  # depth first, without recursion: a chain may be long
        case = to_visit.pop()
        if case.id not in seen:  # stored data holds no loop; a walk never repeats anyway
            seen.add(case.id)
            ordered.append(case)
            to_visit.extend(reversed(repeating.get(case.id, [])))
    return ordered
