"""The Prometheus metrics the app keeps (prometheus-client), served on METRICS_ADDRESS.

Under gunicorn each worker is a process: with PROMETHEUS_MULTIPROC_DIR set (gunicorn.conf.py
sets it) every worker writes its values there and the metrics server adds them up. The
server listens on METRICS_ADDRESS (default 127.0.0.1:9464: this machine only), never on the
public port, so the proxy cannot expose it; `serve()` starts it (gunicorn's master does).
"""

import logging
import os

from prometheus_client import (
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    start_http_server,
)
from prometheus_client import multiprocess as _multiprocess

logger = logging.getLogger(__name__)

REQUESTS = Counter(
    "incidentlib_requests_total", "Requests answered, by view and status.", ["view", "status"]
)
LATENCY = Histogram(
    "incidentlib_request_seconds",
    "Time to answer a request, by view.",
    ["view"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)
PAGE_CACHE = Counter(
    "incidentlib_page_cache_total", "Public pages from the shared cache: hit or miss.", ["result"]
)
DATABASE_READS = Counter(
    "incidentlib_database_reads_total",
    "Routed requests, by the kind of database they read (replica or primary).",
    ["database"],
)
REPLICA_FALLBACKS = Counter(
    "incidentlib_replica_fallbacks_total",
    "Requests that would have read a replica but read the primary, by reason.",
    ["reason"],
)
REPLICA_UP = Gauge(
    "incidentlib_replica_usable",
    "1 when the replica was usable at its last check.",
    ["replica"],
    multiprocess_mode="mostrecent",
)
REPLICA_LAG = Gauge(
    "incidentlib_replica_lag_seconds",
    "The replica's replay lag at its last check.",
    ["replica"],
    multiprocess_mode="mostrecent",
)


class DatabaseCounts:
    """Counts read from PostgreSQL when the metrics are read: what the worker's processes (or
    machines) did, which no web process saw, and which outlives their restarts.

    Each entry: (kind, name, help, labels, SQL giving the labels' values then the count).
    """

    QUERIES = [
        (
            "gauge",
            "incidentlib_jobs",
            "The worker's jobs, by status (failed: after JOB_RETRIES retries; see the admin).",
            ["status"],
            # Every status, 0 included: an alert on failed jobs needs the series to exist.
            "SELECT s::text, count(j.id) FROM unnest(enum_range(NULL::procrastinate_job_status))"
            " s LEFT JOIN procrastinate_jobs j ON j.status = s GROUP BY s ORDER BY s",
        ),
        # Followed sources (ingest/): their totals, kept on each source by its runs.
        (
            "counter",
            "incidentlib_ingest_runs",
            "Runs of each followed source (polls, whatever their outcome).",
            ["source"],
            "SELECT name, runs FROM ingest_followedsource ORDER BY name",
        ),
        (
            "counter",
            "incidentlib_ingest_errors",
            "Runs of each followed source that ended in an error (see its last error).",
            ["source"],
            "SELECT name, errors FROM ingest_followedsource ORDER BY name",
        ),
        (
            "counter",
            "incidentlib_ingest_items",
            "Items read from each followed source, by what was done with them.",
            ["source", "outcome"],
            "SELECT name, o.outcome, o.count FROM ingest_followedsource, LATERAL (VALUES"
            " ('drafted', drafted), ('updated', updated), ('skipped', skipped),"
            " ('changed_after_edit', flagged), ('refused', refused)) o(outcome, count)"
            " ORDER BY name, o.outcome",
        ),
    ]

    def describe(self):
        return []  # asked at each collect: nothing is read at registration

    def collect(self):
        from django.core.exceptions import ImproperlyConfigured
        from django.db import DatabaseError, connections, transaction
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

        try:
            connection = connections["default"]
        except ImproperlyConfigured:
            return  # a process without Django's settings (gunicorn's master without preload)
        rows = []
        try:
            for kind, name, help_text, labels, sql in self.QUERIES:
                try:
                    # Each on its own: a table missing (an app not migrated) loses one metric.
                    with transaction.atomic(), connection.cursor() as cursor:
                        cursor.execute(sql)
                        rows.append((kind, name, help_text, labels, cursor.fetchall()))
                except DatabaseError as error:  # no sample rather than a wrong zero
                    logger.warning("metric %s not read from the database: %s", name, error)
                    if connection.connection is None or not connection.is_usable():
                        break  # no database now: the others would fail the same way
        finally:
            if not connection.in_atomic_block:
                connection.close()  # the metrics server's thread keeps no connection
        for kind, name, help_text, labels, found in rows:
            family = (CounterMetricFamily if kind == "counter" else GaugeMetricFamily)(
                name, help_text, labels=labels
            )
            for *values, count in found:
                family.add_metric([str(value) for value in values], count)
            yield family


DATABASE_COUNTS = DatabaseCounts()
REGISTRY.register(DATABASE_COUNTS)


def registry():
    """The registry to expose: every worker's values in multiprocess mode, else this one's."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        collected = CollectorRegistry()
        _multiprocess.MultiProcessCollector(collected)
        collected.register(DATABASE_COUNTS)
        return collected
    return REGISTRY


def parse_address(address):
    """("host", port) of "host:port" ("[::1]:9464" for IPv6); None for "" or "off"."""
    address = (address or "").strip()
    if address.lower() in ("", "off", "none", "0"):
        return None
    host, _, port = address.rpartition(":")
    return host.strip("[]") or "127.0.0.1", int(port)


def serve(address):
    """Start the metrics server on `address` (a thread of this process); False if it cannot."""
    parsed = parse_address(address)
    if parsed is None:
        return False
    try:
        start_http_server(parsed[1], addr=parsed[0], registry=registry())
    except OSError as error:
        logger.warning("metrics not served on %s: %s", address, error)
        return False
    return True


def mark_process_dead(pid):
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        _multiprocess.mark_process_dead(pid)
