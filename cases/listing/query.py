"""The queries of a list page: what the query string selects, one page of it, its counts.

Queries, whatever the size of the library: the taxonomy terms (labels and valid slugs), the
facet counts, which also give the number of matching cases (over the whole library: cached
per generation, see cases/listing/facet_counts.py) and, when searching, which cases the page shows;
one page of the cases, their tags, the snippets of that page when searching; the
organisations `org` names, when it is given; for an empty list, how many cases removing each
filter that is not a facet one (the search, the years, the page's own) would give.
"""

from functools import cached_property, reduce
from operator import and_

from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.db import connections, router
from django.db.models import Count, Q

from cases import text_changes
from cases.caching import SEARCH_SHAPE_ORDERS, shows_cases
from cases.listing import search
from cases.listing.facet_counts import Part, count_facets, count_within, library_counts
from cases.listing.selection import FACET_PARAMS, TERM_PARAMS, CaseFilter, facet_condition
from cases.models import Case

PAGE_FIELD = forms.IntegerField(required=False, min_value=1)


class ListingQuery:
    def __init__(self, params, *, terms, fixed=None, organisation=None, request=None):
        """`params`: the query string; `terms`: the TermIndex; `fixed`: (parameter, value),
        the page's own filter, met by every case it lists; `organisation`, the one of an
        organisation's page (fixed ("org", its slug)): its cases are then chosen by its id,
        which lets PostgreSQL read its first page in order (case_organisation_date_idx)."""
        self.terms = terms
        self.fixed = fixed
        self.request = request
        self.fixed_condition = None
        if organisation is not None:
            self.fixed_condition = Q(organisation_id=organisation.id)
        elif fixed:
            self.fixed_condition = facet_condition(fixed[0], [fixed[1]], terms)
        cases = Case.objects.published()
        if self.fixed_condition is not None:
            cases = cases.filter(self.fixed_condition)
        self.filterset = CaseFilter(params, cases, terms=terms)
        self.page = None
        self.cases = []
        self.facets = None
        # Parameter in use -> how many cases its removal gives, where known; the same for
        # the page's own filter.
        self.cases_without = {}
        self.cases_without_fixed = None

    def is_valid(self):
        return self.filterset.is_valid() and not self._page_errors

    @property
    def errors(self):
        return {**self.filterset.errors, **self._page_errors}

    @property
    def _page_errors(self):
        return self._page[1]

    @property
    def page_number(self):
        """The page asked for (`page`), 1 without one."""
        return self._page[0] or 1

    @cached_property
    def _page(self):
        """(`page` read, its problems): a whole number from 1, or absent; anything else is
        malformed (a 400, as any malformed value). A page past the last is not found (a 404,
        from load)."""
        try:
            return PAGE_FIELD.clean(self.filterset.data.get("page")), {}
        except ValidationError as error:
            return None, {"page": error.messages}

    @property
    def search_text(self):
        return self.filterset.search_text

    @property
    def selection(self):
        return self.filterset.selection()

    @property
    def is_filtered(self):
        return any(param != "sort" for param in self.selection)

    @property
    def sort_order(self):
        return self.filterset.sort_order

    def load(self, language):
        """Run the page's queries; raises InvalidPage for a page past the last."""
        page_number = self.page_number
        size = settings.INCIDENTLIB_PAGE_SIZE
        within = self._parts()
        if within:
            self.facets = count_within(
                self.terms,
                within,
                {p: v for p, v in self.selection.items() if p in FACET_PARAMS},
                self.request,
            )
        elif self.is_filtered or self.fixed:
            self.facets = count_facets(
                self.filterset.ordered(self.filterset.narrow(self.filterset.queryset)),
                self.terms,
                self.filterset.facet_conditions(),
                {p: v for p, v in self.selection.items() if p in FACET_PARAMS},
                # A search's order needs every match read (its rank; a phrase checked against
                # each case's words): the counts' pass, which reads them, picks the page too.
                # Other lists walk an index in their order and stop after a page.
                page=_window(page_number, size) if self.search_text else None,
            )
        else:  # nothing chosen: the whole library's counts
            self.facets = library_counts(self.terms, self.request)
        paginator = Paginator(self.filterset.qs.for_list(), size)
        # The facet counts have counted the selection: no COUNT query of its own.
        paginator.count = self.facets.total
        self.page = paginator.page(page_number)
        if self.facets.page_ids is not None:
            self.page.object_list = _in_order(
                Case.objects.published().for_list(), self.facets.page_ids
            )
        self.cases = list(self.page.object_list)
        shows_cases(self.request, self.cases)
        if self.filterset.search is not None:
            self._note_searched_words()
        if self.search_text and self.cases:
            search.add_snippets(self.cases, self.filterset.search, language)
        self.cases_without = dict(self.facets.without)
        if not paginator.count:
            self._count_without_other_filters()
        return self

    def _note_searched_words(self):
        """Tell the cache what this search's page depends on, so that it can be checked
        against the texts changed since (cases/text_changes.py): its words; when its order is
        a score (its cases few: not more than RANK_ALL, or not known to be more), the query of
        the cases it finds; and the sentence vectors' generation where they choose its cases
        (a Korean search) or weigh in its score. A search in another order than relevance or
        the date is kept under the generation."""
        found = self.filterset.search
        if self.filterset.sort_order not in SEARCH_SHAPE_ORDERS:
            return
        few = found.few()
        if few is None and self.facets.total > search.RANK_ALL:
            few = False  # the list's selection alone holds more
        scored = few is not False
        by_meaning = scored or found.meaning.korean
        connection = connections[router.db_for_read(Case)]

        def literal(query):
            return connection.ops.compose_sql(*query.as_sql(None, connection))

        # Each unit weighed or left out, and the whole text's: a search of one weighed unit
        # finds its cases by the whole text (`다시` in `스토리지 다시` says little, and is no unit
        # of its own, yet the cases found must have it).
        units = [search.LibraryQuery(unit) for unit in (*found.wanted, *found.excluded)]
        words = [literal(query) for query in (*units, found.every_unit)]
        title = literal(found.every_unit if not found.several else found.highlighted())
        text_changes.searched(
            self.request,
            words,
            title,
            found=literal(found.query()) if scored else None,
            meaning=found.meaning.guard() if by_meaning else None,
        )

    def _parts(self):
        """The Parts of the selection, when it is one or two of them and nothing else: one
        value of a term facet, a review state, or organisations (`org`, any number); the
        page's own filter (a term's or an organisation's page) is a part of parameter None.
        count_within then counts them from the counts the database keeps, or from the cases
        of the selection alone, not every case meeting one part. None for any other
        selection, which count_facets counts."""
        chosen = [(p, p, v) for p, v in self.selection.items() if p in FACET_PARAMS]
        if self.fixed:
            chosen.insert(0, (None, self.fixed[0], [self.fixed[1]]))
        if self.filterset.other_conditions() or not 0 < len(chosen) <= 2:
            return None
        parts = []
        for param, facet, values in chosen:
            if param is None and self.fixed_condition is not None:
                condition = self.fixed_condition
            else:
                condition = facet_condition(facet, values, self.terms)
            if facet == "org":
                parts.append(Part(param, condition))
            elif facet == "reviewed":
                parts.append(Part(param, condition, reviewed=values == "yes"))
            elif facet in TERM_PARAMS and len(values) == 1:
                parts.append(Part(param, condition, term_id=self.terms.ids(facet, values)[0]))
            else:
                return None
        term_ids = [part.term_id for part in parts if part.term_id is not None]
        return parts if len(set(term_ids)) == len(term_ids) else None

    def _count_without_other_filters(self):
        """How many cases removing the search, a year, `updated_since` or the page's own
        filter would give (the facet counts say it for the facet parameters): one query."""
        fixed = object()
        conditions = self.filterset.other_conditions()
        if self.fixed_condition is not None:
            conditions[fixed] = self.fixed_condition
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


def _window(page_number, size):
    """(offset, size) of a page number as the paginator reads it; None for one it refuses."""
    try:
        number = int(page_number)
    except (TypeError, ValueError):
        return None
    if number < 1 or number * size > 2**63 - 1:  # beyond any page: the paginator says so
        return None
    return (number - 1) * size, size


def _in_order(cases, ids):
    """The cases of these ids, in their order (one query)."""
    found = {case.id: case for case in cases.filter(id__in=ids)}
    return [found[case_id] for case_id in ids if case_id in found]
