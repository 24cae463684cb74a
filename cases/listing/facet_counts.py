"""Facet counts: for each filter value, how many cases the reader would get by choosing it.

One SQL query, whatever the size of the library or the number of values. It starts from
the cases matching every parameter but the facet ones (search, years), marks each case
with the facet parameters in use it meets (the bits of one number, worked out once per
case), and counts, per value of every facet,
the cases that have it and meet the *other* facet parameters (`with_others`) and, of those,
the ones the value's own facet parameter leaves out (`added`). A case's terms come from its
`term_ids` column (every term of it, kept by the database), so no tag table is joined, and
each case is read once. The cases meeting every parameter are the list's own: their number
is the list's, which then needs no COUNT query.

Within a facet the chosen values are alternatives (any of them), across facets they all
apply. So choosing value v of facet F gives:

- F not in use: the cases meeting everything else that have v, `with_others`;
- F in use (v not yet chosen): the current results plus the cases v brings in,
  `total + added`;
- `reviewed` (one value at a time): choosing v replaces the current one, `with_others`.

Summing `with_others` over the two `reviewed` rows (every case has exactly one) also gives,
for each facet parameter in use, how many cases its removal would give: what the empty
state suggests.

When searching, the same pass also gives the ids of one page of the list, in its order
(`page`): the page's order needs every matching case read (its rank, a phrase checked
against each case's word positions), and one read of them serves both; the page's query
then fetches those cases by id.

The counts over the whole public library (home, taxonomy, organisations, the unfiltered
list, the API) are not counted per request: the database keeps them at every write
(FacetCount, cases/migrations/), and `library_counts` sums them, once per generation. It
keeps them within each term too, and by review state, so that `count_within` counts a
selection of one or two terms, organisations or a review state (a term's page, an
organisation's, a list filtered by one or two of them) from those kept counts or from the
cases of the selection alone, not every case having one of them.
"""

from collections import defaultdict
from dataclasses import dataclass, field
from functools import reduce
from operator import and_, or_
from typing import NamedTuple

from django.db import connection, connections
from django.db.models import BooleanField, ExpressionWrapper, F, OrderBy, Q

from cases.caching import cached_value
from cases.listing.selection import MULTIPLE_PARAMS, TERM_PARAMS
from cases.models import (
    DRAFT_KEY,
    REVIEWED_KEY,
    WHOLE_LIBRARY,
    Case,
    FacetCount,
    Organisation,
    Term,
)

# A case's key (a term id, an organisation's or a review state's) and the facet parameters it
# meets are grouped as one bigint: the key shifted left by this many bits, the parameters' bits
# below it. Keys are PostgreSQL integers (32 bits), so the sum stays within 48 bits.
MASK_BITS = 16


@dataclass
class FacetCounts:
    total: int
    chosen: dict  # parameter -> chosen values (a list, or one value for `reviewed`)
    rows: dict = field(default_factory=dict)  # (parameter, value) -> (with_others, added)
    org_names: dict = field(default_factory=dict)  # org slug -> name
    without: dict = field(default_factory=dict)  # parameter in use -> cases once removed
    page_ids: list | None = None  # the ids of the page asked for (count_facets' `page`)

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

    def record(self, terms, key, slug, name, counted, selected):
        """Record one key's counts, as cases_case_keys (cases/migrations/) gives the keys:
        `counted` is (with_others, added), `selected` how many of its cases meet every
        parameter in use. Returns its (parameter, value); None for a term made since the
        terms were read."""
        if key in (DRAFT_KEY, REVIEWED_KEY):
            row = ("reviewed", "yes" if key == REVIEWED_KEY else "no")
            self.total += selected  # every case has exactly one of the two keys
        elif key < 0:
            row = ("org", slug)
            self.org_names[slug] = name
        elif key in terms.by_id:
            term = terms.by_id[key]
            row = (term.facet, term.slug)
        else:
            return None
        self.rows[row] = counted
        return row


def _quoted(name):
    return connection.ops.quote_name(name)


def _int_array(ids):
    return f"ARRAY[{','.join(str(int(i)) for i in ids)}]::integer[]"


def _order_by(ordering):
    """A queryset's ordering ("-date", F("rank").desc(nulls_last=True), ...) as the names of
    the columns it reads and an ORDER BY over them, for the rows of the selection."""
    names, terms = [], []
    for item in ordering:
        if isinstance(item, str):
            item = OrderBy(F(item.lstrip("-")), descending=item.startswith("-"))
        if not isinstance(item, OrderBy) or not isinstance(item.expression, F):
            raise ValueError(f"cannot order the selection's rows by {item!r}")
        nulls = " NULLS LAST" if item.nulls_last else " NULLS FIRST" if item.nulls_first else ""
        names.append(item.expression.name)
        direction = "DESC" if item.descending else "ASC"
        terms.append(f"cases.{_quoted(item.expression.name)} {direction}{nulls}")
    return names, ", ".join(terms)


