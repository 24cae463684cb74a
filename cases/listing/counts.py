"""Facet counts: for each filter value, how many cases the reader would get by choosing it.

One SQL query, whatever the size of the library or the number of values. It starts from
the cases matching every parameter but the facet ones (search, years), flags each case
with whether it meets each facet parameter in use, and counts, per value of every facet,
the cases that have it and meet the *other* facet parameters (`with_others`) and, of those,
the ones the value's own facet parameter leaves out (`added`). A case's terms come from its
`term_ids` column (every term of it, kept by the database), so no tag table is joined, and
each case is read once.

Within a facet the chosen values are alternatives (any of them), across facets they all
apply. So choosing value v of facet F gives:

- F not in use: the cases meeting everything else that have v, `with_others`;
- F in use (v not yet chosen): the current results plus the cases v brings in,
  `total + added`;
- `reviewed` (one value at a time): choosing v replaces the current one, `with_others`.

Summing `with_others` over the two `reviewed` rows (every case has exactly one) also gives,
for each facet parameter in use, how many cases its removal would give: what the empty
state suggests.

The counts over the whole public library (home, taxonomy, organisations, the unfiltered
list) are computed once per generation of the library and cached (`library_counts`).
"""

from collections import defaultdict
from dataclasses import dataclass, field
from functools import reduce
from operator import and_, or_

from django.db import connection
from django.db.models import BooleanField, ExpressionWrapper

from cases.caching import cached_value
from cases.listing.selection import FACET_PARAMS, MULTIPLE_PARAMS, TERM_PARAMS
from cases.models import Case, Organisation, Term


@dataclass
class FacetCounts:
    total: int
    chosen: dict  # parameter -> chosen values (a list, or one value for `reviewed`)
    rows: dict = field(default_factory=dict)  # (parameter, value) -> (with_others, added)
    org_names: dict = field(default_factory=dict)  # org slug -> name
    without: dict = field(default_factory=dict)  # parameter in use -> cases once removed

    def count(self, param, value):
        """How many cases choosing this value gives (for a chosen one: how many have it)."""
        with_others, added = self.rows.get((param, value), (0, 0))
        chosen = self.chosen.get(param)
        if param in MULTIPLE_PARAMS and chosen and value not in chosen:
            return self.total + added
        return with_others

    def values(self, param):
        """The values of one parameter that some case of the selection has, most cases first."""
        found = [value for (p, value) in self.rows if p == param]
        return sorted(found, key=lambda value: (-self.count(param, value), value))

    def with_chosen(self, chosen, total):
        """The same counts read for another choice (the library's, for an unfiltered page)."""
        return FacetCounts(total, chosen, self.rows, self.org_names, self.without)


def _quoted(name):
    return connection.ops.quote_name(name)


def _int_array(ids):
    return f"ARRAY[{','.join(str(int(i)) for i in ids)}]::integer[]"


# Each case is counted once for every key it has, in one pass over the cases: its term ids
# (positive), its organisation (the organisation's id, negated) and whether it is reviewed.
DRAFT_KEY, REVIEWED_KEY = 0, -(2**31 - 1)


