"""Settings read from the environment, each refused by name when it is wrong
(ImproperlyConfigured): for the settings (settings.py) and gunicorn (gunicorn.conf.py)."""

import ipaddress
import os

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_bool(name, default):
    value = os.environ.get(name)
    if value is None:
        return default
    if value.strip().lower() in _TRUE:
        return True
    if value.strip().lower() in _FALSE:
        return False
    raise ImproperlyConfigured(
        f"{name} must be one of 1/0, true/false, yes/no, on/off; got {value!r}"
    )


def env_int(name, default):
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return default
    try:
        return int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer; got {value!r}") from None


def env_list(name, default):
    value = os.environ.get(name)
    if value is None:
        return list(default)
    return [item.strip() for item in value.split(",") if item.strip()]


def env_networks(name):
    """Comma-separated addresses or networks (10.0.0.5, 10.0.0.0/8, fd00::/8)."""
    try:
        return [ipaddress.ip_network(item, strict=False) for item in env_list(name, [])]
    except ValueError as error:
        raise ImproperlyConfigured(f"{name}: {error}") from None


def env_database(name, url, **options):
    """Django's DATABASES entry of a postgres:// URL, or ImproperlyConfigured naming it."""
    try:
        database = dj_database_url.parse(url, **options)
    except ValueError as error:  # dj_database_url's ParseError, UnknownSchemeError
        raise ImproperlyConfigured(f"{name} is not a database URL ({error}): {url!r}") from None
    if not database["ENGINE"].endswith("postgresql"):
        raise ImproperlyConfigured(
            f"incidentlib runs on PostgreSQL only: {name} must be postgres://...; got {url!r}"
        )
    if not database.get("NAME"):
        raise ImproperlyConfigured(f"{name} names no database (postgres://HOST:PORT/NAME): {url!r}")
    return database


# Python's logging levels, as LOG_LEVEL may name them (in any case).
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def env_log_level():
    """LOG_LEVEL, upper case (INFO unless set)."""
    value = os.environ.get("LOG_LEVEL", "INFO").upper()
    if value not in LOG_LEVELS:
        raise ImproperlyConfigured(
            f"LOG_LEVEL must be debug, info, warning, error or critical; got {value!r}"
        )
    return value


def env_log_format(debug):
    """LOG_FORMAT: json (one object a line), or text (the default with DEBUG)."""
    value = os.environ.get("LOG_FORMAT", "text" if debug else "json")
    if value not in ("json", "text"):
        raise ImproperlyConfigured(f"LOG_FORMAT must be json or text; got {value!r}")
    return value