def count_facets(narrowed, terms, conditions=None, chosen=None, page=None):
    """Facet counts for the cases `narrowed` (all parameters but the facet ones applied).

    `terms` is the TermIndex; `conditions` are the facet parameters in use ({parameter: Q},
    from CaseFilter.facet_conditions), `chosen` their values. The counts' `total` is how many
    cases meet them all, the whole selection's size: a list needs no COUNT query of its own.
    `page`, (offset, size): the counts' `page_ids` are then the ids of those cases of the list
    that meet them all, in `narrowed`'s order (the list's), from the same pass over the cases.
    """
    conditions = conditions or {}
    if len(conditions) > MASK_BITS:
        raise ValueError(
            f"{len(conditions)} facet parameters: the counts tell at most {MASK_BITS} apart"
        )
    order_names, order_sql = [], ""
    if page:
        order_names, order_sql = _order_by(narrowed.query.order_by)
        order_names = list(dict.fromkeys(["id", *order_names]))
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
    flags = {
        f"meets_{param}": ExpressionWrapper(condition, output_field=BooleanField())
        for param, condition in conditions.items()
    }
    matching = (
        narrowed.order_by()
        .annotate(**flags)
        .values("term_ids", "organisation_id", "reviewed_at", *flags, *order_names)
    )
    matching_sql, params = matching.query.sql_with_params()

    # Which facet parameters a case meets, as the bits of one number, worked out once per case:
    # in the `matching` CTE, or as the one element of an array unnested (as a plain column,
    # PostgreSQL would work it out again for each of the case's keys; OFFSET 0 would stop
    # that, but keep the count from running in parallel workers).
    bits = {param: 1 << number for number, param in enumerate(conditions)}
    mask = (
        " | ".join(
            f"((cases.{_quoted('meets_' + param)})::integer << {number})"
            for number, param in enumerate(conditions)
        )
        or "0"
    )
    if page:
        # The cases read once, kept for the counts and the page alike.
        per_case = f"SELECT cases.*, {mask} AS mask FROM ({matching_sql}) AS cases"
        matching_cte, cases_rows = f"matching AS MATERIALIZED ({per_case}),", "matching"
    else:
        per_case = f"SELECT cases.*, unnest(ARRAY[{mask}]) AS mask FROM ({matching_sql}) AS cases"
        matching_cte, cases_rows = "", f"({per_case})"

    def meets(param):
        return f"(mask & {bits[param]}) <> 0"

    def meets_all(params):
        return " AND ".join(meets(p) for p in params) or "TRUE"

    def meets_others(param):
        return meets_all(p for p in conditions if p != param)

    # First how many cases have each key with each combination of the parameters met (a few
    # rows per key; the two grouped as one number, so that PostgreSQL expects a few hundred
    # groups rather than forty thousand and has each parallel worker count its share of the
    # cases, instead of sending every case's keys to one process to count), then, per key,
    # how many of them meet every parameter in use (`all_met`: the count of a value whose facet
    # is not in use) and, for each parameter in use, how many meet the others (`others_<n>`)
    # and of those how many it leaves out (`added_<n>`).
    aggregates = [f"sum(cases) FILTER (WHERE {meets_all(conditions)}) AS all_met"]
    for number, param in enumerate(conditions):
        aggregates.append(f"sum(cases) FILTER (WHERE {meets_others(param)}) AS others_{number}")
        aggregates.append(
            f"sum(cases) FILTER (WHERE {meets_others(param)} AND NOT {meets(param)})"
            f" AS added_{number}"
        )

    def picked(column, default):
        """The column of the facet parameter whose value the key is, else `default`."""
        whens = []
        for number, param in enumerate(conditions):
            if param in TERM_PARAMS:
                ids = _int_array(t.id for t in terms.of(param))
                whens.append(f"WHEN key = ANY({ids}) THEN {column}_{number}")
            elif param == "org":
                whens.append(f"WHEN key < 0 AND key <> {REVIEWED_KEY} THEN {column}_{number}")
            elif param == "reviewed":
                whens.append(f"WHEN key IN ({DRAFT_KEY}, {REVIEWED_KEY}) THEN {column}_{number}")
        picked = f"CASE {' '.join(whens)} ELSE {default} END" if whens else default
        return f"coalesce({picked}, 0)::bigint"

    others_columns = "".join(
        f", coalesce(others_{number}, 0)::bigint" for number in range(len(conditions))
    )
    organisation = _quoted(Organisation._meta.db_table)
    sql = f"""
        WITH {matching_cte}
        keyed AS (
            SELECT key_mask >> {MASK_BITS} AS key, key_mask & {(1 << MASK_BITS) - 1} AS mask,
                   cases
              FROM (
                  SELECT key_mask, count(*) AS cases
                    FROM (
                        SELECT (unnest(cases_case_keys(
                                   cases.term_ids, cases.organisation_id,
                                   cases.reviewed_at IS NOT NULL
                               ))::bigint << {MASK_BITS}) | cases.mask AS key_mask
                          FROM {cases_rows} AS cases
                    ) AS keys
                   GROUP BY key_mask
              ) AS grouped
        ),
        counted AS (
            SELECT key, {", ".join(aggregates)} FROM keyed GROUP BY key
        )
        SELECT key, {picked("others", "all_met")}, {picked("added", "0")} {others_columns},
               coalesce(all_met, 0)::bigint, org.slug, org.name, NULL AS page
          FROM counted
          LEFT JOIN {organisation} AS org ON counted.key < 0 AND org.id = -counted.key
    """
    if page:
        # One more row, of no key: the page's ids, of the cases meeting every parameter.
        offset, size = page
        sql += f"""
         UNION ALL
        SELECT NULL, NULL, NULL {", NULL" * len(conditions)}, NULL, NULL, NULL,
               ARRAY(SELECT cases.id FROM matching AS cases WHERE {meets_all(conditions)}
                      ORDER BY {order_sql} LIMIT %s OFFSET %s)
        """
        params = (*params, size, offset)
    counts = FacetCounts(total=0, chosen=chosen or {})
    without = defaultdict(int)
    with connections[narrowed.db].cursor() as cursor:
        cursor.execute(sql, params)
        for key, with_others, added, *rest in cursor.fetchall():
            *removed, all_met, slug, name, page_ids = rest
            if key is None:
                counts.page_ids = page_ids
                continue
            row = counts.record(terms, key, slug, name, (with_others, added), all_met)
            if row and row[0] == "reviewed":
                for param, cases in zip(conditions, removed, strict=True):
                    without[param] += cases or 0
    counts.without = dict(without)
    return counts


