"""Faults: the database or the cache away. The health endpoints answer JSON (/readyz a 503
naming what is down), pages a 503 in both languages, errors are never cached, and after a
PostgreSQL restart the first request of a worker gets no error."""

import os
import subprocess
import sys
from urllib.parse import urlsplit

import psycopg
import pytest
from django.core.management import call_command
from django.db import OperationalError, ProgrammingError, close_old_connections, connection
from django.test import Client

from .conftest import ROOT, url_of_test_database
from .library import six_cases, store

pytestmark = pytest.mark.django_db


def failing(error):
    """An execute wrapper: every query fails with `error`, as with the database away."""

    def wrapper(execute, sql, params, many, context):
        raise error

    return wrapper


def never_cached(response):
    return "no-store" in response["Cache-Control"] and "public" not in response["Cache-Control"]


def test_healthz_says_the_process_is_alive_even_without_the_database(client):
    with connection.execute_wrapper(failing(OperationalError("connection refused"))):
        response = client.get("/healthz")
    assert response.status_code == 200 and response.json() == {"status": "ok"}
    assert never_cached(response)


def test_readyz_checks_the_database_and_the_cache(client):
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.json() == {
        "status": "ok",
        "checks": {"database": "ok", "cache": "ok", "static": "ok"},
    }
    assert never_cached(response)


def test_readyz_names_static_files_not_collected(client, settings, tmp_path):
    """Without collectstatic's manifest every page is a 500: the process is not ready."""
    settings.STATIC_ROOT = tmp_path
    settings.STORAGES = settings.STORAGES | {
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.ManifestStaticFilesStorage"}
    }
    response = client.get("/readyz")
    assert response.status_code == 503 and response.json()["status"] == "down"
    assert response.json()["checks"]["static"] == (
        "down: RuntimeError: no static files manifest: run manage.py collectstatic, then restart"
    )
    call_command("collectstatic", "--no-input", verbosity=0)
    settings.STATIC_ROOT = tmp_path  # a restart: the storage reads its manifest again
    assert client.get("/readyz").json()["checks"]["static"] == "ok"


def test_readyz_names_the_database_when_it_is_down(client):
    with connection.execute_wrapper(failing(OperationalError("connection refused"))):
        response = client.get("/readyz")
    assert response.status_code == 503 and never_cached(response)
    checks = response.json()["checks"]
    assert checks["database"].startswith("down: OperationalError") and checks["cache"] == "ok"


def test_readyz_names_the_cache_when_redis_is_away_but_stays_ready(client, settings):
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/5",  # nothing listens there
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
    }
    response = client.get("/readyz")
    assert response.status_code == 200  # pages are still served: not out of the balancer
    body = response.json()
    assert body["status"] == "degraded"
    assert body["checks"]["database"] == "ok" and body["checks"]["cache"].startswith("down")


def test_pages_still_work_while_redis_is_away(client, settings, tmp_path):
    store(tmp_path, *six_cases())
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/5",
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
    }
    assert Client().get("/cases/").status_code == 200


@pytest.mark.parametrize("path", ["/", "/cases/", "/cases/IL-0137", "/feed/"])
def test_a_page_while_the_database_is_away_is_a_503_in_both_languages_never_cached(path):
    client = Client(raise_request_exception=False)
    with connection.execute_wrapper(failing(OperationalError("connection refused"))):
        response = client.get(path)
    assert response.status_code == 503
    assert response["Retry-After"] == "30" and never_cached(response)
    page = response.content.decode()
    assert "Unavailable for a moment" in page and "잠시 이용할 수 없습니다" in page


@pytest.mark.parametrize(
    ("error", "status", "language", "message"),
    [
        (
            OperationalError("connection refused"),
            503,
            "en",
            "The library cannot reach its database right now. Try again in a minute.",
        ),
        (
            OperationalError("connection refused"),
            503,
            "ko",
            "지금 라이브러리가 데이터베이스에 연결하지 못하고 있습니다. "
            "1분쯤 뒤에 다시 시도해 주세요.",
        ),
        (
            ProgrammingError("a bug"),
            500,
            "en",
            "Something went wrong on our side. Try again later.",
        ),
    ],
)
@pytest.mark.parametrize("path", ["/api/cases/", "/api/taxonomy/", "/api/cases/deleted/"])
def test_the_api_fails_in_json_never_cached(path, error, status, language, message):
    client = Client(raise_request_exception=False)
    with connection.execute_wrapper(failing(error)):
        response = client.get(path, {"lang": language})
    assert response.status_code == status and never_cached(response)
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"error": message, "parameters": {}}
    if status == 503:
        assert response["Retry-After"] == "30"


def test_a_server_error_is_a_500_in_both_languages_never_cached():
    client = Client(raise_request_exception=False)
    with connection.execute_wrapper(failing(ProgrammingError("a bug"))):
        response = client.get("/cases/")
    assert response.status_code == 500 and never_cached(response)
    page = response.content.decode()
    assert "Server error" in page and "서버 오류" in page


def test_connections_are_checked_before_use(settings):
    assert settings.DATABASES["default"]["CONN_HEALTH_CHECKS"] is True


@pytest.mark.django_db(transaction=True)
def test_after_the_database_drops_a_connection_the_next_request_gets_no_error(tmp_path):
    store(tmp_path, *six_cases())
    client = Client(raise_request_exception=False)
    assert client.get("/cases/").status_code == 200
    # A restart of PostgreSQL, as this worker's kept connection sees it.
    pid = connection.connection.info.backend_pid
    with psycopg.connect(url_of_test_database(), autocommit=True) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [pid])
    close_old_connections()  # what Django does at the start of each request
    assert client.get("/cases/?severity=high").status_code == 200


# The curators' three commands, and what each says it left undone.
CURATORS_COMMANDS = pytest.mark.parametrize(
    ("command", "nothing_done"),
    [
        (["import_cases", "fixtures/cases"], "; nothing was imported."),
        (["export_cases"], ""),
        (["load_taxonomy", "fixtures/taxonomy.json"], "; nothing was loaded."),
    ],
)


def curators_command(command, database_url):
    """The command as a curator runs it, on that database: (exit status, its one line)."""
    env = dict(os.environ, DATABASE_URL=database_url, DEBUG="1")
    done = subprocess.run(
        [sys.executable, "manage.py", *command], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert "Traceback" not in done.stderr, done.stderr
    (line,) = done.stderr.splitlines()
    return done.returncode, line


@CURATORS_COMMANDS
def test_a_curators_command_with_the_database_away_says_so_in_one_line(command, nothing_done):
    status, line = curators_command(command, "postgres://postgres@127.0.0.1:1/library")
    assert status == 1
    assert line.startswith("CommandError: the database failed: connection")
    assert line.endswith(nothing_done or "")


@CURATORS_COMMANDS
def test_a_curators_command_on_a_database_not_migrated_says_to_migrate(command, nothing_done):
    name = f"incidentlib_empty_{os.getpid()}"
    with psycopg.connect(url_of_test_database(), autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    try:
        url = urlsplit(url_of_test_database())._replace(path=f"/{name}").geturl()
        status, line = curators_command(command, url)
    finally:
        with psycopg.connect(url_of_test_database(), autocommit=True) as admin:
            admin.execute(f"DROP DATABASE {name}")
    assert status == 1
    assert line.startswith("CommandError: the database has no library in it yet (relation")
    assert line.endswith(f"run `manage.py migrate` first{nothing_done}")
