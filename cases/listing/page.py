"""A list page as the reader sees it: the sidebar's facet values, the chips, the pagination.

`/cases/`, `/taxonomy/<facet>/<slug>/` and `/orgs/<slug>/` show the same list; the last two
have a filter of their own (the term, the organisation), always applied: the query string
narrows the page's cases (`/orgs/aws/?org=cloudflare` shows none), it never adds others.
`CaseListing` is the page's queries (a ListingQuery, cases/listing/query.py) with what the
page shows of them, and its links (`listing.links`, cases/listing/links.py): a list request
goes from the view to it, and from it to the filter of its query string (CaseFilter).
"""

from dataclasses import dataclass, field
from functools import cached_property

from django.conf import settings
from django.urls import reverse
from django.utils.formats import date_format
from django.utils.timezone import localtime
from django.utils.translation import gettext, pgettext
from django.utils.translation import gettext_lazy as _

from cases.durations import BUCKET_CHOICES
from cases.languages import reader_language
from cases.listing import search
from cases.listing.links import ListingLinks
from cases.listing.query import ListingQuery
from cases.listing.selection import (
    DURATION_PARAMS,
    FACET_PARAMS,
    MULTIPLE_PARAMS,
    REVIEW_STATES,
    TERM_PARAMS,
    CaseFilter,
    has_feed,
)
from cases.models import Term

# Organisations listed in the sidebar (the rest are one click away on /orgs/).
SIDEBAR_ORGANISATIONS = 10
# Values of a facet the sidebar shows at first: those with cases, most cases first; the
# others (with fewer cases, then with none) are behind the facet's "more" control.
FIRST_VALUES = 5

# Each parameter's name as a reader reads it: its filter's label, and the page's.
PARAM_LABELS = {name: spec.label for name, spec in CaseFilter.base_filters.items()} | {
    "page": _("Page")
}
# The order chips are shown in.
CHIP_PARAMS = ("q", *FACET_PARAMS, "year_from", "year_to", "updated_since", *DURATION_PARAMS)


def _moment(value):
    """A time as a reader reads it, in the page's language: the day alone at midnight, else
    the day and time with its zone (`Jan. 1, 2026`, `2026년 1월 1일 오후 3:30 UTC`)."""
    value = localtime(value)
    if (value.hour, value.minute, value.second) == (0, 0, 0):
        return date_format(value, "DATE_FORMAT")
    return f"{date_format(value, 'DATETIME_FORMAT')} {value.tzname()}"


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
    # The values behind "more" (split_values() fills it).
    more: list = field(default_factory=list)

    def split_values(self, first=FIRST_VALUES):
        """Keep at first the chosen values and the first `first` with cases; the rest, with
        cases and then without, go behind "more"."""
        shown, more = [], []
        for value in self.values:
            if value.chosen or (value.count and len(shown) < first):
                shown.append(value)
            else:
                more.append(value)
        more.sort(key=lambda v: v.count == 0)  # stable: the order within each part is kept
        self.values, self.more = shown, more
        return self


@dataclass
class Chip:
    param: str
    name: str
    value: object
    url: str
    # Cases the list would show without this parameter (facet parameters only).
    cases_without: int | None = None


@dataclass
class SelectionGroup:
    """The chosen values of one parameter, as a printed list names them."""

    name: str
    values: list


def value_label(param, value, *, terms, language, org_names):
    """A chosen value as a reader reads it: a term's label in the page's language, an
    organisation's name ({slug: name} given), a review state, a moment, a duration's range."""
    if param in TERM_PARAMS:
        term = terms.get(param, value)
        return term.label(language) if term else value
    if param == "org":
        return org_names.get(value, value)
    if param == "reviewed":
        return dict(REVIEW_STATES)[value]
    if param == "updated_since":
        return _moment(value)
    if param in DURATION_PARAMS:
        return dict(BUCKET_CHOICES)[value]
    return value