def kept_counts(terms, within=WHOLE_LIBRARY, reviewed=None):
    """Facet counts over every public case, or over those having the term whose id is
    `within`, of either review state or of one (`reviewed`): the sums of the counts the
    database keeps (FacetCount), one small query."""
    counts = FacetCounts(total=0, chosen={})
    for key, cases, slug, name in FacetCount.objects.library(within, reviewed):
        counts.record(terms, key, slug, name, (cases, 0), cases)
    return counts


def library_counts(terms=None, request=None):
    """Facet counts over every public case, for the home, taxonomy and organisation pages and
    the unfiltered list: kept_counts, cached per shape of the library (only the writes that
    raise it change them)."""
    return cached_value(
        "library-counts",
        lambda: kept_counts(terms or Term.objects.public().index()),
        request,
        of_shape=True,
    )


class Part(NamedTuple):
    """One part of a selection that count_within counts: the condition of a parameter (of the
    page's own filter: None) and, where the database keeps its cases' counts, the term it
    chooses (`term_id`) or the review state (`reviewed`)."""

    param: str | None
    condition: Q
    term_id: int | None = None
    reviewed: bool | None = None


def count_within(terms, within, chosen, request=None):
    """count_facets' counts for a selection of the public cases made of one or two parts, and
    nothing else: the page's own filter (a term's or an organisation's page) and those
    chosen, each one value of a term facet, a review state or organisations. `within`: the
    Parts; `chosen`: {parameter: values} of the chosen ones, as count_facets'.

    The counts of the cases of one term, of one review state, or both, are kept by the
    database (kept_counts); those of any other selection are counted from its own cases
    (count_facets with no facet parameter), those meeting both parts, or the one part. For a
    chosen parameter, the cases meeting the others are those of the other part, or the whole
    library; those the parameter's own part leaves out are them less the selection's. The
    rows are those count_facets gives: the keys of the cases meeting every parameter in use
    but one at most."""

    def counted(parts):
        if not parts:
            return library_counts(terms, request)
        term_ids = [part.term_id for part in parts if part.term_id is not None]
        reviewed = [part.reviewed for part in parts if part.reviewed is not None]
        if len(term_ids) + len(reviewed) == len(parts) and len(term_ids) < 2:
            return kept_counts(terms, *(term_ids or [WHOLE_LIBRARY]), *reviewed)
        return count_facets(
            Case.objects.published().filter(*(part.condition for part in parts)), terms
        )

    selection = counted(within)
    others = {  # chosen parameter -> the counts of the cases meeting the others
        part.param: counted([other for other in within if other.param != part.param])
        for part in within
        if part.param is not None
    }
    counts = FacetCounts(total=selection.total, chosen=chosen)
    counts.org_names = dict(selection.org_names)
    for param, other in others.items():
        counts.org_names.update(other.org_names)
        counts.without[param] = other.total
    for row in {*selection.rows, *(row for other in others.values() for row in other.rows)}:
        selected = selection.rows.get(row, (0, 0))[0]
        if row[0] in others:
            with_others = others[row[0]].rows.get(row, (0, 0))[0]
            counts.rows[row] = (with_others, with_others - selected)
        else:
            counts.rows[row] = (selected, 0)
    return counts
