from django.conf import settings
from django.utils.cache import patch_vary_headers


class LanguageFromQueryMiddleware:
    """`?lang=en|ko` chooses the language and remembers it in the language cookie.

    It runs before LocaleMiddleware, which then reads the cookie, else Accept-Language,
    else falls back to English: the order the README promises.
    """

    def __init__(self, get_response):
        self.get_response = get_response
        self.languages = {code for code, _name in settings.LANGUAGES}

    def __call__(self, request):
        chosen = request.GET.get("lang")
        if chosen not in self.languages:
            chosen = None
        if chosen:
            request.COOKIES[settings.LANGUAGE_COOKIE_NAME] = chosen
        response = self.get_response(request)
        if chosen:
            response.set_cookie(
                settings.LANGUAGE_COOKIE_NAME,
                chosen,
                max_age=settings.LANGUAGE_COOKIE_AGE,
                samesite="Lax",
            )
        patch_vary_headers(response, ("Cookie",))
        return response
