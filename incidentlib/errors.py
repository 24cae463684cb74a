"""The server's own error pages: 500, and 503 while the database is away. Both are in English
and Korean at once (the language may be unknown: choosing it may need the database), read
nothing, and are never cached, so that a cache in front never keeps an error.

Under /api/ they are JSON, as every answer of the API (`{"error": ..., "parameters": {}}`,
in the language the request asked for: choosing it there needs no database)."""

import sys

from django.db import InterfaceError, OperationalError
from django.http import HttpResponse, JsonResponse
from django.template import loader
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext as _

# Seconds a client is asked to wait before trying again while the database is away.
RETRY_AFTER = 30
# Every address of the JSON API is under it (cases/urls.py).
API_PREFIX = "/api/"


def _api_error(message, status):
    return JsonResponse(
        {"error": message, "parameters": {}},
        status=status,
        json_dumps_params={"ensure_ascii": False},
    )


def server_error(request):
    """handler500: a 503 when the failure was the database being unreachable, else a 500."""
    error = sys.exc_info()[1]
    api = request.path_info.startswith(API_PREFIX)
    if isinstance(error, OperationalError | InterfaceError):
        if api:
            message = _("The library cannot reach its database right now. Try again in a minute.")
            response = _api_error(message, 503)
        else:
            response = HttpResponse(loader.render_to_string("503.html"), status=503)
        response["Retry-After"] = str(RETRY_AFTER)
    elif api:
        response = _api_error(_("Something went wrong on our side. Try again later."), 500)
    else:
        response = HttpResponse(loader.render_to_string("500.html"), status=500)
    add_never_cache_headers(response)
    return response
