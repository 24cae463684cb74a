"""One JSON log line per request, with a request id, and the request metrics.

`RequestLogMiddleware` (first in MIDDLEWARE) takes the proxy's `X-Request-ID` when it is a
plausible id (else makes one), answers it back in `X-Request-ID`, and puts it on every log
record made while the request runs (`RequestIdFilter`). When the answer is ready it logs,
on the `incidentlib.request` logger: method, path, status, duration, the SQL queries run
(count and time, every database), the page cache's verdict (the `X-Cache` header that
cases/caching.py sets: hit or miss; none for pages it does not cache) and the database read
(`default` or a replica's alias, incidentlib/routers.py). The same request counts in the
Prometheus metrics (incidentlib/metrics.py): by view and status, its latency, cache hits.

`JsonFormatter` writes each record as one JSON object; gunicorn's own access log, when
turned on (gunicorn.conf.py), goes through it too.
"""

import contextvars
import datetime
import json
import logging
import re
import time
import uuid
from contextlib import ExitStack

from django.db import connections

from incidentlib import metrics

_request_id = contextvars.ContextVar("incidentlib_request_id", default=None)
REQUEST_ID_HEADER = "X-Request-ID"
# A proxy's id is kept when it looks like one (nginx's $request_id: 32 hex digits; a UUID).
_PLAUSIBLE_ID = re.compile(r"[A-Za-z0-9._:-]{8,128}")
request_logger = logging.getLogger("incidentlib.request")

# The attributes every LogRecord has: anything else on a record was given as `extra`.
_STANDARD = set(logging.makeLogRecord({}).__dict__) | {"message", "asctime"}
# gunicorn's access log atoms (its `access_log_format` keys) given their JSON names.
_GUNICORN_ATOMS = {
    "h": "remote",
    "m": "method",
    "U": "path",
    "q": "query",
    "s": "status",
    "B": "bytes",
    "a": "user_agent",
    "{x-request-id}o": "request_id",
}


class RequestIdFilter(logging.Filter):
    def filter(self, record):
        if not getattr(record, "request_id", None):
            record.request_id = _request_id.get()
        return True


class JsonFormatter(logging.Formatter):
    def format(self, record):
        entry = {
            "time": datetime.datetime.fromtimestamp(record.created, datetime.UTC).isoformat(
                timespec="milliseconds"
            ),
            "level": record.levelname.lower(),
            "logger": record.name,
        }
        if record.name == "gunicorn.access" and isinstance(record.args, dict):
            atoms = record.args
            entry["message"] = "access"
            for atom, name in _GUNICORN_ATOMS.items():
                if atoms.get(atom) not in (None, "-", ""):
                    entry[name] = atoms[atom]
            if "D" in atoms:
                entry["duration_ms"] = round(int(atoms["D"]) / 1000, 1)
            if "s" in atoms and str(atoms["s"]).isdigit():
                entry["status"] = int(atoms["s"])
        else:
            entry["message"] = record.getMessage()
            for key, value in record.__dict__.items():
                if key not in _STANDARD and not key.startswith("_") and value is not None:
                    entry[key] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False, default=str)


class _QueryClock:
    """Counts and times the SQL queries of every database (Django's execute_wrapper)."""

    def __init__(self):
        self.count = 0
        self.seconds = 0.0

    def __call__(self, execute, sql, params, many, context):
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.count += 1
            self.seconds += time.perf_counter() - started


class RequestLogMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        given = request.headers.get(REQUEST_ID_HEADER, "")
        request_id = given if _PLAUSIBLE_ID.fullmatch(given) else uuid.uuid4().hex
        token = _request_id.set(request_id)
        clock = _QueryClock()
        started = time.perf_counter()
        try:
            with ExitStack() as stack:
                for alias in connections:
                    stack.enter_context(connections[alias].execute_wrapper(clock))
                response = self.get_response(request)
            response[REQUEST_ID_HEADER] = request_id
            self.record(request, response, time.perf_counter() - started, clock)
        finally:
            _request_id.reset(token)
        return response

    @staticmethod
    def record(request, response, seconds, clock):
        match = request.resolver_match
        view = match.view_name if match else "unmatched"
        cache = response.get("X-Cache")
        metrics.REQUESTS.labels(view, str(response.status_code)).inc()
        metrics.LATENCY.labels(view).observe(seconds)
        if cache:
            metrics.PAGE_CACHE.labels(cache).inc()
        request_logger.info(
            "%s %s %s",
            request.method,
            request.path,
            response.status_code,
            extra={
                "method": request.method,
                "path": request.path,
                "query": request.META.get("QUERY_STRING") or None,
                "status": response.status_code,
                "view": view,
                "duration_ms": round(seconds * 1000, 1),
                "sql_queries": clock.count,
                "sql_ms": round(clock.seconds * 1000, 1),
                "cache": cache,
                "database": getattr(request, "database", "default"),
            },
        )
