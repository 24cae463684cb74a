"""Similar cases: up to five cases sharing the most informative terms of a case, then words
of its title and summary, for "Similar cases" on the case page. One query, however large the
library.

The terms are its tags, its root cause and the kinds of fix of its remediation steps (all in
`term_ids`). How informative a term is: its inverse document frequency, ln(N / cases having it), as
PostgreSQL's statistics of the `term_ids` column estimate it (one catalog read, however large
the library; without statistics, every term weighs the same), times a weight for its facet
(the library's one ranking, cases/ranking.py; severity is left out). Reading
every case that shares some term would read most of the library (a common symptom is in
half of it), so the candidates are the cases holding the case's three most informative terms
(the GIN index on `term_ids` intersects their lists); when fewer than SHORTLIST do, those
holding its two most informative ones; when fewer than five do, either of those two (two
terms alone left 7,500 candidates to read at 100,000 cases, most of the page's time); and
when still fewer than five do (its rarest terms are its own, or a kind of fix few cases
have), at most WIDER of the cases holding its next three most informative terms together
(its symptom, component and root cause, say; its next two, when it has no more); and when
still fewer than five, at most WIDER of those holding two of those three. Each
candidate's score is the sum of the weights of every term it shares; the best
SHORTLIST are then scored again with the words their titles and summaries share with the
case's (English stemmed, Korean as written), which breaks ties and nudges the order; then by
id, so that the order is stable. The case itself, the cases it lists as related and those
listing it are never among them.
"""

from dataclasses import dataclass

from django.db import connections, router

from cases.models import Case, Facet
from cases.ranking import FACET_WEIGHTS

# What one word shared by the titles and summaries adds to the score.
WORD_WEIGHT = 0.05
SHORTLIST = 40
SIMILAR_CASES = 5
# Cases read at most of those holding the next three terms (which may be common ones).
WIDER = 200


@dataclass
class SimilarCase:
    case: Case
    score: float
    shared_symptoms: list  # the symptom terms both have, most informative first
    shared_terms: list  # every term both have, most informative first
    shared_fixes: list  # the kinds of fix both have, most informative first


def _words_sql(alias):
    """The distinct words of a case's title and summary, in both languages, as an array."""
    return (
        f"tsvector_to_array(to_tsvector('english', concat_ws(' ', {alias}.title_en, "
        f"{alias}.summary_en)) || to_tsvector('simple', concat_ws(' ', {alias}.title_ko, "
        f"{alias}.summary_ko)))"
    )