def selection_in_words(filterset, *, language):
    """What a selection of CaseFilter is, as a page says it in words: {"filters":
    [SelectionGroup] in the chips' order, "search": the search text}; None when nothing is
    chosen."""
    selection = filterset.selection()
    filters = []
    for param in CHIP_PARAMS:
        if param == "q" or param not in selection:
            continue
        value = selection[param]
        values = value if param in MULTIPLE_PARAMS else [value]
        labels = [
            value_label(
                param,
                cleaned,
                terms=filterset.terms,
                language=language,
                org_names=filterset.organisation_names,
            )
            for cleaned in values
        ]
        filters.append(SelectionGroup(PARAM_LABELS[param], labels))
    if not (filters or filterset.search_text):
        return None
    return {"filters": filters, "search": filterset.search_text}


def selection_as_text(selection):
    """A selection in words (selection_in_words, CaseListing.printed_selection) as one line
    of plain text, for a feed's title: `Filtered by: Domain: Ml or Web. Search: “disk”.`"""
    parts = []
    if selection and selection["filters"]:
        alternatives = " " + pgettext("between alternative values of one filter", "or") + " "
        groups = "; ".join(
            f"{group.name}: {alternatives.join(map(str, group.values))}"
            for group in selection["filters"]
        )
        parts.append(f"{gettext('Filtered by:')} {groups}.")
    if selection and selection["search"]:
        parts.append(gettext("Search: “%(words)s”.") % {"words": selection["search"]})
    return " ".join(parts)


def feed_title(selection):
    """The title of the feed of a selection (in words), naming it."""
    text = selection_as_text(selection)
    if not text:
        return gettext("incidentlib: newest reviewed cases")
    return gettext("incidentlib: reviewed cases. %(selection)s") % {"selection": text}


