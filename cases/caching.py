"""Caching the public pages and the library's counts, so that they can never be stale.

A cached page's key names the versions of what it shows: after a write it is simply never
asked for again, and nothing has to be found and deleted. Which versions is one rule, here
(`page_version`):

- A case's own pages (`@public_page(of_case=True)`: /cases/<id>, its side-by-side view, its
  JSON) are kept under the versions of the rows they show (`CASE_PAGE_SHOWS`): the case,
  the cases of its recurrence chain and those related to it either way (their titles, their
  review state), its terms and organisation, and how many public cases cite each of its
  sources. Each row's version is PostgreSQL's own `xmin`, the transaction that wrote it,
  which every committed change to it replaces, whatever makes the write (the import, the
  admin, a review, SQL); a change to a case's lists touches its row (cases/migrations/).
  A write to one case therefore changes its pages and those that show its title, and leaves
  every other case page cached. Its similar cases depend on the whole library: the worker
  keeps them (cases/discover/kept.py) and the page shows them with the moment they were
  made; the moment the kept list last changed and the rows of the cases it names (their
  titles, their review state) are among the versions, so that a list that changes, or a
  similar case renamed, makes the page again. A case the worker has kept no list for yet
  has its list made by its page, and that page is made again at least every
  `UNKEPT_SIMILAR_MAX_AGE` seconds (each case at its own moment, so that no instant makes
  all pages cold).
- Lists and counts without a search (`@public_page(of_list=True)`: the home page, /cases/,
  a term's or an organisation's page, /taxonomy/, /orgs/; not with `q`, `updated_since` or
  an order other than the date's) are kept under the library's shape (Library.shape), which
  only the writes that change which cases a list holds, their order or the counts raise
  (cases/migrations/0028_library_shape.py), and the versions of the case rows they show,
  as the page read them (`shows_cases`): a read compares those with the rows' versions now,
  in one query, and makes the page again if one has changed.
- Everything else (searches, the feed, the API, the sitemap) is kept under the library's
  generation (cases.models.Library): the database replaces it at the commit of every write
  to a case, its lists, a term or an organisation.

The code's release is in every key too (incidentlib/release.py): a deploy makes every page
anew.

A page is cached (`@public_page`) only for a reader who sends no session cookie: someone
logged in (a reviewer, an editor) is never served a cached page nor leaves one behind. The
key holds what the page depends on besides the library: the address with its query string,
the host and scheme (absolute links), the language the request resolved to (from `?lang`,
the cookie or Accept-Language: LocaleMiddleware has chosen it before the view runs) and
whether drafts are hidden. A request whose own transaction has written (the test client
inside a test's transaction) bypasses the cache: its changes are under no generation yet.

Each cached page answers conditional requests: its ETag names the key (the versions),
so `If-None-Match` gets a 304 without the page being read from the cache. No answer says
`Last-Modified` (the feed's, which Django's view sets, is taken off too): a date is to the
second, two writes within one second would share it, and a client or a proxy in front
(nginx answers `If-Modified-Since` itself from its copies) would then take the first
write's page for the second's. Without it, every client revalidates with the ETag, which
names the generation. `Cache-Control: public` with `CACHE_MAX_AGE` lets a CDN or the proxy
keep them (the default, 0: a client revalidates each time, a 304 after one small query;
nginx keeps nothing at 0 and answers a client's revalidation whole). A page's body is kept
compressed (`pack`: a quarter of its size for a case page). Each process keeps
what it made or read lately in its own memory too, in front of the shared cache
(incidentlib/cache_tiers.py): if the cache server goes away, it answers from there, leaves
the server alone for a few seconds after each failure and logs a warning; readers see no
error.
"""

import hashlib
import logging
import time
import zlib
from functools import wraps

from django.conf import settings
from django.db import InterfaceError, OperationalError, connections, router
from django.http import HttpResponse, HttpResponseNotModified
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.http import parse_etags
from django.utils.translation import get_language

from cases import text_changes
from cases.models import Case, Library
from incidentlib import cache_tiers

logger = logging.getLogger(__name__)

# Response headers kept with a cached page (the others are made anew for each answer).
KEPT_HEADERS = ("Content-Type", "Content-Language", "Content-Disposition", "Allow")
# The mark of a body kept compressed (`pack`).
PACKED = "zlib"
CACHE_HEADER = "X-Cache"


