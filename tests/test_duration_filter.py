"""/cases/?detected_after=1h-4h and resolved_after: the cases whose time to detect or to resolve
is in one of /stats/'s buckets, read from the seconds the database keeps of each duration."""

import re

import pytest
from django.db import connection

from cases.models import Case

from .library import listed_ids, plain_case, store

pytestmark = pytest.mark.django_db

# id: (detected_after, resolved_after); each bucket's edges on both sides.
DURATIONS = {
    "B-1": ("PT14M59S", "PT15M"),
    "B-2": ("PT15M", "PT59M"),
    "B-3": ("PT1H", "PT3H59M"),
    "B-4": ("PT4H", "P1D"),
    "B-5": ("P6DT23H", "P7D"),
    "B-6": ("P99999999999999999999D", None),
    "B-7": (None, None),
}


@pytest.fixture
def library(tmp_path):
    cases = []
    for number, (case_id, (detected, resolved)) in enumerate(DURATIONS.items()):
        case = plain_case(case_id, date=f"202{number}-01-01")
        case["timeline"] = {"detected_after": detected, "resolved_after": resolved}
        cases.append(case)
    store(tmp_path, *cases)


def listed(client, url):
    response = client.get(url)
    assert response.status_code == 200, url
    return sorted(listed_ids(response.content.decode()))


@pytest.mark.parametrize(
    "query, expected",
    [
        ("detected_after=under-15m", ["B-1"]),
        ("detected_after=15m-1h", ["B-2"]),
        ("detected_after=1h-4h", ["B-3"]),
        ("detected_after=4h-1d", ["B-4"]),
        ("detected_after=1d-1w", ["B-5"]),
        ("detected_after=over-1w", ["B-6"]),
        ("detected_after=unknown", ["B-7"]),
        ("resolved_after=15m-1h", ["B-1", "B-2"]),
        ("resolved_after=1h-4h", ["B-3"]),
        ("resolved_after=1d-1w", ["B-4"]),
        ("resolved_after=over-1w", ["B-5"]),
        ("resolved_after=unknown", ["B-6", "B-7"]),
        ("detected_after=15m-1h&resolved_after=15m-1h", ["B-2"]),
        ("detected_after=under-15m&resolved_after=over-1w", []),
    ],
)
def test_the_list_and_the_api_select_a_bucket(client, library, query, expected):
    assert listed(client, f"/cases/?{query}") == expected
    body = client.get(f"/api/cases/?{query}").json()
    assert sorted(case["id"] for case in body["results"]) == expected


def test_the_database_keeps_the_seconds_of_each_duration(library):
    seconds = dict(Case.objects.values_list("id", "detected_seconds"))
    assert seconds["B-1"] == 899 and seconds["B-5"] == 6 * 86400 + 23 * 3600
    assert seconds["B-6"] == pytest.approx(99999999999999999999 * 86400)
    assert seconds["B-7"] is None
    Case.objects.filter(id="B-7").update(detected_after="PT2H", resolved_after="PT1M")
    assert Case.objects.values_list("detected_seconds", "resolved_seconds").get(id="B-7") == (
        7200,
        60,
    )


def test_a_chip_names_the_bucket_in_both_languages(client, library):
    html = client.get("/cases/?detected_after=1h-4h").content.decode()
    assert re.search(r'class="chip-name">Time to detect:</span> <span>1 to 4 hours</span>', html)
    assert 'href="/cases/"' in html
    korean = client.get("/cases/?resolved_after=unknown&lang=ko").content.decode()
    assert "해결까지 걸린 시간:</span> <span>알 수 없음</span>" in korean


def test_an_empty_list_suggests_removing_the_bucket(client, library):
    html = client.get("/cases/?detected_after=under-15m&resolved_after=over-1w").content.decode()
    assert listed_ids(html) == []
    assert "Remove “Time to detect: under 15 minutes”" in html
    assert "Remove “Time to resolve: over a week”" in html


def test_an_unknown_bucket_is_refused(client, library):
    response = client.get("/cases/?detected_after=PT1H")
    assert response.status_code == 400 and "PT1H" in response.content.decode()
    response = client.get("/api/cases/?resolved_after=soon")
    assert response.status_code == 400 and "resolved_after" in response.json()["parameters"]


def test_the_filter_reads_an_index(library):
    """At 100,000 cases a bucket is an index range, not a scan computing every duration."""
    query = Case.objects.filter(detected_seconds__gte=3600, detected_seconds__lt=14400)
    sql, params = query.values("id").query.sql_with_params()
    with connection.cursor() as cursor:
        # Of the scans that can read a range, only the bitmap's is left to the planner: an
        # index scan of another index (case_date_idx, in the order of the list) filtering
        # every row would be a scan computing every duration, and on a handful of rows the
        # planner may well take it.
        for scan in ("seqscan", "indexscan", "indexonlyscan"):
            cursor.execute(f"SET LOCAL enable_{scan} = off")
        cursor.execute(f"EXPLAIN {sql}", params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "Bitmap Index Scan on case_detected_seconds_idx" in plan
