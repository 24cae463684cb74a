"""What a page answers besides itself: a 404 that tells the reader why, and the redirect
of a case's address to its id in capitals. The case pages (cases/views.py) and the pages
that discover cases (cases/discover/views.py) both use them."""

from functools import wraps

from django.http import Http404, HttpResponsePermanentRedirect
from django.urls import reverse


class NoSuchPage(Http404):
    """A 404 that tells the reader why, in the page's language (a list's page past its last,
    an unknown facet or term): the 404 page shows its message instead of the general one."""


def upper_case_id(view):
    """A page of one case answers at its id in capitals: `il-0137` redirects (permanently) to
    the same page at `IL-0137`, with the same query (`?lang=ko`)."""

    @wraps(view)
    def view_of_upper_case_id(request, case_id, **kwargs):
        if case_id != case_id.upper():
            match = request.resolver_match
            url = reverse(match.view_name, kwargs=match.kwargs | {"case_id": case_id.upper()})
            query = request.META.get("QUERY_STRING")
            return HttpResponsePermanentRedirect(f"{url}?{query}" if query else url)
        return view(request, case_id, **kwargs)

    return view_of_upper_case_id
