"""The JSON API: cases in the exchange format, the taxonomy, and the whole library at once.

- `/api/cases/`: the parameters of /cases/ (cases/listing/selection.py) plus `page` and `per_page`;
  `{"synced_at", "total", "page", "pages", "per_page", "next", "previous", "results"}`
  where each result is a case in the exchange format (cases/schema/case.schema.json).
- `/api/taxonomy/`: every facet and its terms, labels and descriptions in both languages,
  with the number of public cases of each.
- `/api/cases.jsonl`: every public case in the exchange format, one per line, streamed from
  one snapshot; the `Incidentlib-Synced-At` header says when it is complete up to.
- `/api/cases/deleted/`: the cases deleted since `since` (cases_deletedcase, written by the
  database) and, with hidden drafts, the drafts changed since, latest first, paged and timed
  (`synced_at`) as /api/cases/.

`synced_at` (and that header) is the time to give `updated_since` next, for an incremental
copy: it filters on the library's own time of each write (`changed_at`), not on updated_at,
which an import takes from its file.

Every error is a JSON object `{"error": ..., "parameters": {name: [problems]}}` with a 4xx
status: 400 for a parameter that is unknown or malformed or names no term, 404 for a page
past the last or an address under /api/ that does not exist, 405 (with `Allow`) for a
method other than GET and HEAD. The API only reads, so it asks for no CSRF token: a POST
gets the JSON 405, not Django's HTML 403 page.
"""

from functools import wraps

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import JsonResponse, StreamingHttpResponse
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt

from cases.caching import conditional, mark_uncached, public_page
from cases.exchange.export import (
    iter_cases,
    json_lines_pieces,
    read_in_one_snapshot,
    snapshot,
    sync_time,
)
from cases.exchange.format import format_timestamp, public_case_to_exchange
from cases.listing.facet_counts import library_counts
from cases.listing.links import url_with
from cases.listing.selection import CaseFilter
from cases.models import Case, DeletedCase, Facet, Term
from cases.moments import MomentField

MAX_PER_PAGE = 100
BEYOND_EVERY_PAGE = 10**18
# Parameters of a paged answer.
PAGING_PARAMS = ("page", "per_page")
ALLOWED_METHODS = ("GET", "HEAD")
SYNCED_AT_HEADER = "Incidentlib-Synced-At"


def _json(value, status=200):
    return JsonResponse(value, status=status, json_dumps_params={"ensure_ascii": False})


def json_error(status, message, parameters=None):
    return _json({"error": message, "parameters": parameters or {}}, status=status)


def read_only(view):
    """An API view: GET and HEAD, any other method a JSON 405; no CSRF check (nothing changes)."""

    @csrf_exempt
    @wraps(view)
    def answer(request, *args, **kwargs):
        if request.method not in ALLOWED_METHODS:
            response = json_error(405, _("The API only reads: use GET or HEAD."))
            response["Allow"] = ", ".join(ALLOWED_METHODS)
            return response
        return view(request, *args, **kwargs)

    return answer


def _positive_int(request, name, default, maximum=None):
    """A query parameter that must be a whole number from 1 (to `maximum`); None if it is not."""
    raw = request.GET.get(name)
    if raw is None:
        return default
    if not raw.isascii() or not raw.isdigit():
        return None
    # More digits than any page or size has: one number past them all, without int(), which
    # refuses 4,300 digits and more with a ValueError.
    if len(raw.lstrip("0")) > len(str(BEYOND_EVERY_PAGE)):
        raw = str(BEYOND_EVERY_PAGE)
    if int(raw) < 1:
        return None
    if maximum and int(raw) > maximum:
        return None
    return int(raw)


def _both_languages(text):
    values = {}
    for language in ("en", "ko"):
        with translation.override(language):
            values[language] = str(text)
    return values


def with_sync_time(view):
    """Note on the request the time the answer is complete up to (`sync_time`), read before
    the view's snapshot."""

    @wraps(view)
    def answer(request, *args, **kwargs):
        request.synced_at = sync_time()
        return view(request, *args, **kwargs)

    return answer


def _paging_problems(request):
    """(page number, page size, {parameter: [problems]}) of a paged answer."""
    page_number = _positive_int(request, "page", 1)
    per_page = _positive_int(request, "per_page", settings.INCIDENTLIB_PAGE_SIZE, MAX_PER_PAGE)
    bad = {}
    if page_number is None:
        bad["page"] = [_("Give a whole number from 1.")]
    if per_page is None:
        bad["per_page"] = [_("Give a whole number from 1 to %(max)d.") % {"max": MAX_PER_PAGE}]
    return page_number, per_page, bad


