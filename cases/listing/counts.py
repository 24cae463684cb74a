"""Facet counts: for each filter value, how many cases the reader would get by choosing it.

One SQL query, whatever the size of the library or the number of values. It starts from
the cases matching every parameter but the facet ones (search, years), flags each case
with whether it meets each facet parameter in use, and counts, per value of every facet,
the cases linked to it that meet the *other* facet parameters (`with_others`) and, of those,
the ones the value's own facet parameter leaves out (`added`).

Within a facet the chosen values are alternatives (any of them), across facets they all
apply. So choosing value v of facet F gives:

- F not in use: the cases meeting everything else that have v, `with_others`;
- F in use (v not yet chosen): the current results plus the cases v brings in,
  `total + added`;
- `reviewed` (one value at a time): choosing v replaces the current one, `with_others`.

Summing `with_others` over the two `reviewed` rows (every case has exactly one) also gives,
for each facet parameter in use, how many cases its removal would give: what the empty
state suggests.
"""

from collections import defaultdict
from dataclasses import dataclass, field

from django.db import connection
from django.db.models import BooleanField, ExpressionWrapper

from cases.listing.selection import FACET_PARAMS, MULTIPLE_PARAMS
from cases.models import Case, CaseTerm, Organisation, Term


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


def _quoted(name):
    return connection.ops.quote_name(name)


def count_facets(narrowed, conditions=None, chosen=None, total=0):
    """Facet counts for the cases `narrowed` (all parameters but the facet ones applied).

    `conditions` are the facet parameters in use ({parameter: Q}, from
    CaseFilter.facet_conditions), `chosen` their values, `total` how many cases the whole
    selection gives.
    """
    conditions = conditions or {}
    flags = {
        f"meets_{param}": ExpressionWrapper(condition, output_field=BooleanField())
        for param, condition in conditions.items()
    }
    matching = (
        narrowed.order_by()
        .annotate(**flags)
        .values("id", "severity_id", "root_cause_id", "organisation_id", "reviewed_at", *flags)
    )
    matching_sql, params = matching.query.sql_with_params()

    meets = {
        param: f"cases.{_quoted('meets_' + param)}" if param in conditions else "TRUE"
        for param in FACET_PARAMS
    }

    def meets_others(param):
        others = [meets[p] for p in conditions if p != param]
        return " AND ".join(others) or "TRUE"

    def by_facet(condition):
        whens = " ".join(f"WHEN '{param}' THEN {condition(param)}" for param in FACET_PARAMS)
        return f"CASE cases.facet {whens} END"

    # A case missing two facet parameters or more counts for no value: leave it out early.
    misses = " + ".join(f"(NOT {meets[p]})::int" for p in conditions) or "0"
    without_columns = "".join(
        f", count(*) FILTER (WHERE {meets_others(param)})" for param in conditions
    )
    term, case_term, organisation = (
        _quoted(model._meta.db_table) for model in (Term, CaseTerm, Organisation)
    )
    sql = f"""
        WITH matching AS ({matching_sql}),
        candidates AS (SELECT * FROM matching AS cases WHERE {misses} <= 1),
        links AS (
            SELECT cases.*, term.facet, term.slug AS value, NULL::text AS name
              FROM candidates AS cases
              JOIN {case_term} AS link ON link.case_id = cases.id
              JOIN {term} AS term ON term.id = link.term_id
            UNION ALL
            SELECT cases.*, 'severity', term.slug, NULL
              FROM candidates AS cases JOIN {term} AS term ON term.id = cases.severity_id
            UNION ALL
            SELECT cases.*, 'root_cause', term.slug, NULL
              FROM candidates AS cases JOIN {term} AS term ON term.id = cases.root_cause_id
            UNION ALL
            SELECT cases.*, 'org', org.slug, org.name
              FROM candidates AS cases
              JOIN {organisation} AS org ON org.id = cases.organisation_id
            UNION ALL
            SELECT cases.*, 'reviewed',
                   CASE WHEN cases.reviewed_at IS NULL THEN 'no' ELSE 'yes' END, NULL
              FROM candidates AS cases
        )
        SELECT cases.facet, cases.value, cases.name,
               count(*) FILTER (WHERE {by_facet(meets_others)}),
               count(*) FILTER (WHERE {by_facet(lambda p: f"{meets_others(p)} AND NOT {meets[p]}")})
               {without_columns}
          FROM links AS cases
         GROUP BY cases.facet, cases.value, cases.name
    """
    counts = FacetCounts(total=total, chosen=chosen or {})
    without = defaultdict(int)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        for facet, value, name, with_others, added, *removed in cursor.fetchall():
            counts.rows[(facet, value)] = (with_others, added)
            if name is not None:
                counts.org_names[value] = name
            if facet == "reviewed":
                for param, cases in zip(conditions, removed, strict=True):
                    without[param] += cases
    counts.without = dict(without)
    return counts


def library_counts():
    """Facet counts over every public case, for the home and taxonomy pages."""
    counts = count_facets(Case.objects.published())
    # Every case is either reviewed or not: the two rows hold them all.
    counts.total = sum(counts.count("reviewed", value) for value in ("yes", "no"))
    return counts
