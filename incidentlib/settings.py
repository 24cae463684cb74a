"""Settings for incidentlib, read from the environment (see .env.example and the README).

Development is asked for with DEBUG=1; without it every default is a production one,
and the settings a production server cannot guess (SECRET_KEY, DATABASE_URL) must be given.
"""

import datetime
import logging
import os
from pathlib import Path

from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

from incidentlib.environment import (
    env_bool,
    env_database,
    env_int,
    env_list,
    env_log_format,
    env_log_level,
    env_networks,
)
from incidentlib.logging_config import app_logging
from incidentlib.release import code_digest

BASE_DIR = Path(__file__).resolve().parent.parent

DEBUG = env_bool("DEBUG", False)

# Without DEBUG there is no default key: the web server (incidentlib/wsgi.py) refuses to start
# without one, and Django refuses to sign anything with an empty one; commands that sign
# nothing (makemigrations, collectstatic) still run.
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY and DEBUG:
    SECRET_KEY = "insecure-development-key-do-not-use-in-production"
elif SECRET_KEY and not DEBUG and (len(SECRET_KEY) < 50 or len(set(SECRET_KEY)) < 5):
    # Django's own deployment check (security.W009) asks for 50 characters, 5 of them distinct.
    raise ImproperlyConfigured(
        "SECRET_KEY is too weak for production: use at least 50 random characters, e.g. "
        "python -c 'import secrets; print(secrets.token_urlsafe(50))'"
    )

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

# Without DATABASE_URL, commands that need no database (compilemessages, collectstatic)
# still work; the others stop with the warning `cases.W001` saying what to do.
DATABASE_URL = os.environ.get("DATABASE_URL", "")
DATABASES = {
    # Each request checks its kept connection before using it (CONN_HEALTH_CHECKS), so that
    # after a PostgreSQL restart the first request of each worker gets no error.
    "default": env_database(
        "DATABASE_URL",
        DATABASE_URL,
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 60),
        conn_health_checks=True,
    )
    if DATABASE_URL
    else {"ENGINE": "django.db.backends.dummy"}
}
# What each connection tells PostgreSQL (the primary's and the replicas'):
# - jit=off: a web page's queries are short: compiling one (PostgreSQL's JIT, on by default
#   for any query it deems large, such as a count over the whole library) costs 30 to 50 ms
#   more than it saves;
# - random_page_cost=1.1: the usual setting for SSD storage (the default, 4, prices a random
#   read as a spinning disk's). With it, a search for a Korean word most cases hold asks the
#   GIN index (70 ms at 100,000 cases) instead of reading every case's vector (960 ms).
DATABASE_SESSION_OPTIONS = "-c jit=off -c random_page_cost=1.1"
if DATABASE_URL:
    DATABASES["default"].setdefault("OPTIONS", {})["options"] = DATABASE_SESSION_OPTIONS
if DATABASE_URL:
    # A database host that does not answer fails a request (a 503 page) in seconds, instead
    # of holding the worker until the web server kills it.
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault(
        "connect_timeout", env_int("DATABASE_CONNECT_TIMEOUT", 5)
    )

# Streaming read replicas of DATABASE_URL (incidentlib/routers.py): the reads of public pages,
# the feed and the API go to a healthy one; writes, the admin, commands and a client that
# wrote in the last DATABASE_PRIMARY_AFTER_WRITE seconds, to the primary. A replica that is
# down, or whose replay lags more than DATABASE_REPLICA_MAX_LAG seconds, is skipped (checked
# at most every DATABASE_REPLICA_CHECK_SECONDS by each process) and used again when back.
INCIDENTLIB_REPLICAS = []
for _number, _url in enumerate(env_list("DATABASE_REPLICA_URLS", []), start=1):
    if not DATABASE_URL:
        raise ImproperlyConfigured("DATABASE_REPLICA_URLS needs DATABASE_URL (the primary)")
    _replica = env_database(
        f"DATABASE_REPLICA_URLS (replica {_number})",
        _url,
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 60),
        conn_health_checks=True,
    )
    # A replica that does not answer is skipped after 2 s instead of holding the reader.
    _replica.setdefault("OPTIONS", {}).update(options=DATABASE_SESSION_OPTIONS, connect_timeout=2)
    _replica["TEST"] = {"MIRROR": "default"}
    DATABASES[f"replica_{_number}"] = _replica
    INCIDENTLIB_REPLICAS.append(f"replica_{_number}")
