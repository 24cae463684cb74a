import os

from django.core.exceptions import ImproperlyConfigured
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "incidentlib.settings")
application = get_wsgi_application()

from django.conf import settings  # noqa: E402  (configured by get_wsgi_application)

if not settings._wrapped.SECRET_KEY:  # reading settings.SECRET_KEY would raise Django's message
    raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off.")

from incidentlib.warm import warm_up  # noqa: E402

warm_up()