def takes(*known):
    """The view answers, before anything else (a cached page, a 304), a JSON 400 naming each
    parameter of the request it does not take. Every address takes `lang`, the language of
    its error messages."""

    def decorate(view):
        @wraps(view)
        def checked(request, *args, **kwargs):
            unknown = sorted(set(request.GET) - {*known, "lang"})
            if unknown:
                return mark_uncached(
                    json_error(
                        400,
                        _("Unknown parameter."),
                        {name: [_("This parameter does not exist.")] for name in unknown},
                    )
                )
            return view(request, *args, **kwargs)

        return checked

    return decorate


def _paged(request, items, page_number, per_page, result):
    """One page of `items` as the API gives it, each item as `result(item)`, with the time
    a copy asks from next; a JSON 404 past the last page."""
    paginator = Paginator(items, per_page)
    if page_number > paginator.num_pages:
        return json_error(
            404,
            _("There is no page %(page)d: the last page is %(last)d.")
            % {"page": page_number, "last": paginator.num_pages},
            {"page": [_("Past the last page.")]},
        )
    page = paginator.page(page_number)

    def page_link(number):
        params = request.GET.copy()
        params["page"] = number
        return request.build_absolute_uri(url_with(request.path, params))

    return _json(
        {
            "synced_at": format_timestamp(request.synced_at),
            "total": paginator.count,
            "page": page.number,
            "pages": paginator.num_pages,
            "per_page": per_page,
            "next": page_link(page.next_page_number()) if page.has_next() else None,
            "previous": page_link(page.previous_page_number()) if page.has_previous() else None,
            "results": [result(item) for item in page.object_list],
        }
    )


@read_only
@takes(*CaseFilter.base_filters, *PAGING_PARAMS)
@public_page
@with_sync_time
@read_in_one_snapshot
def case_list(request):
    page_number, per_page, bad = _paging_problems(request)
    selection = CaseFilter(
        request.GET, Case.objects.published().for_page(), terms=Term.objects.public().index()
    )
    if not selection.is_valid():
        bad.update({name: list(messages) for name, messages in selection.errors.items()})
    if bad:
        return json_error(400, _("Some parameters are not valid."), bad)
    return _paged(request, selection.qs, page_number, per_page, public_case_to_exchange)


@read_only
@takes("since", *PAGING_PARAMS)
@public_page
@with_sync_time
@read_in_one_snapshot
def deleted_cases(request):
    """The cases deleted since `since` (an ISO 8601 time; without it, every deletion kept)
    and, when drafts are hidden, the drafts changed since, latest first, paged as
    /api/cases/: what a copy kept by `updated_since` removes."""
    page_number, per_page, bad = _paging_problems(request)
    since = None
    try:
        since = MomentField(required=False).clean(request.GET.get("since"))
    except ValidationError as error:
        bad["since"] = list(error.messages)
    if bad:
        return json_error(400, _("Some parameters are not valid."), bad)
    return _paged(
        request,
        DeletedCase.objects.since(since),
        page_number,
        per_page,
        lambda gone: {"id": gone[0], "deleted_at": format_timestamp(gone[1])},
    )


@read_only
@takes()
@public_page
def taxonomy(request):
    index = Term.objects.public().index()
    counts = library_counts(index, request)
    terms = index.all
    return _json(
        {
            "facets": [
                {
                    "facet": facet.value,
                    "label": _both_languages(facet.label),
                    "terms": [
                        {
                            "slug": term.slug,
                            "label": {"en": term.label_en, "ko": term.label_ko or None},
                            # Made by an import from its slug: the label is a placeholder.
                            "needs_label": term.needs_label,
                            "description": {
                                "en": term.description_en or None,
                                "ko": term.description_ko or None,
                            },
                            "cases": counts.count(facet, term.slug),
                            "url": request.build_absolute_uri(term.get_absolute_url()),
                            "cases_url": request.build_absolute_uri(
                                f"{reverse('cases:api_cases')}?{facet.value}={term.slug}"
                            ),
                        }
                        for term in terms
                        if term.facet == facet
                    ],
                }
                for facet in Facet
            ]
        }
    )


@read_only
@takes()
@conditional
def bulk_download(request):
    """Every public case as JSON Lines, fetched and written a chunk at a time, all from one
    snapshot of the library (cases/exchange/export.py); `Incidentlib-Synced-At` gives the
    time it is complete up to, for `?updated_since=` next time."""
    synced_at = sync_time()

    def lines():
        # Opened here, not in the view: the view returns before the first line is made.
        with snapshot():
            cases = Case.objects.published().for_page().order_by("id")
            yield from json_lines_pieces(iter_cases(cases, public_case_to_exchange))

    response = StreamingHttpResponse(lines(), content_type="application/jsonl; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="incidentlib-cases.jsonl"'
    response[SYNCED_AT_HEADER] = format_timestamp(synced_at)
    return response


@csrf_exempt
def not_found(request):
    # Kept by no shared cache, as every 404 (cases.views.not_found).
    return mark_uncached(json_error(404, _("There is nothing at this address of the API.")))