DATABASE_ROUTERS = ["incidentlib.routers.ReplicaRouter"]
INCIDENTLIB_REPLICA_MAX_LAG = env_int("DATABASE_REPLICA_MAX_LAG", 5)
INCIDENTLIB_REPLICA_CHECK_SECONDS = env_int("DATABASE_REPLICA_CHECK_SECONDS", 5)
# Longer than a replica may lag unnoticed (the lag allowed, plus the time between checks).
INCIDENTLIB_PRIMARY_AFTER_WRITE = env_int(
    "DATABASE_PRIMARY_AFTER_WRITE",
    INCIDENTLIB_REPLICA_MAX_LAG + INCIDENTLIB_REPLICA_CHECK_SECONDS + 1,
)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "django.contrib.sitemaps",
    "django.contrib.syndication",
    "django_filters",
    "axes",
    "csp",
    # The worker (incidentlib/worker.py): jobs kept in PostgreSQL, its tables and admin.
    "procrastinate.contrib.django",
    "cases",
    "meaning",
    # Followed sources drafting cases (docs/ingest.md).
    "ingest",
]

MIDDLEWARE = [
    # First: the request id, and one JSON log line and the metrics of every request.
    "incidentlib.observability.RequestLogMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Before WhiteNoise, so that static files get the policy too.
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Which database the request reads (a replica or the primary); marks clients that wrote.
    "incidentlib.routers.DatabaseRoutingMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "cases.language_choice.LanguageFromQueryMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    # A NUL or bytes that are not UTF-8 in the query: a 400 naming it, before any view, in
    # the reader's language (the two before it read only `lang`, the cookies and headers).
    "cases.unreadable_queries.RefuseUnreadableQueryMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, as django-axes asks: answers a locked-out login (incidentlib/logins.py).
    "axes.middleware.AxesMiddleware",
]

AUTHENTICATION_BACKENDS = [
    # First: refuses a login from a locked-out account or address before any password check.
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]

