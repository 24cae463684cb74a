"""Settings for bench/pages.py's web server: the project's, with bench/urls.py's two extra
views (/bench/bare, /bench/one-query) to measure the floor of a request against."""

from incidentlib.settings import *  # noqa: F403

ROOT_URLCONF = "bench.urls"
