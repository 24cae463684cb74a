"""Reads of public pages from a streaming replica; everything else from the primary.

`DatabaseRoutingMiddleware` decides per request. A request is read from a replica when it
only reads (GET, HEAD), its view is a public page, the feed, the sitemap or the API
(the `cases` URL namespace, less the two API answers below), and its client is nobody who
writes: no session cookie (staff) and no `incidentlib_wrote` cookie, which any request that
may write (POST, PUT, PATCH, DELETE; not one refused with a 405) gets for
`DATABASE_PRIMARY_AFTER_WRITE` seconds. So a reviewer who approves a case, or anyone who just
posted, reads their own write.

Every read of such a request goes to the one replica chosen, through Django's documented
`DATABASE_ROUTERS`: `ReplicaRouter.db_for_read` names it for the ORM, and the code that runs
raw SQL or opens a snapshot transaction takes its connection from the router too
(`connections[router.db_for_read(Model)]`, or a queryset's or manager's `.db`). The request's
choice lives in a context variable that the middleware sets and resets, so a command, the
worker or another request is never routed by it. Writes go to the primary
(`db_for_write`). The library's generation (cases/caching.py) then comes from the same server
as the page it keys, so a lagging replica caches its pages under its own, older, generation,
never under a newer one.

`/api/cases/` and `/api/cases.jsonl` read the primary: their `synced_at` promises that no
change older than it is missing, which only the primary's open transactions can tell.

A replica is used only when healthy: each process checks each replica at most every
`DATABASE_REPLICA_CHECK_SECONDS` (a connection of its own, 1 s to connect) and skips one that
does not answer, whose replay lags more than `DATABASE_REPLICA_MAX_LAG` seconds, or that
receives nothing from a primary that answers (replication stopped: it would seem caught up
forever), with a warning; the next check that finds it well puts it back. A query that
fails on a replica anyway (stopped between two checks, a query cancelled by replay) is run
again on the primary: the reader sees no error, and the replica is checked again at the next
request.
"""

import contextvars
import logging
import random
import threading
import time

import psycopg
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import DEFAULT_DB_ALIAS, Error, connections, router
from django.utils.connection import ConnectionDoesNotExist

from incidentlib import metrics
from incidentlib.database_errors import first_line

logger = logging.getLogger(__name__)

WROTE_COOKIE = "incidentlib_wrote"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# Public views that read the primary all the same (see the module's docstring).
PRIMARY_VIEWS = frozenset({"cases:api_cases", "cases:api_bulk"})

_reading_from = contextvars.ContextVar("incidentlib_reading_from", default=None)


class ReplicaRouter:
    """Names the request's replica for its reads, the ORM's and raw SQL's that ask (see the
    module's docstring); writes and migrations: the primary."""

    def db_for_read(self, model, **hints):
        return _reading_from.get()  # None: Django's default, the primary

    def db_for_write(self, model, **hints):
        return DEFAULT_DB_ALIAS

    def allow_relation(self, obj1, obj2, **hints):
        return True  # every alias holds the same data

    def allow_migrate(self, db, app_label, model_name=None, **hints):
        return db == DEFAULT_DB_ALIAS  # a replica follows the primary's schema by itself


def install():
    """Check, at start-up, that the reads can follow the request's choice: Django consults
    ReplicaRouter (DATABASE_ROUTERS) and each replica named is one of its databases. Else a
    request would be counted and logged as read from a replica its queries never reach."""
    if not settings.INCIDENTLIB_REPLICAS:
        return
    if not any(isinstance(each, ReplicaRouter) for each in router.routers):
        raise ImproperlyConfigured(
            "INCIDENTLIB_REPLICAS needs incidentlib.routers.ReplicaRouter in DATABASE_ROUTERS"
        )
    for alias in settings.INCIDENTLIB_REPLICAS:
        try:
            connections[alias]
        except ConnectionDoesNotExist:
            raise ImproperlyConfigured(f"replica {alias} is no database of DATABASES") from None


# --- Replica health, per process ---------------------------------------------------------