def library_state(request=None):
    """The library's state, read once per request (one small query)."""
    if request is None:
        return _read_state()
    if not hasattr(request, "_library_state"):
        request._library_state = _read_state()
    return request._library_state


def _read_state():
    return first_query(Library.objects.state)


def reading_connection():
    """The connection this request reads the library from: its replica, or the primary
    (incidentlib/routers.py); its state and a case's rows come from the same server."""
    return connections[router.db_for_read(Library)]


def first_query(read):
    """`read()`, the request's first query, which stands in for Django's check of a kept
    connection before it (CONN_HEALTH_CHECKS): on a connection the server has dropped (a
    restart) it fails at once, and is made again on a new connection, so the reader sees no
    error, as with Django's check. That check is a round trip of its own: a cached page (or
    a 304) would make two where one does (in process, about 120 of the 1,000 microseconds of
    a cached case page)."""
    connection = reading_connection()
    check_pending = (
        connection.connection is not None
        and connection.health_check_enabled
        and not connection.health_check_done
        and not connection.in_atomic_block
    )
    if not check_pending:
        return read()
    connection.health_check_done = True
    try:
        return read()
    except (InterfaceError, OperationalError):
        connection.close()
        return read()


def _is_personal(request):
    return settings.SESSION_COOKIE_NAME in request.COOKIES


def _cache_get(key):
    return cache_tiers.read(key)


def _cache_set(key, value):
    cache_tiers.keep(key, value)


def cached_value(name, compute, request=None, *, of_shape=False):
    """`compute()`, cached under the library's generation (and whether drafts are hidden), or
    under its shape (`of_shape`: a value that only the writes raising the shape change, as
    the whole library's facet counts)."""
    state = library_state(request)
    if state.writing:
        return compute()
    version = shape_version(state) if of_shape else cache_version(state)
    key = f"value:{version}:{int(settings.INCIDENTLIB_HIDE_DRAFTS)}:{name}"
    value = _cache_get(key)
    if value is None:
        value = compute()
        _cache_set(key, value)
    return value


def cache_version(state):
    """What every key and ETag is made under: the library's generation and the code's
    release (incidentlib/release.py), so that neither a write nor a deploy leaves a stale
    page or count reachable."""
    return f"{state.version}.{settings.INCIDENTLIB_RELEASE}"


# How a version kept under the shape begins: its pages' rows are checked when read.
BY_SHAPE = "shape-"


def shape_version(state):
    """What a list's key is made under (`public_page(of_list=True)`): the library's shape and
    the code's release."""
    return f"{BY_SHAPE}{state.shape_version}.{settings.INCIDENTLIB_RELEASE}"


# The orders a list's page is kept under the shape in: without a search, the date's; with one
# (cases/text_changes.py), relevance or the date.
SHAPE_ORDERS = ("date",)
SEARCH_SHAPE_ORDERS = ("relevance", "date")


def _list_needs_generation(request):
    """Whether a list's cases depend on more than the library's shape and the texts of the
    cases: the cases changed since a time, or an order by the last change."""
    params = request.GET
    if params.get("updated_since", "").strip():
        return True
    if params.get("q", "").strip():
        return params.get("sort", "relevance") not in SEARCH_SHAPE_ORDERS
    return params.get("sort", "date") not in SHAPE_ORDERS


def shows_cases(request, cases):
    """Note the cases a list page shows, with the versions of their rows as the page read
    them (`row_version`, Case.objects.for_list()), for the list's cache (public_page)."""
    if request is not None:
        request._shown_cases = {case.pk: case.row_version for case in cases}


def _rows_digest(rows):
    """One text for {case id: row version}, whatever their order."""
    return ",".join(f"{pk}:{version}" for pk, version in sorted(rows.items()))