class CaseListing(ListingQuery):
    """A list page: its queries (ListingQuery, whose validity, errors, search and selection
    it has as its own), and what the page shows of them."""

    def __init__(self, request, *, fixed=None, organisation=None):
        """`fixed`: (term facet, slug), the page's own filter, met by every case it lists;
        or `organisation`, the one whose page it is (the filter ("org", its slug))."""
        self.language = reader_language()
        self.params = request.GET.copy()
        self.path = request.path
        if organisation is not None:
            fixed = ("org", organisation.slug)
        self.fixed_label = organisation.name if organisation is not None else None
        super().__init__(
            self.params,
            terms=Term.objects.public().index(),
            fixed=fixed,
            organisation=organisation,
            request=request,
        )
        self.links = ListingLinks(self.path, self.params, fixed=fixed, language=self.language)

    # What the page shows of its queries ---------------------------------------------------

    def load(self):
        return super().load(self.language)

    @cached_property
    def search_unsearchable(self):
        """Why an empty page's search matches nothing whatever the library holds, or None
        (search.unsearchable)."""
        if self.search_text and not self.cases:
            return search.unsearchable(self.search_text)
        return None

    @cached_property
    def sort_links(self):
        return self.links.sort_links(self.sort_order, bool(self.search_text))

    def pagination(self):
        """Links to the neighbouring pages and a few numbered ones (None for a gap)."""
        page = self.page
        paginator = page.paginator
        numbers = paginator.get_elided_page_range(page.number, on_each_side=2, on_ends=1)
        page_url = self.links.page_url
        return {
            "previous": page_url(page.previous_page_number()) if page.has_previous() else "",
            "next": page_url(page.next_page_number()) if page.has_next() else "",
            "pages": [
                {"number": n, "url": page_url(n), "current": n == page.number}
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
                "url": self.links.without_url(param),
            }
            for param, messages in self.errors.items()
        ]

    # The sidebar and the chips ----------------------------------------------------------------

    def _value_label(self, param, value):
        if self.fixed == (param, value) and self.fixed_label:
            return self.fixed_label
        names = dict(self.facets.org_names if self.facets else {})
        names.update(self.filterset.organisation_names)
        return value_label(param, value, terms=self.terms, language=self.language, org_names=names)

    def _facet_value(self, param, value, label, chosen):
        """One value of the sidebar; the page's own one is shown chosen, its link to /cases/."""
        count = self.facets.count(param, value)
        if self.fixed == (param, value):
            return FacetValue(value, label, count, True, self.links.without_fixed_url())
        is_chosen = (
            value in chosen.get(param, [])
            if param in MULTIPLE_PARAMS
            else (chosen.get(param) == value)
        )
        return FacetValue(value, label, count, is_chosen, self.links.toggled_url(param, value))

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
                        self._facet_value("reviewed", value, label, chosen)
                        for value, label in REVIEW_STATES
                    ],
                )
            )
        return [group.split_values() for group in groups]

    @cached_property
    def chips(self):
        """The parameters in use, one chip per value, each with the link that removes it."""
        chips = []
        selection = self.selection
        without = self.cases_without
        if self.fixed:
            param, value = self.fixed
            chips.append(
                Chip(
                    param,
                    PARAM_LABELS[param],
                    self._value_label(param, value),
                    self.links.without_fixed_url(),
                    self.cases_without_fixed,
                )
            )
        for param in CHIP_PARAMS:
            if param not in selection:
                continue
            value = selection[param]
            values = value if param in MULTIPLE_PARAMS else [value]
            for cleaned in values:
                if self.fixed == (param, cleaned):
                    continue  # its chip is the page's own, above
                if param in MULTIPLE_PARAMS:
                    url = self.links.toggled_url(param, cleaned)
                    cases_without = without.get(param) if len(values) == 1 else None
                else:
                    url = self.links.without_url(param)
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

    @property
    def search_hidden_inputs(self):
        """The selection the search box keeps, but for a parameter refused (an error page's
        box would give the same error again)."""
        return self.links.hidden_inputs(leave_out=("q", *(self.errors or ())))

    @property
    def filter_count(self):
        """How many values the filters have chosen (the search is not a filter)."""
        return sum(chip.param != "q" for chip in self.chips)

    def suggestions(self):
        """For an empty list, the chips whose removal would give some cases.

        Removing one of several values of a parameter only narrows the selection, so their
        chips (no count) never would.
        """
        return [chip for chip in self.chips if chip.cases_without]

    @property
    def has_feed(self):
        return has_feed(self.selection)

    def feed_title(self):
        """The title of the feed of this page's selection, as the feed names it: the feed of a
        term's or organisation's page is of its own value, not of the others of its
        parameter (links.feed_url)."""
        return feed_title(self.printed_selection(for_feed=True))

    def printed_selection(self, for_feed=False):
        """What a printed list says it shows, since print hides the chips and the sort links:
        the filters (each parameter's values together: alternatives; the page's own value
        apart, since every case has it), the search, and the order and the page (of several)
        when there are cases. Made from the chips, the sort links and the page: no query."""
        filters = {}
        search_text = None
        own = self.chips[0] if self.fixed else None
        # In the order of the parameters, the page's own among them, as the feed of the
        # selection names it (selection_in_words).
        for chip in sorted(self.chips, key=lambda chip: CHIP_PARAMS.index(chip.param)):
            if chip.param == "q":
                search_text = chip.value
            elif for_feed and own is not None and chip.param == own.param and chip is not own:
                continue
            else:
                group = (chip.param, chip is own)
                filters.setdefault(group, SelectionGroup(chip.name, [])).values.append(chip.value)
        sort = page = None
        if self.page is not None and self.page.paginator.count:
            sort = next((link["label"] for link in self.sort_links if link["current"]), None)
            if self.page.paginator.num_pages > 1:
                page = {"number": self.page.number, "of": self.page.paginator.num_pages}
        if not (filters or search_text or sort or page):
            return None
        return {
            "filters": list(filters.values()),
            "search": search_text,
            "sort": sort,
            "page": page,
        }
