"""Settings from the environment: safe production defaults, clear refusals."""

import os
import subprocess
import sys

import pytest

from .conftest import GOOD_KEY, ROOT


def load_settings(**env):
    base = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "SECRET_KEY", "DATABASE_URL")}
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "import incidentlib.settings as s; print(s.DEBUG, s.SESSION_COOKIE_SECURE)",
        ],
        cwd=ROOT,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_production_web_server_refuses_to_start_without_a_secret_key():
    base = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "SECRET_KEY", "DATABASE_URL")}
    result = subprocess.run(
        [sys.executable, "-c", "import incidentlib.wsgi"],
        cwd=ROOT,
        env={**base, "DATABASE_URL": "postgres://x@localhost/x"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert "SECRET_KEY must be set when DEBUG is off" in result.stderr


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({}, "SECRET_KEY must be set when DEBUG is off, e.g. to the output of python -c"),
        ({"SECRET_KEY": GOOD_KEY, "DEBUG": "maybe"}, "DEBUG must be one of 1/0"),
        # gunicorn.conf.py reads LOG_FORMAT for its own lines, as DEBUG, and leaves a wrong
        # value for the app to name in the words of every other setting.
        ({"SECRET_KEY": GOOD_KEY, "LOG_FORMAT": "xml"}, "LOG_FORMAT must be json or text"),
        ({"SECRET_KEY": GOOD_KEY, "DATABASE_URL": "garbage"}, "DATABASE_URL is not a database"),
        # Without it every page was a 500 (Django's dummy database).
        ({"SECRET_KEY": GOOD_KEY, "DATABASE_URL": ""}, "DATABASE_URL must be set"),
    ],
)
def test_gunicorn_names_a_missing_or_wrong_setting_in_one_line(env, message):
    """An operator reads what to mend, not a traceback."""
    base = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "SECRET_KEY", "DATABASE_URL")}
    result = subprocess.run(
        [sys.executable, "-m", "gunicorn", "incidentlib.wsgi"],
        cwd=ROOT,
        env={**base, "DATABASE_URL": "postgres://x@localhost/x", "GUNICORN_BIND": "127.0.0.1:0"}
        | env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert f"Error: incidentlib is not configured: {message}" in result.stderr
    assert "Traceback" not in result.stderr


def test_without_debug_there_is_no_default_secret_key():
    result = load_settings(DATABASE_URL="postgres://x@localhost/x")
    assert result.returncode == 0, result.stderr
    check = subprocess.run(
        [
            sys.executable,
            "-c",
            "import django; django.setup(); from django.conf import settings; settings.SECRET_KEY",
        ],
        cwd=ROOT,
        env={k: v for k, v in os.environ.items() if k not in ("DEBUG", "SECRET_KEY")}
        | {"DJANGO_SETTINGS_MODULE": "incidentlib.settings"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "The SECRET_KEY setting must not be empty" in check.stderr


def test_production_defaults_are_safe():
    result = load_settings(SECRET_KEY=GOOD_KEY, DATABASE_URL="postgres://x@localhost/x")
    assert result.stdout.split() == ["False", "True"]


def test_a_bad_boolean_is_refused_by_name():
    result = load_settings(DEBUG="maybe")
    assert "DEBUG must be one of" in result.stderr


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"DATABASE_URL": "garbage"}, "DATABASE_URL is not a database URL"),
        ({"DATABASE_URL": "postgres://x@localhost:54x32/x"}, "DATABASE_URL is not a database URL"),
        ({"DATABASE_URL": "postgres://x@localhost:5432"}, "DATABASE_URL names no database"),
        (
            {"DATABASE_REPLICA_URLS": "postgres://x@localhost/x,garbage"},
            "DATABASE_REPLICA_URLS (replica 2) is not a database URL",
        ),
        ({"REDIS_URL": "http://127.0.0.1:6379/1"}, "REDIS_URL must be redis://HOST:PORT/DB"),
    ],
)
def test_a_wrong_database_or_cache_url_is_refused_by_name(env, message):
    """Not a traceback from the URL parser, nor a server whose every page is a 500."""
    result = load_settings(
        **{"SECRET_KEY": GOOD_KEY, "DATABASE_URL": "postgres://x@localhost/x"} | env
    )
    assert result.returncode != 0
    assert f"ImproperlyConfigured: {message}" in result.stderr


def test_only_postgresql_is_accepted():
    result = load_settings(SECRET_KEY=GOOD_KEY, DATABASE_URL="sqlite:///db.sqlite3")
    assert "PostgreSQL only" in result.stderr


