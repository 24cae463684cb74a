from urllib.parse import parse_qsl

from django.conf import settings
from django.shortcuts import render
from django.urls import reverse
from django.utils.cache import add_never_cache_headers, patch_vary_headers
from django.utils.translation import get_language_from_request, get_supported_language_variant
from django.utils.translation import gettext as _


def chosen_language(value):
    """`?lang` as one of the site's languages, as a reader or a link may write it (`ko`,
    `KO`, `ko-KR`: ko); None for anything else."""
    if not value:
        return None
    try:
        return get_supported_language_variant(value.strip().lower().replace("_", "-"))
    except LookupError:
        return None


class LanguageFromQueryMiddleware:
    """`?lang=en|ko` chooses the language and remembers it in the language cookie.

    It runs before LocaleMiddleware, which then reads the cookie, else Accept-Language,
    else falls back to English: the order docs/reading.md promises.

    The cookie is set only when it changes what the reader would be given without `?lang`
    (their cookie, else their Accept-Language, else English): a reader who already reads
    Korean gets no Set-Cookie for `?lang=ko`. An answer that sets a cookie is never kept by a
    shared cache (nginx), so every other `?lang=` page stays a public page like the rest.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        chosen = chosen_language(request.GET.get("lang"))
        remember = chosen is not None and chosen != get_language_from_request(request)
        if chosen:
            request.COOKIES[settings.LANGUAGE_COOKIE_NAME] = chosen
        if "lang" in request.GET and request.path.startswith(reverse("admin:index")):
            # The admin's lists read every other parameter as a filter: `lang` would send
            # the reviewer to an unfiltered list (?e=1). It has done its work here.
            request.GET = request.GET.copy()
            del request.GET["lang"]
        response = self.get_response(request)
        if remember:
            response.set_cookie(
                settings.LANGUAGE_COOKIE_NAME,
                chosen,
                max_age=settings.LANGUAGE_COOKIE_AGE,
                samesite="Lax",
            )
        patch_vary_headers(response, ("Cookie",))
        return response


def unreadable_parameters(query_string):
    """{name: problem} for each query parameter, name or value, that is not text we take:
    bytes that are not UTF-8 (an unpaired surrogate written as UTF-8 among them), or a NUL.

    Django would pass the first on as U+FFFD replacement characters, and the second to
    PostgreSQL, which refuses it in a text (a 500 instead of a 400).
    """
    try:
        raw = query_string.encode("iso-8859-1")  # as WSGI gives it: the bytes, one a char
    except UnicodeEncodeError:
        raw = query_string.encode("utf-8", "surrogatepass")
    problems = {}
    pairs = parse_qsl(raw.decode("iso-8859-1"), keep_blank_values=True, encoding="iso-8859-1")
    for name, value in pairs:
        shown_name = name.encode("iso-8859-1").decode("utf-8", "replace")
        for text in (name, value):
            try:
                decoded = text.encode("iso-8859-1").decode("utf-8")
            except UnicodeDecodeError:
                problems[shown_name] = _("This is not UTF-8 text (an unpaired surrogate?).")
                break
            if "\x00" in decoded:
                problems[shown_name] = _("A NUL character is not allowed here.")
                break
    return problems


class RefuseUnreadableQueryMiddleware:
    """A request whose query string holds a NUL or bytes that are not UTF-8 gets a 400 that
    names the parameter, on every page, before any view reads it: JSON under /api/, else a
    page in both languages. Never cached."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        problems = unreadable_parameters(request.META.get("QUERY_STRING", ""))
        if not problems:
            return self.get_response(request)
        if request.path.startswith("/api/"):
            from cases.api import json_error

            response = json_error(
                400, _("Some parameters are not valid."), {k: [v] for k, v in problems.items()}
            )
        else:
            response = render(request, "400.html", {"problems": problems}, status=400)
        add_never_cache_headers(response)
        return response
