"""Request logs and metrics in the process: one line per request with its id, JSON records,
and counts by view, status and cache result (incidentlib/observability.py, metrics.py)."""

import json
import logging

import pytest
from prometheus_client import REGISTRY, generate_latest

from incidentlib.observability import JsonFormatter


def request_lines(caplog):
    return [r for r in caplog.records if r.name == "incidentlib.request"]


@pytest.mark.django_db
def test_each_request_logs_one_line_with_its_id_queries_cache_and_database(client, caplog):
    caplog.set_level(logging.INFO, logger="incidentlib.request")
    first = client.get("/cases/", HTTP_X_REQUEST_ID="proxy-id-1234")
    second = client.get("/cases/", HTTP_X_REQUEST_ID="proxy-id-5678")

    assert first["X-Request-ID"] == "proxy-id-1234"  # the proxy's id, passed through
    miss, hit = request_lines(caplog)
    assert (miss.request_id, miss.cache, hit.request_id, hit.cache) == (
        "proxy-id-1234", "miss", "proxy-id-5678", "hit",
    )  # fmt: skip
    assert (miss.method, miss.path, miss.status, miss.view) == ("GET", "/cases/", 200, "cases:list")
    assert miss.sql_queries > hit.sql_queries >= 1  # a hit reads the library's state only
    assert miss.sql_ms >= 0 and miss.duration_ms > 0
    assert miss.database == "default"
    assert second.status_code == 200


def test_a_request_without_a_plausible_id_gets_one_of_its_own(client, caplog):
    caplog.set_level(logging.INFO, logger="incidentlib.request")
    answer = client.get("/healthz", HTTP_X_REQUEST_ID="<script>")
    made = answer["X-Request-ID"]
    assert len(made) == 32 and made != "<script>"
    assert request_lines(caplog)[-1].request_id == made


def test_log_records_are_one_json_object_each():
    record = logging.makeLogRecord(
        {"name": "incidentlib.request", "msg": "GET %s", "args": ("/",), "levelno": 20,
         "levelname": "INFO", "request_id": "abc", "status": 200, "cache": None}
    )  # fmt: skip
    entry = json.loads(JsonFormatter().format(record))
    assert entry["message"] == "GET /"
    assert entry["request_id"] == "abc" and entry["status"] == 200 and entry["level"] == "info"
    assert "cache" not in entry  # nothing for what is not known


@pytest.mark.django_db
def test_metrics_count_requests_by_view_and_status_latency_and_cache_hits(client):
    def value(name, **labels):
        return REGISTRY.get_sample_value(name, labels) or 0

    before = value("incidentlib_requests_total", view="cases:taxonomy", status="200")
    hits = value("incidentlib_page_cache_total", result="hit")
    client.get("/taxonomy/")
    client.get("/taxonomy/")
    assert value("incidentlib_requests_total", view="cases:taxonomy", status="200") == before + 2
    assert value("incidentlib_page_cache_total", result="hit") == hits + 1
    assert value("incidentlib_request_seconds_count", view="cases:taxonomy") >= 2
    assert b"incidentlib_replica_fallbacks_total" in generate_latest(REGISTRY)
