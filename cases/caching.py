"""Caching the public pages and the library's counts, so that they can never be stale.

Everything is cached under the library's generation (cases.models.Library): the database
replaces it at the commit of every write to a case, its lists, a term or an organisation,
whatever makes the write (the import, the admin, a review, SQL). A write therefore makes
every cached page and count unreachable at once; nothing has to be found and deleted. The
code's release is in every key too (incidentlib/release.py): a deploy does the same.

A page is cached (`@public_page`) only for a reader who sends no session cookie: someone
logged in (a reviewer, an editor) is never served a cached page nor leaves one behind. The
key holds what the page depends on besides the library: the address with its query string,
the host and scheme (absolute links), the language the request resolved to (from `?lang`,
the cookie or Accept-Language: LocaleMiddleware has chosen it before the view runs) and
whether drafts are hidden. A request whose own transaction has written (the test client
inside a test's transaction) bypasses the cache: its changes are under no generation yet.

Each cached page answers conditional requests: its ETag names the generation and the key,
so `If-None-Match` gets a 304 without the page being read from the cache. No answer says
`Last-Modified` (the feed's, which Django's view sets, is taken off too): a date is to the
second, two writes within one second would share it, and a client or a proxy in front
(nginx answers `If-Modified-Since` itself from its copies) would then take the first
write's page for the second's. Without it, every client revalidates with the ETag, which
names the generation. `Cache-Control: public` with `CACHE_MAX_AGE` lets a CDN or the proxy
keep them (the default, 0: a client revalidates each time, a 304 after one small query;
nginx keeps nothing at 0 and answers a client's revalidation whole). Each process keeps
what it made or read lately in its own memory too, in front of the shared cache
(incidentlib/cache_tiers.py): if the cache server goes away, it answers from there, leaves
the server alone for a few seconds after each failure and logs a warning; readers see no
error.
"""

import hashlib
import logging
from functools import wraps

from django.conf import settings
from django.db import InterfaceError, OperationalError, connection
from django.http import HttpResponse, HttpResponseNotModified
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.http import parse_etags
from django.utils.translation import get_language

from cases.models import Library
from incidentlib import cache_tiers

logger = logging.getLogger(__name__)

# Response headers kept with a cached page (the others are made anew for each answer).
KEPT_HEADERS = ("Content-Type", "Content-Language", "Content-Disposition", "Allow")
CACHE_HEADER = "X-Cache"


def library_state(request=None):
    """The library's state, read once per request (one small query)."""
    if request is None:
        return _read_state()
    if not hasattr(request, "_library_state"):
        request._library_state = _read_state()
    return request._library_state


def _read_state():
    """Library.objects.state(), which stands in for Django's check of a kept connection
    before a request's first query (CONN_HEALTH_CHECKS): on a connection the server has
    dropped (a restart) it fails at once, and is made again on a new connection, so the
    reader sees no error, as with Django's check. That check is a round trip of its own: a
    cached page (or a 304) would make two where one does (in process, about 120 of the
    1,000 microseconds of a cached case page)."""
    check_pending = (
        connection.connection is not None
        and connection.health_check_enabled
        and not connection.health_check_done
        and not connection.in_atomic_block
    )
    if not check_pending:
        return Library.objects.state()
    connection.health_check_done = True
    try:
        return Library.objects.state()
    except (InterfaceError, OperationalError):
        connection.close()
        return Library.objects.state()


def _is_personal(request):
    return settings.SESSION_COOKIE_NAME in request.COOKIES


def _cache_get(key):
    return cache_tiers.read(key)


def _cache_set(key, value):
    cache_tiers.keep(key, value)


def cached_value(name, compute, request=None):
    """`compute()`, cached under the library's generation (and whether drafts are hidden)."""
    state = library_state(request)
    if state.writing:
        return compute()
    key = f"value:{cache_version(state)}:{int(settings.INCIDENTLIB_HIDE_DRAFTS)}:{name}"
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


def public_page(view):
    """Serve the view's GET and HEAD answers from the cache, as the module says."""

    @wraps(view)
    def answer(request, *args, **kwargs):
        state = _shareable_state(request)
        if state is None:
            return _mark_private(view(request, *args, **kwargs))
        key = page_key(request, cache_version(state))
        etag = f'"{key.removeprefix("page:").replace(":", "-")}"'
        if not_modified := _not_modified(request, etag):
            return not_modified
        stored = _cache_get(key)
        if stored is not None:
            status, headers, content = stored
            response = HttpResponse(content, status=status)
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
        _cache_set(key, (response.status_code, headers, response.content))
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
