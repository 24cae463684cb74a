import os

from django.core.exceptions import ImproperlyConfigured
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "incidentlib.settings")


class NotConfigured(RuntimeError):
    """A setting missing or wrong. gunicorn prints a RuntimeError raised while it loads the
    application as one line (`Error: ...`) and exits with 1, where any other exception is a
    traceback in which the operator looks for the setting to mend."""


try:
    application = get_wsgi_application()

    from django.conf import settings

    if not settings._wrapped.SECRET_KEY:  # settings.SECRET_KEY would raise Django's message
        raise ImproperlyConfigured(
            "SECRET_KEY must be set when DEBUG is off, e.g. to the output of "
            "python -c 'import secrets; print(secrets.token_urlsafe(50))'"
        )
    if not settings.DATABASE_URL:  # Django's dummy database: every page would be a 500
        raise ImproperlyConfigured(
            "DATABASE_URL must be set for the web server, to postgres://USER:PASSWORD@HOST:PORT/NAME"
        )
except ImproperlyConfigured as error:
    raise NotConfigured(f"incidentlib is not configured: {error}") from None

from incidentlib.warm import warm_up  # noqa: E402

warm_up()