class ReplicaHealth:
    """Whether a replica may be read, as last checked, rechecked when older than allowed."""

    def __init__(self):
        self._lock = threading.Lock()
        self._checked = {}  # alias -> (monotonic time of the check, problem or None, lag)

    def forget(self, alias=None):
        """Check again at the next request (all replicas when none is named)."""
        with self._lock:
            if alias is None:
                self._checked.clear()
            else:
                self._checked.pop(alias, None)

    def usable(self, alias):
        now = time.monotonic()
        with self._lock:
            checked = self._checked.get(alias)
            if checked and now - checked[0] < settings.INCIDENTLIB_REPLICA_CHECK_SECONDS:
                return checked[1] is None
            # Claim the check, so that the other threads go on with the last verdict.
            self._checked[alias] = (now, checked[1] if checked else None, None)
        problem, lag = self._check(alias)
        with self._lock:
            self._checked[alias] = (time.monotonic(), problem, lag)
        was_usable = checked is None or checked[1] is None
        if problem and (was_usable or checked[1] != problem):
            logger.warning("replica %s skipped: %s", alias, problem)
        elif problem is None and not was_usable:
            logger.warning("replica %s used again (lag %.1f s)", alias, lag)
            _close(alias)  # this thread's connection from before is dead
        metrics.REPLICA_UP.labels(alias).set(problem is None)
        if lag is not None:
            metrics.REPLICA_LAG.labels(alias).set(lag)
        return problem is None

    def problems(self):
        """{alias: problem} of the replicas last found unusable (for /readyz)."""
        with self._lock:
            return {alias: c[1] for alias, c in self._checked.items() if c[1]}

    @staticmethod
    def _check(alias):
        """(None, lag in seconds) when the replica may be read, else (problem, lag or None)."""
        try:
            with _connect(alias) as conn:
                lag = _replay_lag(conn)
                streaming = _streaming(conn)
                another_server = _another_server(conn)
        except psycopg.Error as error:
            return f"unreachable ({type(error).__name__}: {first_line(error)})", None
        if another_server:
            return "not a standby of the primary (out of recovery: promoted, or a copy)", None
        lag = float(lag)
        if lag > settings.INCIDENTLIB_REPLICA_MAX_LAG:
            return f"lags {lag:.1f} s (more than {settings.INCIDENTLIB_REPLICA_MAX_LAG} s)", lag
        if not streaming and _primary_answers():
            # It has replayed all it received, but receives nothing: however old its data,
            # it would seem caught up. With the primary down it is still the best there is.
            return "not streaming from the primary (no WAL receiver running)", None
        return None, lag


def _connect(alias):
    """A connection of its own to a database of the settings, as Django's would be made (its
    OPTIONS too: a socket's folder given as the URL's ?host=), 1 s at most to connect."""
    params = connections[alias].get_connection_params()
    for djangos_own in ("cursor_factory", "context"):
        params.pop(djangos_own, None)
    return psycopg.connect(**params | {"connect_timeout": 1}, autocommit=True)


def _streaming(conn):
    """Whether the replica receives the primary's WAL now (a WAL receiver runs): any role
    sees that row of pg_stat_wal_receiver, if not all its columns."""
    return conn.execute(
        "SELECT NOT pg_is_in_recovery() OR EXISTS (SELECT 1 FROM pg_stat_wal_receiver)"
    ).fetchone()[0]


# What tells a database apart: its server's (system identifier, timeline) and its name.
IDENTITY = """
SELECT pg_is_in_recovery(), system_identifier, timeline_id, current_database()
FROM pg_control_system(), pg_control_checkpoint()
"""


def _another_server(conn):
    """Whether the replica is out of recovery (promoted, or a copy restored elsewhere) and is
    not the primary itself (as a test's mirror is): it receives no WAL and says it lags by
    nothing, so read it would serve its data as it was, forever. With the primary away it
    is not refused here (the best there is, as for a replica that stopped streaming)."""
    in_recovery, *replica = conn.execute(IDENTITY).fetchone()
    if in_recovery:
        return False
    try:
        with _connect(DEFAULT_DB_ALIAS) as primary_conn:
            _in_recovery, *primary = primary_conn.execute(IDENTITY).fetchone()
    except psycopg.Error:
        return False
    return replica != primary


def _primary_answers():
    try:
        with _connect(DEFAULT_DB_ALIAS) as conn:
            conn.execute("SELECT 1")
    except psycopg.Error:
        return False
    return True


# How long a check waits for a replica to replay the WAL it has already received.
CATCH_UP_SECONDS = 0.2