def test_production_settings_pass_the_deployment_check():
    base = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "SECRET_KEY", "DATABASE_URL")}
    env = {
        **base,
        "SECRET_KEY": GOOD_KEY,
        "DATABASE_URL": "postgres://x@localhost/x",
        "ALLOWED_HOSTS": "incidents.example.com",
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr + result.stdout


def test_a_weak_production_secret_key_is_refused():
    result = load_settings(SECRET_KEY="change-me", DATABASE_URL="postgres://x@localhost/x")
    assert "SECRET_KEY is too weak for production" in result.stderr


def test_a_production_secret_key_needs_fifty_characters():
    result = load_settings(SECRET_KEY=GOOD_KEY[:49], DATABASE_URL="postgres://x@localhost/x")
    assert "use at least 50 random characters" in result.stderr
    result = load_settings(SECRET_KEY="k" * 60, DATABASE_URL="postgres://x@localhost/x")
    assert "SECRET_KEY is too weak for production" in result.stderr
    assert load_settings(SECRET_KEY=GOOD_KEY[:50], DATABASE_URL="postgres://x@x/x").returncode == 0


def test_a_bad_trusted_proxy_is_refused_by_name():
    result = load_settings(TRUSTED_PROXIES="10.0.0.0/8,proxy.example.com")
    assert "TRUSTED_PROXIES" in result.stderr


@pytest.mark.django_db
def test_each_connection_prices_random_reads_as_ssd_and_compiles_no_query():
    """A search for a Korean word most cases hold asks the GIN index (see settings.py)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('random_page_cost'), current_setting('jit')")
        assert cursor.fetchone() == ("1.1", "off")


# A variable read as os.environ.get("NAME"..., os.environ["NAME"] or env_int("NAME"... and the
# like, or named by a module constant ending in _VARIABLE.
READ_FROM_ENVIRONMENT = (
    r"""(?:environ\.get|environ\[|env_\w+)\(?\s*["']([A-Z][A-Z0-9_]+)["']"""
    r"""|_VARIABLE = ["']([A-Z][A-Z0-9_]+)["']"""
)
# Set by gunicorn.conf.py for its own workers, not by an operator.
INTERNAL = {"PROMETHEUS_MULTIPROC_DIR", "DJANGO_SETTINGS_MODULE"}


def test_env_example_lists_every_variable_the_code_reads():
    """The README says .env.example lists them all: every variable read from the environment
    by the settings, gunicorn.conf.py, the embedded database and the commands."""
    import re

    sources = [
        ROOT / "gunicorn.conf.py",
        *(ROOT / "incidentlib").glob("*.py"),
        *(ROOT / "cases").rglob("*.py"),
    ]
    read = {
        name
        for path in sources
        for match in re.findall(READ_FROM_ENVIRONMENT, path.read_text(encoding="utf-8"))
        for name in match
        if name
    } - INTERNAL
    listed = set(re.findall(r"^#? ?([A-Z][A-Z0-9_]+)=", (ROOT / ".env.example").read_text(), re.M))
    assert len(read) > 40
    assert sorted(read - listed) == []


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"GUNICORN_TIMEOUT": "x"}, "Error: GUNICORN_TIMEOUT must be an integer; got 'x'"),
        ({"LOG_LEVEL": "verbose"}, "Error: LOG_LEVEL must be debug, info, warning, error or"),
    ],
)
def test_gunicorn_names_its_own_wrong_setting_in_one_line(env, message):
    base = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "SECRET_KEY", "DATABASE_URL")}
    result = subprocess.run(
        [sys.executable, "-m", "gunicorn", "incidentlib.wsgi"],
        cwd=ROOT,
        env=base
        | {"SECRET_KEY": GOOD_KEY, "DATABASE_URL": "postgres://x@localhost/x"}
        | {"GUNICORN_BIND": "127.0.0.1:0"}
        | env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert message in result.stderr and "Traceback" not in result.stderr


def test_a_replica_url_keeps_its_own_options():
    """A socket's folder given as the URL's ?host= stays among the replica's OPTIONS, beside
    the session options every connection gets."""
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import incidentlib.settings as s; o = s.DATABASES['replica_1']['OPTIONS'];"
            " print(o['host'], o['connect_timeout'], o['options'])",
        ],
        cwd=ROOT,
        env={k: v for k, v in os.environ.items() if k not in ("DEBUG", "SECRET_KEY")}
        | {
            "SECRET_KEY": GOOD_KEY,
            "DATABASE_URL": "postgres://x@localhost/x",
            "DATABASE_REPLICA_URLS": "postgresql://x:@/x?host=/run/replica",
        },
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.stdout.split() == [
        "/run/replica", "2", "-c", "jit=off", "-c", "random_page_cost=1.1"
    ]  # fmt: skip