def count_facets(narrowed, terms, conditions=None, chosen=None, total=0):
    """Facet counts for the cases `narrowed` (all parameters but the facet ones applied).

    `terms` is the TermIndex; `conditions` are the facet parameters in use ({parameter: Q},
    from CaseFilter.facet_conditions), `chosen` their values, `total` how many cases the
    whole selection gives.
    """
    conditions = conditions or {}
    flags = {
        f"meets_{param}": ExpressionWrapper(condition, output_field=BooleanField())
        for param, condition in conditions.items()
    }
    matching = (
        narrowed.order_by()
        .annotate(**flags)
        .values("term_ids", "organisation_id", "reviewed_at", *flags)
    )
    matching_sql, params = matching.query.sql_with_params()

    meets = {
        param: f"cases.{_quoted('meets_' + param)}" if param in conditions else "TRUE"
        for param in FACET_PARAMS
    }

    def meets_others(param):
        return " AND ".join(meets[p] for p in conditions if p != param) or "TRUE"

    def by_facet(condition):
        """The condition for a key, by the facet it is a value of."""
        if not conditions:
            return "TRUE"
        term_whens = " ".join(
            f"WHEN key = ANY({_int_array(t.id for t in terms.of(param))}) THEN {condition(param)}"
            for param in TERM_PARAMS
        )
        return (
            f"CASE WHEN key IN ({DRAFT_KEY}, {REVIEWED_KEY}) THEN {condition('reviewed')} "
            f"WHEN key < 0 THEN {condition('org')} {term_whens} ELSE FALSE END"
        )

    # A case missing two facet parameters or more counts for no value: leave it out early,
    # with a condition the indexes can answer (each parameter but one met, for some one).
    if len(conditions) > 1:
        narrowed = narrowed.filter(
            reduce(
                or_,
                [
                    reduce(and_, [c for p, c in conditions.items() if p != left_out])
                    for left_out in conditions
                ],
            )
        )
        matching = (
            narrowed.order_by()
            .annotate(**flags)
            .values("term_ids", "organisation_id", "reviewed_at", *flags)
        )
        matching_sql, params = matching.query.sql_with_params()
    flag_columns = "".join(f", {meets[param]}" for param in conditions)
    without_columns = "".join(
        f", sum(cases.cases) FILTER (WHERE {meets_others(param)})::bigint" for param in conditions
    )
    organisation = _quoted(Organisation._meta.db_table)
    # First how many cases have each key with each combination of the flags (a few rows per
    # key), then which combinations count for which number: the conditions, which depend on
    # the key's facet, are read once per combination, not once per case.
    sql = f"""
        WITH keyed AS (
            SELECT key{flag_columns}, count(*) AS cases
              FROM ({matching_sql}) AS cases,
                   unnest(
                       cases.term_ids
                       || (-cases.organisation_id)::integer
                       || CASE WHEN cases.reviewed_at IS NULL
                               THEN {DRAFT_KEY} ELSE {REVIEWED_KEY} END
                   ) AS key
             GROUP BY key{flag_columns}
        ),
        counted AS (
            SELECT key,
                   coalesce(sum(cases.cases) FILTER (WHERE {by_facet(meets_others)}), 0)::bigint,
                   coalesce(sum(cases.cases) FILTER (
                       WHERE {by_facet(lambda p: f"{meets_others(p)} AND NOT {meets[p]}")}
                   ), 0)::bigint
                   {without_columns}
              FROM keyed AS cases
             GROUP BY key
        )
        SELECT counted.*, org.slug, org.name
          FROM counted
          LEFT JOIN {organisation} AS org ON counted.key < 0 AND org.id = -counted.key
    """
    counts = FacetCounts(total=total, chosen=chosen or {})
    without = defaultdict(int)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        for key, with_others, added, *rest in cursor.fetchall():
            *removed, slug, name = rest
            if key in (DRAFT_KEY, REVIEWED_KEY):
                row = ("reviewed", "yes" if key == REVIEWED_KEY else "no")
                for param, cases in zip(conditions, removed, strict=True):
                    without[param] += cases or 0
            elif key < 0:
                row = ("org", slug)
                counts.org_names[slug] = name
            elif key in terms.by_id:
                term = terms.by_id[key]
                row = (term.facet, term.slug)
            else:
                continue  # a term made since the terms were read
            counts.rows[row] = (with_others, added)
    counts.without = dict(without)
    return counts


def library_counts(terms=None, request=None):
    """Facet counts over every public case, for the home, taxonomy and organisation pages and
    the unfiltered list: computed once per generation of the library."""

    def compute():
        counts = count_facets(Case.objects.published(), terms or Term.objects.index())
        # Every case is either reviewed or not: the two rows hold them all.
        counts.total = sum(counts.count("reviewed", value) for value in ("yes", "no"))
        return counts

    return cached_value("library-counts", compute, request)