def _replay_lag(conn):
    """Seconds the replica's data lags behind what it has received from the primary.

    Caught up (all it received replayed): 0, however long ago the last write was. Received
    can be less than replayed: a restarted replica reports the start of the WAL segment it
    streams again from, having replayed beyond it from its disk.

    Else it is waited for, CATCH_UP_SECONDS at most: a replica that keeps up replays what it
    received within milliseconds, and its lag is that wait. The primary writes WAL without
    committing anything (autovacuum, pruning of dead rows by reads, checkpoints), and a
    replica seen between receiving and replaying such WAL is not lagging; measured by the age
    of the last transaction it replayed it seemed to lag by minutes (the last import), and
    each process skipped it for DATABASE_REPLICA_CHECK_SECONDS: with 100,000 cases under
    load (bench/cluster.py), 3,232 of 19,798 requests in 30 s read the primary instead.

    One that does not catch up in that time (replay paused, or slower than the writes) lags
    by the age of the last transaction it replayed, as PostgreSQL's documentation measures
    it.
    """
    in_recovery, received, caught_up, age = conn.execute(
        """
        SELECT pg_is_in_recovery(), pg_last_wal_receive_lsn(),
               pg_last_wal_replay_lsn() >= pg_last_wal_receive_lsn(),
               extract(epoch FROM now() - pg_last_xact_replay_timestamp())
        """
    ).fetchone()
    if not in_recovery or caught_up:
        return 0.0
    if received is not None:
        started = time.monotonic()
        while (waited := time.monotonic() - started) < CATCH_UP_SECONDS:
            if conn.execute(
                "SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", (received,)
            ).fetchone()[0]:
                return waited
            time.sleep(0.01)
    return float(age or 0)


health = ReplicaHealth()


def _close(alias):
    try:
        connections[alias].close()
    except Error:
        pass  # the connection is gone already


def choose_replica():
    """A usable replica's alias (at random among them), or None: read the primary."""
    replicas = list(settings.INCIDENTLIB_REPLICAS)
    random.shuffle(replicas)
    for alias in replicas:
        if health.usable(alias):
            return alias
    if replicas:
        metrics.REPLICA_FALLBACKS.labels("none usable").inc()
    return None


# --- The request ---------------------------------------------------------------------------


def _reads_only_public(request):
    match = request.resolver_match
    return (
        request.method in SAFE_METHODS
        and match is not None
        and match.namespace == "cases"
        and match.view_name not in PRIMARY_VIEWS
        and settings.SESSION_COOKIE_NAME not in request.COOKIES
        and WROTE_COOKIE not in request.COOKIES
    )


class DatabaseRoutingMiddleware:
    """Chooses the database of each request, as the module says, and marks writers."""

    def __init__(self, get_response):
        self.get_response = get_response
        install()

    def __call__(self, request):
        request.database = DEFAULT_DB_ALIAS
        token = _reading_from.set(None)
        try:
            response = self.get_response(request)
        finally:
            _reading_from.reset(token)
        # A method refused (405) wrote nothing: TRACE on a page gets no cookie.
        if request.method not in SAFE_METHODS and response.status_code != 405:
            response.set_cookie(
                WROTE_COOKIE,
                "1",
                max_age=settings.INCIDENTLIB_PRIMARY_AFTER_WRITE,
                secure=settings.SESSION_COOKIE_SECURE,
                httponly=True,
                samesite="Lax",
            )
        return response

    def process_view(self, request, view_func, view_args, view_kwargs):
        if not settings.INCIDENTLIB_REPLICAS:
            return None
        if not _reads_only_public(request):
            metrics.DATABASE_READS.labels("primary").inc()
            return None
        alias = choose_replica()
        if alias:
            _reading_from.set(alias)
            request.database = alias
        metrics.DATABASE_READS.labels("replica" if alias else "primary").inc()
        return None

    def process_exception(self, request, exception):
        """A replica that failed under the request: the view again, on the primary."""
        alias = _reading_from.get()
        if alias is None or not isinstance(exception, Error):
            return None
        logger.warning(
            "replica %s failed under %s (%s: %s): read again from the primary",
            alias,
            request.path,
            type(exception).__name__,
            first_line(exception),
        )
        metrics.REPLICA_FALLBACKS.labels("query failed").inc()
        health.forget(alias)
        _close(alias)
        _reading_from.set(None)
        request.database = DEFAULT_DB_ALIAS
        match = request.resolver_match
        response = match.func(request, *match.args, **match.kwargs)
        if hasattr(response, "render") and callable(response.render):
            response = response.render()
        return response
