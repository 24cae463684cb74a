"""The links and forms of a list page: each a plain URL of the selection with one change.

Links that change the selection (facet values, chips, search, years, sort) stay on the page;
only the chip of the page's own filter (a term page's term, an organisation page's
organisation) leads to `/cases/`, with the rest of the selection. The feed and the API links
write that own filter out as a parameter.
"""

from django.http import QueryDict
from django.urls import reverse

from cases.listing.selection import CHANGED_ORDER_LABEL, MULTIPLE_PARAMS, SORTS

# Parameters that are not part of the selection: a link that changes it drops them.
NOT_SELECTION = ("page", "lang")


def url_with(path, params):
    query = params.urlencode()
    return f"{path}?{query}" if query else path


class ListingLinks:
    def __init__(self, path, params, *, fixed=None, language="en"):
        """`params`: the query string (a QueryDict); `fixed`: (parameter, value), the page's
        own filter; `language`: the page's, which the feed link keeps."""
        self.path = path
        self.params = params
        self.fixed = fixed
        self.language = language
        self.list_url = reverse("cases:list")

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
        params = self.params.copy()
        params["page"] = number
        return url_with(self.path, params)

    def sort_links(self, current, searching):
        links = []
        if current == "changed":  # updated_since's own order, current until a sort is chosen
            links.append({"label": CHANGED_ORDER_LABEL, "url": None, "current": True})
        for value, label in SORTS:
            if value == "relevance" and not searching:
                continue
            params = self.params.copy()
            params.pop("page", None)
            params["sort"] = value
            links.append(
                {"label": label, "url": url_with(self.path, params), "current": value == current}
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
    def year_hidden_inputs(self):
        return self.hidden_inputs(leave_out=("year_from", "year_to"))

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

    @property
    def feed_url(self):
        """The feed of the selection, in the page's language (a feed reader sends no cookie)."""
        params = QueryDict(mutable=True)
        params["lang"] = self.language
        for name, values in self._with_fixed(self._selection_params()).lists():
            if name != "sort":
                params.setlist(name, values)
        return url_with(reverse("cases:feed"), params)

    @property
    def api_url(self):
        return url_with(reverse("cases:api_cases"), self._with_fixed(self._selection_params()))

    @property
    def stats_url(self):
        """/stats/ of the selection (the page's own filter written out as a parameter)."""
        return url_with(reverse("cases:stats"), self._with_fixed(self._selection_params()))