def similar_cases(case, exclude_ids=(), limit=SIMILAR_CASES):
    """The cases most like `case` (loaded for its page: its tags prefetched), best first."""
    terms = {link.term.id: link.term for link in case.case_terms.all()}
    terms[case.root_cause.id] = case.root_cause
    # The kinds of fix of its remediation steps (prefetched with the case, as its terms are).
    terms.update({step.kind.id: step.kind for step in case.remediation_steps.all() if step.kind})
    weighted = [
        (term.id, FACET_WEIGHTS[term.facet])
        for term in terms.values()
        if term.facet in FACET_WEIGHTS
    ]
    if not weighted:
        return []
    excluded = sorted({case.id, *exclude_ids})
    candidates = (
        Case.objects.published().exclude(id__in=excluded).order_by().values("id", "term_ids")
    )
    candidates_sql, candidates_params = candidates.query.sql_with_params()
    table = Case._meta.db_table
    # A candidate's score: the weights of the terms it shares, added in the order of
    # `weighted` (as sum() over them would, to the last bit), written out term by term: a
    # subquery per candidate cost three times as much, over thousands of candidates.
    score_sql = " + ".join(
        f"CASE WHEN %s = ANY(c.term_ids) THEN w.weights[{position}] ELSE 0 END"
        for position in range(1, len(weighted) + 1)
    )
    sql = f"""
        WITH mine(term_id, factor, position) AS (
            SELECT * FROM unnest(%s::integer[], %s::float8[]) WITH ORDINALITY
        ), stats AS (
            -- How often each term is among the cases' term ids, as ANALYZE last sampled it
            -- (the most common ones; the others are rarer than the least common of those):
            -- free to read, where counting the cases of a common term read 40,000 rows.
            SELECT most_common_elems::text::integer[] AS terms,
                   most_common_elem_freqs AS freqs
              FROM pg_stats
             WHERE schemaname = current_schema() AND tablename = '{table}'
               AND attname = 'term_ids'
        ), weighted AS (
            SELECT mine.term_id, mine.position,
                   mine.factor * ln(1.0 / coalesce(
                       (SELECT stats.freqs[array_position(stats.terms, mine.term_id)]
                          FROM stats),
                       -- not among the most common: half the least common's frequency
                       (SELECT stats.freqs[cardinality(stats.terms) + 1] / 2 FROM stats),
                       0.5
                   )) AS weight
              FROM mine
        ), w AS (
            SELECT array_agg(weight ORDER BY position) AS weights FROM weighted
        ), best AS (  -- the three most informative terms, the two most, the next three
            SELECT top.ids[1:3] AS three, top.ids[1:2] AS two, top.ids[3:5] AS next
              FROM (SELECT array_agg(term_id ORDER BY weight DESC, term_id)::integer[] AS ids
                      FROM (SELECT term_id, weight FROM weighted
                             ORDER BY weight DESC, term_id LIMIT 5) AS five) AS top
        ), holding_three AS (
            SELECT * FROM ({candidates_sql}) AS c WHERE c.term_ids @> (SELECT three FROM best)
        ), holding_two AS (
            SELECT * FROM ({candidates_sql}) AS c
             WHERE c.term_ids @> (SELECT two FROM best)
               AND NOT c.term_ids @> (SELECT three FROM best)
               AND (SELECT count(*) FROM (SELECT 1 FROM holding_three LIMIT %s) AS enough) < %s
        ), candidates AS (
            SELECT * FROM holding_three UNION ALL SELECT * FROM holding_two
        ), more_candidates AS (
            SELECT * FROM ({candidates_sql}) AS c
             WHERE c.term_ids && (SELECT two FROM best)
               AND NOT c.term_ids @> (SELECT two FROM best)
               AND (SELECT count(*) FROM (SELECT 1 FROM candidates LIMIT %s) AS enough) < %s
        ), so_far AS (
            SELECT * FROM candidates UNION ALL SELECT * FROM more_candidates
        ), wider AS (
            SELECT * FROM ({candidates_sql}) AS c
             WHERE cardinality((SELECT next FROM best)) >= 2
               AND c.term_ids @> (SELECT next FROM best)
               AND NOT c.term_ids && (SELECT two FROM best)
               AND (SELECT count(*) FROM (SELECT 1 FROM so_far LIMIT %s) AS enough) < %s
             LIMIT %s
        ), widest AS (  -- two of the next three
            SELECT c.* FROM ({candidates_sql}) AS c, best
             WHERE (c.term_ids @> best.next[1:2] OR c.term_ids @> best.next[2:3]
                    OR c.term_ids @> (best.next[1:1] || best.next[3:3]))
               AND cardinality(best.next) = 3
               AND NOT c.term_ids @> best.next
               AND NOT c.term_ids && best.two
               AND (SELECT count(*) FROM (SELECT 1 FROM so_far UNION ALL SELECT 1 FROM wider
                                          LIMIT %s) AS enough) < %s
             LIMIT %s
        ), shortlist AS (
            SELECT c.id, c.term_ids, {score_sql} AS score
              FROM (SELECT * FROM so_far UNION ALL SELECT * FROM wider
                    UNION ALL SELECT * FROM widest) AS c, w
             ORDER BY score DESC, c.id
             LIMIT %s
        ), own_words AS MATERIALIZED (  -- once, not again for each case of the shortlist
            SELECT {_words_sql("own")} AS words FROM {table} AS own WHERE own.id = %s
        )
        SELECT other.id, other.title_en, other.title_ko, other.reviewed_at,
               shortlist.score + %s * cardinality(ARRAY(
                   SELECT unnest({_words_sql("other")})
                   INTERSECT SELECT unnest(own_words.words) FROM own_words
               )) AS score,
               ARRAY(
                   SELECT weighted.term_id FROM weighted
                    WHERE weighted.term_id = ANY(shortlist.term_ids)
                    ORDER BY weighted.weight DESC, weighted.term_id
               ) AS term_ids
          FROM shortlist JOIN {table} AS other ON other.id = shortlist.id
         ORDER BY score DESC, other.id
         LIMIT %s
    """
    params = [
        [term_id for term_id, _ in weighted],
        [factor for _, factor in weighted],
        *candidates_params,
        *candidates_params,
        SHORTLIST,
        SHORTLIST,
        *candidates_params,
        limit,
        limit,
        *candidates_params,
        limit,
        limit,
        WIDER,
        *candidates_params,
        limit,
        limit,
        WIDER,
        *(term_id for term_id, _ in weighted),
        SHORTLIST,
        case.id,
        WORD_WEIGHT,
        limit,
    ]
    with connections[router.db_for_read(Case)].cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    found = []
    for case_id, title_en, title_ko, reviewed_at, score, shared_ids in rows:
        other = Case(id=case_id, title_en=title_en, title_ko=title_ko, reviewed_at=reviewed_at)
        shared = [terms[term_id] for term_id in shared_ids if term_id in terms]
        found.append(
            SimilarCase(
                case=other,
                score=score,
                shared_symptoms=[t for t in shared if t.facet == Facet.SYMPTOMS],
                shared_terms=shared,
                shared_fixes=[t for t in shared if t.facet == Facet.FIX],
            )
        )
    return found