ROOT_URLCONF = "incidentlib.urls"
WSGI_APPLICATION = "incidentlib.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
                "cases.context_processors.language_links",
            ],
        },
    },
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
LANGUAGES = [("en", _("English")), ("ko", _("Korean"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
# Where Django's Korean formats differ from written Korean (incidentlib/formats/ko/).
FORMAT_MODULE_PATH = ["incidentlib.formats"]
LANGUAGE_COOKIE_NAME = "incidentlib_language"
LANGUAGE_COOKIE_AGE = 365 * 24 * 60 * 60
USE_I18N = True
TIME_ZONE = os.environ.get("TIME_ZONE", "UTC")
USE_TZ = True

STATIC_URL = "static/"
# Where collectstatic writes and the app reads its manifest (deploy/local_stack.py gives each
# stack its own).
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", "") or BASE_DIR / "staticfiles")
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if not DEBUG and env_bool("STATIC_MANIFEST", True)
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Behind HTTPS in production; DEBUG (make run) serves plain http on 127.0.0.1.
SESSION_COOKIE_SECURE = env_bool("SECURE_COOKIES", not DEBUG)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
# The container's HEALTHCHECK asks over plain http from inside.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 30 * 24 * 60 * 60)
# Whether every subdomain is HTTPS-only, and preload-list membership, depend on the domain:
# off unless asked for, and Django's deployment check is told that this is deliberate.
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
SILENCED_SYSTEM_CHECKS = ["security.W005", "security.W021"]
if env_bool("BEHIND_PROXY", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# The proxies whose X-Forwarded-For is believed, for the client's address (login throttling):
# a request from anywhere else is the client itself, whatever headers it sends.
INCIDENTLIB_TRUSTED_PROXIES = env_networks("TRUSTED_PROXIES")

# Login throttling (django-axes, incidentlib/logins.py): an account, and an address, locked
# after LOGIN_FAILURE_LIMIT failed logins in a row, for LOGIN_LOCKOUT_MINUTES; the failures
# are kept in the database, shared by every app server.
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = datetime.timedelta(minutes=env_int("LOGIN_LOCKOUT_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
# A successful login clears the failures of its own account, not its address's others'.
AXES_RESET_ON_SUCCESS = True
AXES_HANDLER = "incidentlib.logins.OwnFailuresHandler"
AXES_CLIENT_IP_CALLABLE = "incidentlib.logins.client_address"
AXES_LOCKOUT_CALLABLE = "incidentlib.logins.locked_out"
SECURE_CONTENT_TYPE_NOSNIFF = True
# Content Security Policy (django-csp): scripts, styles, images and fonts only from this
# site's own files, no inline script or style, no plugin, no framing, forms posted only here.
# The public pages run no script; the admin runs Django's own files.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [NONE],
        "frame-ancestors": [NONE],
        "form-action": [SELF],
    }
}
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

# The shared cache: Redis when REDIS_URL is set (every app server then shares it), else each
# process's own memory (make run, make test). Pages and counts are cached under the library's
# generation (cases/caching.py), so an entry is never stale; old ones just expire.
REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL and not REDIS_URL.startswith(("redis://", "rediss://", "unix://")):
    raise ImproperlyConfigured(
        f"REDIS_URL must be redis://HOST:PORT/DB (or rediss://, unix://); got {REDIS_URL!r}"
    )
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": os.environ.get("CACHE_KEY_PREFIX", "incidentlib"),
        "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
    }
    if REDIS_URL
    else {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "LOCATION": "incidentlib",
        "OPTIONS": {"MAX_ENTRIES": 5000},
    },
    # Each process's own memory, in front of Redis (incidentlib/cache_tiers.py): the pages
    # and counts it made or read lately, so that an outage of Redis, or Redis restarted
    # empty, does not make every page afresh in every process.
    "local": {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "LOCATION": "incidentlib-local",
        "OPTIONS": {"MAX_ENTRIES": 500},
    },
}

# incidentlib's own settings
# How long a cached page or count is kept (a write makes it unreachable before that anyway).
INCIDENTLIB_CACHE_SECONDS = env_int("CACHE_SECONDS", 24 * 60 * 60)
# After Redis fails to answer, each process leaves it alone this long (its own memory only).
INCIDENTLIB_CACHE_RETRY_SECONDS = env_int("CACHE_RETRY_SECONDS", 5)
# max-age of the public pages' Cache-Control: 0 makes a CDN or proxy revalidate each time.
INCIDENTLIB_CACHE_MAX_AGE = env_int("CACHE_MAX_AGE", 0)
# The code's release, in every cached page's key and ETag: a deploy makes them all anew.
INCIDENTLIB_RELEASE = os.environ.get("RELEASE", "").strip() or code_digest(BASE_DIR)
# Hide cases that are not yet reviewed from every public page, the feed, the sitemap and the API.
INCIDENTLIB_HIDE_DRAFTS = env_bool("HIDE_DRAFTS", False)
INCIDENTLIB_PAGE_SIZE = env_int("PAGE_SIZE", 20)

# One JSON object a line (incidentlib/observability.py), each with the request's id; plain
# text when LOG_FORMAT=text (the default with DEBUG). Python's level names, in any case.
# gunicorn.conf.py reads the same variables, and adds its own loggers to the same LOGGING.
LOG_FORMAT = env_log_format(DEBUG)
LOG_LEVEL = env_log_level()
LOGGING = app_logging(LOG_FORMAT, LOG_LEVEL)

if LOG_FORMAT == "json":
    # Python's warnings too, instead of raw lines among the JSON.
    logging.captureWarnings(True)

# The worker (incidentlib/worker.py, docs/operating.md): `manage.py procrastinate worker`
# runs the jobs of every app's tasks.py, kept in PostgreSQL. A job that fails is tried again
# JOB_RETRIES times, after JOB_BACKOFF seconds, then JOB_BACKOFF**2, **3, ... (5, 25, 125,
# 625, 3125 s by default); then it is failed, shown in the admin (Procrastinate: Jobs) and
# counted in the metrics.
INCIDENTLIB_JOB_RETRIES = env_int("JOB_RETRIES", 5)
INCIDENTLIB_JOB_BACKOFF = env_int("JOB_BACKOFF", 5)

# Followed sources (ingest/fetching.py): the private or loopback hosts (names or addresses) that
# may be fetched all the same (an intranet's status page, tests); by default none. The limits
# of one fetch and of one run.
INGEST_ALLOWED_HOSTS = env_list("INGEST_ALLOWED_HOSTS", [])
INGEST_TIMEOUT_SECONDS = env_int("INGEST_TIMEOUT_SECONDS", 20)
INGEST_MAX_BYTES = env_int("INGEST_MAX_BYTES", 10 * 1024 * 1024)
INGEST_MAX_ITEMS = env_int("INGEST_MAX_ITEMS", 500)

# Prometheus metrics (incidentlib/metrics.py) on their own address, never the public port:
# host:port, or "off". gunicorn.conf.py serves them from its master process.
METRICS_ADDRESS = os.environ.get("METRICS_ADDRESS", "127.0.0.1:9464")

# Error reports to Sentry when SENTRY_DSN is set; nothing is sent (nor imported) otherwise.
SENTRY_DSN = os.environ.get("SENTRY_DSN", "")
if SENTRY_DSN:
    import sentry_sdk
    from sentry_sdk.integrations.django import DjangoIntegration

    sentry_sdk.init(
        dsn=SENTRY_DSN,
        integrations=[DjangoIntegration()],
        environment=os.environ.get("SENTRY_ENVIRONMENT", "production"),
        traces_sample_rate=float(os.environ.get("SENTRY_TRACES_SAMPLE_RATE", "0") or 0),
        send_default_pii=False,  # no addresses, cookies or user names leave the server
    )