def _shown_now(case_ids, guard=None):
    """(the versions the rows of these cases have now, as `_rows_digest` writes them; whether
    the guard of a search's page fails): one query, on the connection the request reads
    from (and, when vectors were written since, a read of them: cases/text_changes.py).
    `guard`: (snapshot, prunes, SearchedWords) of a search's page
    (cases/text_changes.py)."""
    if not case_ids and guard is None:
        return _rows_digest({}), False
    stale_sql, vectors_sql, params = "false", "NULL", {"ids": list(case_ids)}
    searched = None
    if guard is not None:
        snapshot, prunes, searched = guard
        stale_sql = text_changes.stale_sql(searched)
        if searched.meaning is not None:
            vectors_sql = text_changes.VECTORS_SQL
        params.update(snapshot=snapshot, epoch=prunes)
    with reading_connection().cursor() as cursor:
        cursor.execute(
            f"SELECT (SELECT array_agg(ARRAY[id, xmin::text]) FROM {Case._meta.db_table}"
            f" WHERE id = ANY(%(ids)s)), {stale_sql}, {vectors_sql}",
            params,
        )
        rows, stale, vectors = cursor.fetchone()
    if not stale and searched is not None:
        stale = text_changes.vectors_moved(searched, vectors)
    return _rows_digest(dict(rows or ())), stale


# How long a case page whose similar cases the worker has not kept yet (and that its page
# made) may be served, in seconds.
UNKEPT_SIMILAR_MAX_AGE = 600

# The versions of what a case's own pages show besides the library's code: one query, run
# before the page is made (a write committed in between makes the key older than the page,
# never newer: the next request makes it again). For each source, which cases cite it: the
# number of citations and a sum of the citing cases' ids' hashes (no sort), or, when drafts
# are hidden, the number of public cases citing it, as the page counts them (slower for a
# source that thousands of cases cite). `writing`: whether this request's own
# transaction has written (nothing it reads is anybody else's yet). The server's start
# time guards against transaction ids given again after a restored backup.
CASE_PAGE_SHOWS = """
WITH RECURSIVE earlier(id, recurrence_of_id) AS (
    SELECT id, recurrence_of_id FROM cases_case WHERE id = %(case)s
    UNION
    SELECT c.id, c.recurrence_of_id FROM cases_case c JOIN earlier e ON c.id = e.recurrence_of_id
), later(id) AS (
    SELECT id FROM cases_case WHERE id = %(case)s
    UNION
    SELECT c.id FROM cases_case c JOIN later l ON c.recurrence_of_id = l.id
), shown(id) AS (
    SELECT id FROM earlier
    UNION SELECT id FROM later
    UNION SELECT to_case_id FROM cases_relatedcase WHERE from_case_id = %(case)s
    UNION SELECT from_case_id FROM cases_relatedcase WHERE to_case_id = %(case)s
    UNION SELECT unnest(similar_ids) FROM cases_similarcases WHERE case_id = %(case)s
)
SELECT concat_ws(
    ';',
    coalesce((SELECT string_agg(c.id || ':' || c.xmin::text, ',' ORDER BY c.id)
                FROM cases_case c WHERE c.id IN (SELECT id FROM shown)), ''),
    coalesce((SELECT string_agg(t.id || ':' || t.xmin::text, ',' ORDER BY t.id)
                FROM cases_term t
               WHERE t.id = ANY (SELECT unnest(term_ids) FROM cases_case WHERE id = %(case)s)),
             ''),
    coalesce((SELECT o.id || ':' || o.xmin::text
                FROM cases_organisation o
               WHERE o.id = (SELECT organisation_id FROM cases_case WHERE id = %(case)s)), ''),
    coalesce((SELECT string_agg(s.url || ' ' || CASE
                       WHEN %(hide_drafts)s THEN
                           (SELECT count(DISTINCT o.case_id)::text
                              FROM cases_source o JOIN cases_case c ON c.id = o.case_id
                             WHERE o.url = s.url AND c.reviewed_at IS NOT NULL)
                       ELSE (SELECT count(*) || ':' || sum(hashtext(o.case_id))
                               FROM cases_source o WHERE o.url = s.url)
                       END, ',' ORDER BY s.url)
                FROM cases_source s WHERE s.case_id = %(case)s), ''),
    pg_postmaster_start_time()
), pg_current_xact_id_if_assigned() IS NOT NULL,
(SELECT (extract(epoch FROM s.made_at) * 1000000)::bigint::text
   FROM cases_similarcases s WHERE s.case_id = %(case)s)
"""


