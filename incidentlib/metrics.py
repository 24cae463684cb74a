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


def registry():
    """The registry to expose: every worker's values in multiprocess mode, else this one's."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        collected = CollectorRegistry()
        _multiprocess.MultiProcessCollector(collected)
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
