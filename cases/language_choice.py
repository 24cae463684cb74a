"""How the language of a page is chosen: `?lang=en|ko`, remembered in the language cookie,
else the cookie, else the browser's Accept-Language, else English (Django's LocaleMiddleware
after this one). The content language of the chosen one: cases/languages.py."""

from django.conf import settings
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.utils.translation import get_language_from_request, get_supported_language_variant


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
