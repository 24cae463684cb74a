"""Statistics of a selection of cases (/stats/): the same parameters as /cases/.

Two queries besides the taxonomy terms, whatever the size of the library: the facet counts
of cases/listing/facet_counts.py over the selection (each term's and organisation's number of
cases, in one pass over `term_ids`; for the whole library, the cached library counts), and
one pass grouping the cases by year and by how long they took to detect and to resolve
(the seconds the database keeps of `detected_after` and `resolved_after`, each put in one of
the buckets of cases/durations.py in SQL).

Each bar links to the cases it counts: a year to /cases/ with that year, a duration bucket to
/cases/ with that bucket (`?detected_after=1h-4h`, the same edges), a term to its term page
with the selection (a term page narrows its own cases by the query string, so it shows the
selection's cases having the term), an organisation to its page likewise.
"""

from dataclasses import dataclass, field

from django.db import connections
from django.http import QueryDict
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from cases.csv_files import csv_text
from cases.durations import DURATION_BUCKETS, UNKNOWN_BUCKET, UNKNOWN_LABEL
from cases.listing.facet_counts import count_facets, library_counts
from cases.listing.links import url_with
from cases.listing.page import selection_in_words
from cases.listing.selection import CaseFilter
from cases.models import MOST_SEVERE_FIRST, Case, Facet

# Bars of the charts that would otherwise be long (the rest are in the CSV).
MOST_TERMS = 12
MOST_ORGANISATIONS = 10
# Parameters that are not part of the selection.
NOT_SELECTION = ("page", "lang", "sort")


@dataclass
class Bar:
    key: str  # the value counted: a year, a slug, a bucket
    label: object  # a LocalizedText for terms, else a string
    count: int
    url: str = ""
    # The bar's length, in percent of the chart's longest (stats.bar_widths fills it in).
    width: float = 0.0


@dataclass
class Chart:
    slug: str
    title: object
    description: object
    bars: list = field(default_factory=list)
    # Every value when the chart shows only the first ones (for the CSV and the table).
    all_bars: list | None = None
    key_name: str = "value"
    key_label: object = ""  # the heading of the values' column in the table

    @property
    def rows(self):
        return self.all_bars if self.all_bars is not None else self.bars

    @property
    def shows_all(self):
        return self.all_bars is None or len(self.all_bars) == len(self.bars)


def bar_widths(chart):
    """Each bar's length in percent of the longest: the template draws it as the width of an
    SVG rectangle (an attribute, since the Content Security Policy refuses inline styles),
    beside the label and the count written as HTML text."""
    highest = max((bar.count for bar in chart.bars), default=0) or 1
    for bar in chart.bars:
        bar.width = round(100 * bar.count / highest, 1)
    return chart


