"""A page of a case list: what the query string selects, its cases, facets, chips and links.

`/cases/`, `/taxonomy/<facet>/<slug>/` and `/orgs/<slug>/` show the same list; the last two
have a filter of their own (the term, the organisation), always applied: the query string
narrows the page's cases (`/orgs/aws/?org=cloudflare` shows none), it never adds others.
Links and forms that change the selection (facet values, chips, search, years) stay on the
page; only the chip of the page's own filter leads to `/cases/`, with the rest of the
selection.

Queries, whatever the size of the library: the taxonomy terms (labels and valid slugs), the
number of matching cases, one page of them, their tags, and the facet counts; the
organisations `org` names, when it is given; for an empty list, how many cases removing each
filter that is not a facet one (the search, the years, the page's own) would give.
"""

from dataclasses import dataclass
from functools import reduce
from operator import and_

from django.conf import settings
from django.core.paginator import Paginator
from django.db.models import Count, Q
from django.http import QueryDict
from django.urls import reverse
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from cases.languages import content_language
from cases.listing.counts import count_facets
from cases.listing.selection import (
    FACET_PARAMS,
    MULTIPLE_PARAMS,
    REVIEW_STATES,
    SORTS,
    TERM_PARAMS,
    CaseFilter,
    facet_condition,
)
from cases.models import Case, Facet, Term

from . import search

# Parameters that are not part of the selection: a link that changes it drops them.
NOT_SELECTION = ("page", "lang")
# Organisations listed in the sidebar (the rest are one click away on /orgs/).
SIDEBAR_ORGANISATIONS = 10

PARAM_LABELS = {
    **{facet.value: facet.label for facet in Facet},
    "q": _("Search"),
    "org": _("Organisation"),
    "reviewed": _("Review"),
    "year_from": _("From year"),
    "year_to": _("To year"),
    "updated_since": _("Updated since"),
}
# The order chips are shown in.
CHIP_PARAMS = ("q", *FACET_PARAMS, "year_from", "year_to", "updated_since")


def url_with(path, params):
    query = params.urlencode()
    return f"{path}?{query}" if query else path


class TermIndex:
    """Every taxonomy term, loaded in one query, by facet and by slug."""

    def __init__(self, terms):
        self.all = list(terms)
        self._by_key = {(term.facet, term.slug): term for term in self.all}

    def of(self, facet):
        return [term for term in self.all if term.facet == facet]

    def get(self, facet, slug):
        return self._by_key.get((facet, slug))


@dataclass
class FacetValue:
    value: str
    label: object  # a LocalizedText for terms, a plain name otherwise
    count: int
    chosen: bool
    url: str


@dataclass
class FacetGroup:
    param: str
    label: str
    values: list
    more_url: str = ""


@dataclass
class Chip:
    param: str
    name: str
    value: object
    url: str
    # Cases the list would show without this parameter (facet parameters only).
    cases_without: int | None = None


