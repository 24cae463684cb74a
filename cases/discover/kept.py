"""Similar cases kept by the worker (cases/tasks.py), so that a case page reads five rows
instead of searching the whole library (cases/discover/similar.py) on its first answer.

A case's similar cases depend on the whole library: any write may change them, and making
them all again after each write would cost minutes at 100,000 cases. So the worker keeps one
row a case (SimilarCases) and, at each run (deferred with every write of a case, and every
minute), makes again, within a time budget:

1. the lists of the cases written since their list was made (the case row's `xmin` is no
   longer the one the list was made from), and of the cases that have none yet;
2. the lists that name one of those cases (its terms, or its being public, may have
   changed) or a case deleted since, and those of the cases now in their new lists (the
   likeness goes both ways);
3. the lists checked longest ago, so that every list is made again at least every
   SIMILAR_CASES_MAX_AGE seconds (each run takes its share, oldest first).

A case page (cases/case_page.py) shows the kept list with the moment it last changed (a list
made again with the same cases keeps its date, and its page stays cached); the titles and
review states it shows are read at each request, and are part of the page's cache key
(cases/caching.py): only the choice of cases may lag, never what they say. A case
with no kept list yet (just imported, the worker behind) has its list made by its page, as
before.
"""

import datetime
import json
import math
import time
from collections import defaultdict

from django.db import connection, connections, router
from django.db.models.expressions import RawSQL
from django.utils import timezone

from cases.discover.similar import SimilarCase, similar_cases
from cases.models import Case, Facet, RelatedCase, SimilarCases

# Every kept list is made again at least this often (seconds) while the worker keeps up.
SIMILAR_CASES_MAX_AGE = 24 * 3600
# How often the periodic job runs (cases/tasks.py, cron "* * * * *").
PERIOD = 60
# Seconds of work a run does at most; what is left goes to the next run.
BUDGET = 40


def kept_similar(case, exclude_ids=()):
    """(the kept similar cases of `case` the public may see, when they were made), or None
    when the worker has made none yet. One query; the titles are read now."""
    with connections[router.db_for_read(SimilarCases)].cursor() as cursor:
        cursor.execute(
            """
            SELECT s.made_at, e.item->>0, e.item->1, e.item->2,
                   o.id, o.title_en, o.title_ko, o.reviewed_at
              FROM cases_similarcases s
              LEFT JOIN LATERAL jsonb_array_elements(s.found) WITH ORDINALITY AS e(item, n)
                ON true
              LEFT JOIN cases_case o ON o.id = e.item->>0
             WHERE s.case_id = %s
             ORDER BY e.n
            """,
            [case.id],
        )
        rows = cursor.fetchall()
    if not rows:
        return None
    terms = terms_of(case)
    excluded = {case.id, *exclude_ids}
    found = []
    for _made_at, _id, score, shared_ids, other_id, title_en, title_ko, reviewed_at in rows:
        if other_id is None or other_id in excluded:
            continue  # deleted since, or related now
        other = Case(id=other_id, title_en=title_en, title_ko=title_ko, reviewed_at=reviewed_at)
        if not other.is_published:
            continue
        shared = [terms[term_id] for term_id in shared_ids or () if term_id in terms]
        found.append(
            SimilarCase(
                case=other,
                score=float(score),
                shared_symptoms=[t for t in shared if t.facet == Facet.SYMPTOMS],
                shared_terms=shared,
                shared_fixes=[t for t in shared if t.facet == Facet.FIX],
            )
        )
    return found, rows[0][0]


def terms_of(case):
    """{term id: term} of what similar_cases() weighs (from the prefetched lists)."""
    terms = {link.term.id: link.term for link in case.case_terms.all()}
    terms[case.root_cause.id] = case.root_cause
    terms.update({step.kind.id: step.kind for step in case.remediation_steps.all() if step.kind})
    return terms