class Statistics:
    def __init__(self, params, *, terms, language, request=None):
        self.params = params
        self.terms = terms
        self.language = language
        self.request = request
        self.filterset = CaseFilter(params, Case.objects.published(), terms=terms)
        self.total = 0
        self.charts = []

    def is_valid(self):
        return self.filterset.is_valid()

    @property
    def errors(self):
        return self.filterset.errors

    def error_list(self):
        """Each parameter that is not valid, named as the case list names it (in the page's
        language), with its values, its problems and the link that drops it."""
        fields = self.filterset.form.fields
        return [
            {
                "name": fields[param].label if param in fields else param,
                "values": self.params.getlist(param),
                "messages": messages,
                "url": url_with(reverse("cases:stats"), self.selection_params(leave_out=(param,))),
            }
            for param, messages in self.errors.items()
        ]

    @property
    def selection_in_words(self):
        """The filters and search chosen, as the page says them (in its language)."""
        return selection_in_words(self.filterset, language=self.language)

    @property
    def is_filtered(self):
        return any(param not in NOT_SELECTION for param in self.filterset.selection())

    def selection_params(self, leave_out=()):
        params = QueryDict(mutable=True)
        for name, values in self.params.lists():
            if name not in NOT_SELECTION and name not in leave_out:
                params.setlist(name, values)
        return params

    @property
    def list_url(self):
        return url_with(reverse("cases:list"), self.selection_params())

    def csv_url(self, chart):
        params = self.selection_params()
        params["lang"] = self.language
        return url_with(reverse("cases:stats_csv", args=[chart.slug]), params)

    # The queries ---------------------------------------------------------------------------

    def load(self):
        selected = self.filterset.qs.order_by()
        if self.is_filtered:
            counts = count_facets(selected, self.terms)
        else:
            counts = library_counts(self.terms, self.request)
        self.total = counts.total
        years, detect, resolve = self._by_year_and_duration(selected)
        self.charts = [
            self._year_chart(years),
            self._term_chart(
                counts, Facet.SEVERITY, _("Cases by severity"), ordered=MOST_SEVERE_FIRST
            ),
            self._term_chart(counts, Facet.ROOT_CAUSE, _("Cases by root cause")),
            self._term_chart(counts, Facet.SYMPTOMS, _("Cases by symptom")),
            self._term_chart(counts, Facet.COMPONENTS, _("Cases by component")),
            self._term_chart(counts, Facet.FIX, _("Cases by kind of fix")),
            self._duration_chart("detect", "detected_after", _("Time to detect"), detect),
            self._duration_chart("resolve", "resolved_after", _("Time to resolve"), resolve),
            self._organisation_chart(counts),
        ]
        for chart in self.charts:
            bar_widths(chart)
        return self

    def _by_year_and_duration(self, selected):
        """{year: cases}, {bucket: cases} to detect and to resolve, in one pass."""
        cases_sql, params = selected.values(
            "date", "detected_seconds", "resolved_seconds"
        ).query.sql_with_params()
        # Each bucket's lower edge: width_bucket gives 0 below the first, i from the i-th on.
        edges = [start for _key, _label, start, _end in DURATION_BUCKETS[1:]]
        edges_sql = f"ARRAY[{','.join(str(edge) for edge in edges)}]::float8[]"
        sql = f"""
            SELECT extract(year FROM cases.date)::integer,
                   width_bucket(cases.detected_seconds, {edges_sql}),
                   width_bucket(cases.resolved_seconds, {edges_sql}), count(*)
              FROM ({cases_sql}) AS cases
             GROUP BY 1, 2, 3
        """
        years, detect, resolve = {}, {}, {}
        with connections[selected.db].cursor() as cursor:
            cursor.execute(sql, params)
            for year, detected, resolved, cases in cursor.fetchall():
                years[year] = years.get(year, 0) + cases
                detect[detected] = detect.get(detected, 0) + cases
                resolve[resolved] = resolve.get(resolved, 0) + cases
        return years, detect, resolve

    # The charts ----------------------------------------------------------------------------

    def _year_chart(self, years):
        chart = Chart("years", _("Cases per year"), _("How many cases each year has."))
        chart.key_name, chart.key_label = "year", _("Year")
        if years:
            # Every year from the first to the last, so that a year without cases shows.
            for year in range(min(years), max(years) + 1):
                params = self.selection_params(leave_out=("year_from", "year_to"))
                params["year_from"] = year
                params["year_to"] = year
                url = url_with(reverse("cases:list"), params) if years.get(year) else ""
                chart.bars.append(Bar(str(year), str(year), years.get(year, 0), url))
        return chart

    def _term_chart(self, counts, facet, title, ordered=None):
        chart = Chart(
            facet.value,
            title,
            _("How many cases of the selection have each term; a case may have several."),
        )
        chart.key_name, chart.key_label = facet.value, facet.label
        if facet in (Facet.SEVERITY, Facet.ROOT_CAUSE):
            chart.description = _("How many cases of the selection have each term.")
        params = self.selection_params()
        bars = []
        for term in self.terms.of(facet):
            cases = counts.count(facet.value, term.slug)
            if not cases:
                continue
            url = url_with(reverse("cases:term", args=[facet.value, term.slug]), params)
            bars.append(Bar(term.slug, term.label(self.language), cases, url))
        if ordered:
            rank = {slug: index for index, slug in enumerate(ordered)}
            bars.sort(key=lambda bar: (rank.get(bar.key, len(rank)), bar.key))
        else:
            bars.sort(key=lambda bar: (-bar.count, str(bar.label).lower()))
        chart.all_bars = bars
        chart.bars = bars[:MOST_TERMS]
        return chart

    def _duration_chart(self, slug, param, title, buckets):
        chart = Chart(
            slug,
            title,
            _("How long the cases of the selection took, from the durations they give."),
        )
        chart.key_name, chart.key_label = "duration", _("Duration")

        def bar(key, label, cases):
            params = self.selection_params(leave_out=(param,))
            params[param] = key
            return Bar(key, label, cases, url_with(reverse("cases:list"), params) if cases else "")

        for index, (key, label, _start, _end) in enumerate(DURATION_BUCKETS):
            chart.bars.append(bar(key, label, buckets.get(index, 0)))
        if buckets.get(None):
            chart.bars.append(bar(UNKNOWN_BUCKET, UNKNOWN_LABEL, buckets[None]))
        return chart

    def _organisation_chart(self, counts):
        chart = Chart(
            "organisations",
            _("Organisations with the most cases"),
            _("How many cases of the selection each organisation has."),
        )
        chart.key_name, chart.key_label = "org", _("Organisation")
        params = self.selection_params()
        bars = [
            Bar(
                slug,
                counts.org_names.get(slug, slug),
                counts.count("org", slug),
                url_with(reverse("cases:org", args=[slug]), params),
            )
            for slug in counts.values("org")
        ]
        bars = [bar for bar in bars if bar.count]
        bars.sort(key=lambda bar: (-bar.count, str(bar.label).lower(), bar.key))
        chart.all_bars = bars
        chart.bars = bars[:MOST_ORGANISATIONS]
        return chart

    def chart(self, slug):
        return next((chart for chart in self.charts if chart.slug == slug), None)


CHART_SLUGS = (
    "years",
    "severity",
    "root_cause",
    "symptoms",
    "components",
    "fix",
    "detect",
    "resolve",
    "organisations",
)


def chart_csv(chart):
    """The numbers of one chart as CSV: the value, its label in the page's language, cases."""
    return csv_text(
        [
            [chart.key_name, "label", "cases"],
            *([bar.key, str(bar.label), bar.count] for bar in chart.rows),
        ]
    )