class CaseListing:
    def __init__(self, request, *, fixed=None, fixed_label=None):
        """`fixed`: (parameter, value), the page's own filter, met by every case it lists;
        `fixed_label` names the value when it is not a term (an organisation's name)."""
        self.request = request
        self.language = content_language(get_language())
        self.terms = TermIndex(Term.objects.all())
        self.params = request.GET.copy()
        self.fixed = fixed
        self.fixed_label = fixed_label
        cases = Case.objects.published()
        if fixed:
            param, value = fixed
            cases = cases.filter(facet_condition(param, [value]))
        self.filterset = CaseFilter(self.params, cases, terms=self.terms.all)
        self.path = request.path
        self.list_url = reverse("cases:list")
        self.page = None
        self.facets = None
        # Parameter in use -> how many cases its removal gives, where known; the same for
        # the page's own filter.
        self.cases_without = {}
        self.cases_without_fixed = None

    # The selection -------------------------------------------------------------

    def is_valid(self):
        return self.filterset.is_valid()

    @property
    def errors(self):
        return self.filterset.errors

    @property
    def search_text(self):
        return self.filterset.search_text

    @property
    def selection(self):
        return self.filterset.selection()

    @property
    def is_filtered(self):
        return any(param != "sort" for param in self.selection)

    def load(self, page_number):
        """Run the page's queries; raises InvalidPage for a page that does not exist."""
        cases = self.filterset.qs.for_list()
        if self.search_text:
            # Both languages: words of either may be what matched, whatever the page's.
            cases = search.with_snippets(cases, self.search_text, ["en", "ko"])
        paginator = Paginator(cases, settings.INCIDENTLIB_PAGE_SIZE)
        self.page = paginator.page(page_number)
        self.cases = list(self.page.object_list)
        if self.search_text:
            for case in self.cases:
                case.snippet = search.pick_snippet(case, self.language)
        chosen = {p: v for p, v in self.selection.items() if p in FACET_PARAMS}
        self.facets = count_facets(
            self.filterset.narrow(self.filterset.queryset),
            self.filterset.facet_conditions(),
            chosen,
            total=paginator.count,
        )
        self.cases_without = dict(self.facets.without)
        if not paginator.count:
            self._count_without_other_filters()
        return self

    def _count_without_other_filters(self):
        """How many cases removing the search, a year, `updated_since` or the page's own
        filter would give (the facet counts say it for the facet parameters): one query."""
        fixed = object()
        conditions = self.filterset.other_conditions()
        if self.fixed:
            param, value = self.fixed
            conditions[fixed] = facet_condition(param, [value])
        if not conditions:
            return
        cases = Case.objects.published()
        for condition in self.filterset.facet_conditions().values():
            cases = cases.filter(condition)
        names = {name: f"without_{number}" for number, name in enumerate(conditions)}
        counts = cases.aggregate(
            **{
                names[name]: Count(
                    "pk",
                    filter=reduce(and_, [c for n, c in conditions.items() if n != name], Q()),
                )
                for name in conditions
            }
        )
        for name, alias in names.items():
            if name is fixed:
                self.cases_without_fixed = counts[alias]
            else:
                self.cases_without[name] = counts[alias]

    # Links -----------------------------------------------------------------------

    def _selection_params(self):
        params = self.params.copy()
        for param in NOT_SELECTION:
            params.pop(param, None)
        return params

    def toggled_url(self, param, value):
        """This page with one value chosen (or, if it is chosen, left out)."""
        params = self._selection_params()
        values = params.getlist(param)
        if param not in MULTIPLE_PARAMS:
            values = [] if value in values else [value]
        elif value in values:
            values = [v for v in values if v != value]
        else:
            values = [*values, value]
        params.setlist(param, values)
        return url_with(self.path, params)

    def without_url(self, param):
        params = self._selection_params()
        params.pop(param, None)
        return url_with(self.path, params)

    def without_fixed_url(self):
        """/cases/ with the rest of the selection: the page's own filter removed."""
        return url_with(self.list_url, self._selection_params())

    def page_url(self, number):
        params = self.request.GET.copy()
        params["page"] = number
        return url_with(self.request.path, params)

    def sort_links(self):
        links = []
        for value, label in SORTS:
            if value == "relevance" and not self.search_text:
                continue
            params = self.request.GET.copy()
            params.pop("page", None)
            params["sort"] = value
            links.append(
                {
                    "label": label,
                    "url": url_with(self.request.path, params),
                    "current": value == self.filterset.sort_order,
                }
            )
        return links

    def hidden_inputs(self, leave_out=("q",)):
        """The selection as (name, value) pairs, for a form that changes some of it."""
        params = self._selection_params()
        return [
            (name, value)
            for name, values in params.lists()
            if name not in leave_out
            for value in values
        ]

    @property
    def search_hidden_inputs(self):
        return self.hidden_inputs(leave_out=("q",))

    @property
    def year_hidden_inputs(self):
        return self.hidden_inputs(leave_out=("year_from", "year_to"))

    def pagination(self):
        """Links to the neighbouring pages and a few numbered ones (None for a gap)."""
        page = self.page
        paginator = page.paginator
        numbers = paginator.get_elided_page_range(page.number, on_each_side=2, on_ends=1)
        return {
            "previous": self.page_url(page.previous_page_number()) if page.has_previous() else "",
            "next": self.page_url(page.next_page_number()) if page.has_next() else "",
            "pages": [
                {"number": n, "url": self.page_url(n), "current": n == page.number}
                if n != paginator.ELLIPSIS
                else None
                for n in numbers
            ],
        }

    def error_list(self):
        """Each parameter that is not valid, with its problems and the link that drops it."""
        return [
            {
                "name": PARAM_LABELS.get(param, param),
                "param": param,
                "values": self.params.getlist(param),
                "messages": messages,
                "url": self.without_url(param),
            }
            for param, messages in self.errors.items()
        ]

    def _with_fixed(self, params):
        """The selection with the page's own filter written out, for the feed and the API.

        There the values of one parameter are alternatives, so the page's value replaces any
        the query string gives for its parameter: exact when the page's value is among them,
        else a few more cases than the page shows, never another term's or organisation's.
        """
        if self.fixed:
            param, value = self.fixed
            params.setlist(param, [value])
        return params

    def feed_url(self):
        """The feed of the selection, in the page's language (a feed reader sends no cookie)."""
        params = QueryDict(mutable=True)
        params["lang"] = self.language
        for name, values in self._with_fixed(self._selection_params()).lists():
            if name != "sort":
                params.setlist(name, values)
        return url_with(reverse("cases:feed"), params)

    def api_url(self):
        return url_with(reverse("cases:api_cases"), self._with_fixed(self._selection_params()))

    # What the sidebar and the chips show ---------------------------------------------

    def _value_label(self, param, value):
        if self.fixed == (param, value) and self.fixed_label:
            return self.fixed_label
        if param in TERM_PARAMS:
            term = self.terms.get(param, value)
            return term.label(self.language) if term else value
        if param == "org":
            names = {**(self.facets.org_names if self.facets else {})}
            names.update(self.filterset.organisation_names)
            return names.get(value, value)
        if param == "reviewed":
            return dict(REVIEW_STATES)[value]
        if param == "updated_since":
            return value.isoformat()
        return value

    def _is_fixed(self, param, value):
        return self.fixed == (param, value)

    def _facet_value(self, param, value, label, chosen):
        """One value of the sidebar; the page's own one is shown chosen, its link to /cases/."""
        if self._is_fixed(param, value):
            return FacetValue(
                value, label, self.facets.count(param, value), True, self.without_fixed_url()
            )
        return FacetValue(
            value,
            label,
            self.facets.count(param, value),
            value in chosen.get(param, []),
            self.toggled_url(param, value),
        )

    def facet_groups(self):
        groups = []
        chosen = self.selection
        for param in TERM_PARAMS:
            values = [
                self._facet_value(param, term.slug, term.label(self.language), chosen)
                for term in self.terms.of(param)
            ]
            values.sort(key=lambda v: (not v.chosen, v.count == 0, -v.count, str(v.label)))
            groups.append(FacetGroup(param, PARAM_LABELS[param], values))
        chosen_orgs = chosen.get("org", [])
        if self.fixed and self.fixed[0] == "org":
            chosen_orgs = [self.fixed[1], *chosen_orgs]
        org_slugs = self.facets.values("org")[:SIDEBAR_ORGANISATIONS]
        org_slugs += [slug for slug in chosen_orgs if slug not in org_slugs]
        groups.append(
            FacetGroup(
                "org",
                PARAM_LABELS["org"],
                [
                    self._facet_value("org", slug, self._value_label("org", slug), chosen)
                    for slug in org_slugs
                ],
                more_url=reverse("cases:orgs"),
            )
        )
        if not settings.INCIDENTLIB_HIDE_DRAFTS:
            groups.append(
                FacetGroup(
                    "reviewed",
                    PARAM_LABELS["reviewed"],
                    [
                        FacetValue(
                            value,
                            label,
                            self.facets.count("reviewed", value),
                            chosen.get("reviewed") == value,
                            self.toggled_url("reviewed", value),
                        )
                        for value, label in REVIEW_STATES
                    ],
                )
            )
        return groups

    def chips(self):
        """The parameters in use, one chip per value, each with the link that removes it."""
        chips = []
        selection = self.selection
        without = self.cases_without
        if self.fixed:
            param, value = self.fixed
            label = self._value_label(param, value)
            chips.append(
                Chip(
                    param,
                    PARAM_LABELS[param],
                    label,
                    self.without_fixed_url(),
                    self.cases_without_fixed,
                )
            )
        for param in CHIP_PARAMS:
            if param not in selection:
                continue
            value = selection[param]
            values = value if param in MULTIPLE_PARAMS else [value]
            for cleaned in values:
                if self._is_fixed(param, cleaned):
                    continue  # its chip is the page's own, above
                if param in MULTIPLE_PARAMS:
                    url = self.toggled_url(param, cleaned)
                    cases_without = without.get(param) if len(values) == 1 else None
                else:
                    url = self.without_url(param)
                    cases_without = without.get(param)
                chips.append(
                    Chip(
                        param,
                        PARAM_LABELS[param],
                        self._value_label(param, cleaned),
                        url,
                        cases_without,
                    )
                )
        return chips

    def suggestions(self):
        """For an empty list, the chips whose removal would give some cases.

        Removing one of several values of a parameter only narrows the selection, so their
        chips (no count) never would.
        """
        return [chip for chip in self.chips() if chip.cases_without]