def make(case_ids):
    """Make and keep the similar cases of these cases; returns the ids now in their lists."""
    case_ids = list(case_ids)
    cases = (
        Case.objects.for_page()
        .filter(id__in=case_ids)
        .annotate(row_version=RawSQL(f"{Case._meta.db_table}.xmin::text", ()))
    )
    # The cases relating to each, in one query for the batch (similar cases leave them out).
    related_from = defaultdict(set)
    for from_id, to_id in RelatedCase.objects.filter(to_case_id__in=case_ids).values_list(
        "from_case_id", "to_case_id"
    ):
        related_from[to_id].add(from_id)
    named = set()
    now = timezone.now()
    for case in cases:
        related = {link.to_case_id for link in case.related_links.all()} | related_from[case.id]
        found = similar_cases(case, exclude_ids=sorted(related))
        ids = [item.case.id for item in found]
        kept = [[item.case.id, item.score, [t.id for t in item.shared_terms]] for item in found]
        with connection.cursor() as cursor:
            # The list and its date change only when the cases or what they share do (a
            # score is not shown): a check finding the same leaves the page cached.
            cursor.execute(
                """
                INSERT INTO cases_similarcases
                       (case_id, case_version, found, similar_ids, made_at, checked_at)
                VALUES (%s, %s, %s::jsonb, %s, %s, %s)
                ON CONFLICT (case_id) DO UPDATE SET
                    case_version = EXCLUDED.case_version,
                    checked_at = EXCLUDED.checked_at,
                    found = EXCLUDED.found,
                    similar_ids = EXCLUDED.similar_ids,
                    made_at = CASE
                        WHEN jsonb_path_query_array(cases_similarcases.found, '$[*][0,2]')
                             = jsonb_path_query_array(EXCLUDED.found, '$[*][0,2]')
                        THEN cases_similarcases.made_at ELSE EXCLUDED.made_at END
                """,
                [case.id, case.row_version, json.dumps(kept), ids, now, now],
            )
        named.update(ids)
    return named


def changed_ids():
    """The cases written since their list was made, or with none yet."""
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT c.id FROM cases_case c
              LEFT JOIN cases_similarcases s ON s.case_id = c.id
             WHERE s.case_id IS NULL OR s.case_version <> c.xmin::text
             ORDER BY s.case_id IS NULL, c.id
            """
        )
        return [row[0] for row in cursor.fetchall()]


def naming(case_ids):
    """The cases whose kept lists name one of these."""
    if not case_ids:
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT case_id FROM cases_similarcases WHERE similar_ids && %s::varchar[] "
            "ORDER BY case_id",
            [list(case_ids)],
        )
        return [row[0] for row in cursor.fetchall()]


def due_ids(now=None):
    """The oldest lists: this run's share of making every list again within
    SIMILAR_CASES_MAX_AGE, and any older than that."""
    now = now or timezone.now()
    total = SimilarCases.objects.count()
    share = math.ceil(total * PERIOD / SIMILAR_CASES_MAX_AGE)
    late = SimilarCases.objects.filter(
        checked_at__lt=now - datetime.timedelta(seconds=SIMILAR_CASES_MAX_AGE)
    ).count()
    oldest = SimilarCases.objects.order_by("checked_at", "case_id")
    return list(oldest.values_list("case_id", flat=True)[: max(share, late)])


def refresh(budget=BUDGET, batch=20):
    """One run of the worker's keeping (the module's docstring); returns how many lists it
    made. Stops after `budget` seconds, between batches."""
    deadline = time.monotonic() + budget
    # Rows of cases deleted since (by any means): the lists naming them are made again too.
    with connection.cursor() as cursor:
        cursor.execute(
            "DELETE FROM cases_similarcases s WHERE NOT EXISTS "
            "(SELECT 1 FROM cases_case c WHERE c.id = s.case_id) RETURNING s.case_id"
        )
        deleted = [row[0] for row in cursor.fetchall()]
    made = 0
    done = set()

    def run(ids):
        nonlocal made
        todo = [case_id for case_id in dict.fromkeys(ids) if case_id not in done]
        named = set()
        for start in range(0, len(todo), batch):
            if time.monotonic() > deadline:
                return named, False
            chunk = todo[start : start + batch]
            named |= make(chunk)
            done.update(chunk)
            made += len(chunk)
        return named, True

    changed = changed_ids()  # those written since their list first, then those with none
    named, finished = run(changed)
    if finished:
        _, finished = run([*naming([*changed, *deleted]), *sorted(named)])
    if finished:
        run(due_ids())
    return made
