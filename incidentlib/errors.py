"""The server's own error pages: 500, and 503 while the database is away. Both are in English
and Korean at once (the language may be unknown: choosing it may need the database), read
nothing, and are never cached, so that a cache in front never keeps an error."""

import sys

from django.db import InterfaceError, OperationalError
from django.http import HttpResponse
from django.template import loader
from django.utils.cache import add_never_cache_headers

# Seconds a client is asked to wait before trying again while the database is away.
RETRY_AFTER = 30


def server_error(request):
    """handler500: a 503 when the failure was the database being unreachable, else a 500."""
    error = sys.exc_info()[1]
    if isinstance(error, OperationalError | InterfaceError):
        response = HttpResponse(loader.render_to_string("503.html"), status=503)
        response["Retry-After"] = str(RETRY_AFTER)
    else:
        response = HttpResponse(loader.render_to_string("500.html"), status=500)
    add_never_cache_headers(response)
    return response