def _case_version(request, case_id):
    """The version a case's own pages are kept under, or None if this request's own
    transaction has written (see CASE_PAGE_SHOWS); one query."""

    def read():
        with reading_connection().cursor() as cursor:
            hide_drafts = settings.INCIDENTLIB_HIDE_DRAFTS
            cursor.execute(CASE_PAGE_SHOWS, {"case": case_id, "hide_drafts": hide_drafts})
            return cursor.fetchone()

    shown, writing, similar_kept = first_query(read)
    if writing:
        return None
    digest = hashlib.sha256(shown.encode("utf-8", "surrogatepass")).hexdigest()[:24]
    # The kept similar cases' version, or the period of those the page makes itself.
    similar = f"s{similar_kept}" if similar_kept else similar_cases_epoch(case_id)
    return f"case-{digest}.{similar}.{settings.INCIDENTLIB_RELEASE}"


def clock():
    """The time the similar cases' periods are counted in (a test holds it still)."""
    return time.time()


def similar_cases_epoch(case_id, now=None):
    """Which UNKEPT_SIMILAR_MAX_AGE-long period a case's similar cases (made by its page) are
    of: each case's periods start at a moment of their own, so that the pages are made again
    one by one."""
    now = clock() if now is None else now
    period = UNKEPT_SIMILAR_MAX_AGE
    offset = int(hashlib.sha256(case_id.encode()).hexdigest()[:8], 16) % period
    return int((now + offset) // period)


def page_version(request, of_case, kwargs, of_list=False):
    """The one rule of what a page is kept under (see the module's docstring): the version
    of what it shows, or None if it may be neither cached nor shared. A list's (`of_list`)
    is the library's shape, unless it depends on more (_list_needs_generation); the rows it
    shows are checked when it is read (public_page)."""
    if request.method not in ("GET", "HEAD") or _is_personal(request):
        return None
    if of_case:
        return _case_version(request, kwargs["case_id"].upper())
    state = library_state(request)
    if state.writing:
        return None
    if of_list and not _list_needs_generation(request):
        return shape_version(state)
    return cache_version(state)


def page_key(request, version):
    variant = "|".join(
        [
            request.scheme,
            request.get_host(),
            request.get_full_path(),
            get_language() or "",
            str(int(settings.INCIDENTLIB_HIDE_DRAFTS)),
        ]
    )
    digest = hashlib.sha256(variant.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return f"page:{version}:{digest}"


def _mark_public(response, etag):
    response["ETag"] = etag
    del response["Last-Modified"]  # never a date: see the module's docstring
    patch_cache_control(
        response, public=True, max_age=settings.INCIDENTLIB_CACHE_MAX_AGE, must_revalidate=True
    )
    patch_vary_headers(response, ("Cookie", "Accept-Language"))
    return response


def mark_uncached(response):
    """An answer no cache may keep without asking again (a 404, a redirect)."""
    patch_cache_control(response, no_cache=True)
    patch_vary_headers(response, ("Cookie", "Accept-Language"))
    return response


def _mark_private(response):
    del response["Last-Modified"]  # never a date, to anyone: see the module's docstring
    patch_cache_control(response, private=True, no_cache=True)
    patch_vary_headers(response, ("Cookie", "Accept-Language"))
    return response


def _shareable_state(request):
    """The library's state if the answer may be shared and cached: a GET or HEAD by a reader
    without a session whose own transaction has written nothing; else None."""
    if request.method not in ("GET", "HEAD") or _is_personal(request):
        return None
    state = library_state(request)
    return None if state.writing else state


def _not_modified(request, etag):
    """A 304 if the request's If-None-Match names this ETag, else None. Compared weakly, as
    RFC 9110 says for If-None-Match: a proxy that compresses a page marks its tag weak
    (`W/"..."`), and its revalidation must still get the 304. (`*` is not read: it would
    answer 304 before the view could say 404.)"""
    tags = {tag.removeprefix("W/") for tag in parse_etags(request.headers.get("If-None-Match", ""))}
    if etag.removeprefix("W/") in tags:
        return _mark_public(HttpResponseNotModified(), etag)
    return None


def pack(content):
    """A page's body as the cache keeps it: compressed (zlib's fastest level: a case page of
    20 KB keeps in about 5, so that Redis holds four times as many pages in its memory, for
    about 0.1 ms a page made and less a page read). A body that compression would not make
    smaller is kept as it is."""
    packed = zlib.compress(content, 1)
    return (PACKED, packed) if len(packed) < len(content) else content


def unpack(content):
    if isinstance(content, tuple) and content[0] == PACKED:
        return zlib.decompress(content[1])
    return content


def _list_etag(key, rows, made_at=None):
    """A list's ETag: its key and its rows, and for a search's page the generation it was made
    in (the same rows may come with other counts)."""
    text = rows if made_at is None else f"{rows}@{made_at}"
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f'"{key.removeprefix("page:").replace(":", "-")}-{digest}"'


def public_page(view=None, *, of_case=False, of_list=False):
    """Serve the view's GET and HEAD answers from the cache, as the module says; `of_case`
    for a case's own pages (the view takes `case_id`), kept under what they show; `of_list`
    for a list of cases or the counts, kept under the library's shape and the versions of the
    rows it shows (the view tells them: shows_cases), which a read checks in one query."""
    if view is None:
        return lambda view: public_page(view, of_case=of_case, of_list=of_list)

    @wraps(view)
    def answer(request, *args, **kwargs):
        version = page_version(request, of_case, kwargs, of_list)
        if version is None:
            return _mark_private(view(request, *args, **kwargs))
        key = page_key(request, version)
        by_rows = version.startswith(BY_SHAPE)
        etag = None if by_rows else f'"{key.removeprefix("page:").replace(":", "-")}"'
        if etag and (not_modified := _not_modified(request, etag)):
            return not_modified
        stored = _cache_get(key)
        if stored is not None and by_rows:
            _status, _headers, _content, shown_ids, shown_rows, made_at, guard = stored
            generation = library_state(request).generation
            if made_at is not None and guard is None and made_at != generation:
                stored = None  # a search kept under the generation, which has changed
            else:
                rows, stale = _shown_now(shown_ids, guard)
                if rows == shown_rows and not stale:
                    etag = _list_etag(key, rows, made_at)
                    if not_modified := _not_modified(request, etag):
                        return not_modified
                else:
                    stored = None  # a case it shows, or one its search finds, has changed
        if stored is not None:
            status, headers, content = stored[:3]
            response = HttpResponse(unpack(content), status=status)
            for name, value in headers:
                response[name] = value
            response[CACHE_HEADER] = "hit"
            return _mark_public(response, etag)
        response = view(request, *args, **kwargs)
        if hasattr(response, "render") and callable(response.render):
            response = response.render()
        if response.status_code >= 500:
            return _mark_private(response)
        if response.status_code != 200:
            # Not kept here, nor by any shared cache: a CDN keeps a 404 for minutes unless
            # told (a draft hidden as a 404 would stay hidden after its approval).
            return mark_uncached(response)
        if response.streaming:
            return response
        headers = [(name, response[name]) for name in KEPT_HEADERS if response.has_header(name)]
        kept = (response.status_code, headers, pack(response.content))
        if by_rows:
            shown = getattr(request, "_shown_cases", {})
            rows = _rows_digest(shown)
            state = library_state(request)
            made_at = state.generation
            guard = None
            if request.GET.get("q", "").strip():
                searched = getattr(request, "_searched_words", None)
                guard = (state.snapshot, state.text_prunes, searched) if searched else None
            else:
                made_at = None  # a list without a search: the shape and its rows are all
            kept += (tuple(shown), rows, made_at, guard)
            etag = _list_etag(key, rows, made_at)
        _cache_set(key, kept)
        response[CACHE_HEADER] = "miss"
        return _mark_public(response, etag)

    return answer


def conditional(view):
    """For an answer too large to cache (the whole library as JSON Lines): an ETag by the
    library's generation, and a 304 when it has not changed since.

    The state is read before the view's own snapshot, so an ETag never names content older
    than what was sent with it: a write in between changes the generation, and the next
    conditional request gets the whole answer again.
    """

    @wraps(view)
    def answer(request, *args, **kwargs):
        state = _shareable_state(request)
        if state is None:
            return _mark_private(view(request, *args, **kwargs))
        drafts = int(settings.INCIDENTLIB_HIDE_DRAFTS)
        etag = f'"{view.__name__}-{cache_version(state)}-{drafts}"'
        if not_modified := _not_modified(request, etag):
            return not_modified
        response = view(request, *args, **kwargs)
        if response.status_code != 200:  # an error names no version of the library
            return mark_uncached(response)
        return _mark_public(response, etag)

    return answer
