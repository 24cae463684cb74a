"""Query strings refused before any view: a NUL, or bytes that are not UTF-8."""

from urllib.parse import parse_qsl

from django.shortcuts import render
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext as _


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
