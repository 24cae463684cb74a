"""/stats/: the charts of a selection against direct counts, their links and their CSV."""

import csv
import io
import re

import pytest

from cases.models import Case, Term

from .library import six_cases, store

pytestmark = pytest.mark.django_db


@pytest.fixture
def library(tmp_path):
    cases = six_cases()
    durations = [("PT10M", "PT45M"), ("PT45M", "PT3H"), ("PT2H", "P2D"), (None, None),
                 ("P1DT1H", "P10D"), ("PT5M", None)]  # fmt: skip
    for case, (detected, resolved) in zip(cases, durations, strict=True):
        case["timeline"] = {"detected_after": detected, "resolved_after": resolved}
    for case in cases[:2]:
        case["org"] = '<script>alert("org")</script>'
    store(tmp_path, *cases)
    Term.objects.filter(slug="latency").update(label_ko="지연")


def page(client, url, status=200):
    response = client.get(url)
    assert response.status_code == status, (url, response.status_code)
    return response


def chart_rows(client, url, chart):
    """{value: cases} of one chart's CSV."""
    response = page(client, url.replace("/stats/", f"/stats/{chart}.csv", 1))
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert rows[0][1:] == ["label", "cases"]
    return {row[0]: int(row[2]) for row in rows[1:]}


def test_the_numbers_match_direct_counts(client, library):
    cases = Case.objects.all()
    years = chart_rows(client, "/stats/", "years")
    for year in range(2019, 2026):
        assert years[str(year)] == cases.filter(date__year=year).count()
    symptoms = chart_rows(client, "/stats/", "symptoms")
    for slug, count in symptoms.items():
        assert count == cases.filter(terms__slug=slug, terms__facet="symptoms").count()
    assert symptoms == {"errors": 3, "latency": 3, "data-loss": 1}
    assert chart_rows(client, "/stats/", "severity") == {
        "critical": 2,
        "high": 2,
        "medium": 1,
        "low": 1,
    }
    assert chart_rows(client, "/stats/", "root_cause") == {
        "capacity": 2, "config": 2, "bug": 1, "dependency": 1}  # fmt: skip
    buckets = ["under-15m", "15m-1h", "1h-4h", "4h-1d", "1d-1w", "over-1w", "unknown"]
    detect = chart_rows(client, "/stats/", "detect")
    assert [detect[bucket] for bucket in buckets] == [2, 1, 1, 0, 1, 0, 1]
    resolve = chart_rows(client, "/stats/", "resolve")
    assert [resolve[bucket] for bucket in buckets] == [0, 1, 1, 0, 1, 1, 2]
    orgs = chart_rows(client, "/stats/", "organisations")
    assert orgs == {"acme": 2, "globex": 2, "initech": 2}


def test_a_selection_counts_only_its_cases(client, library):
    url = "/stats/?domain=storage&domain=ml"
    selected = Case.objects.filter(
        terms__slug__in=["storage", "ml"], terms__facet="domain"
    ).distinct()
    assert chart_rows(client, url, "years") == {
        str(y): selected.filter(date__year=y).count() for y in range(2021, 2025)}  # fmt: skip
    assert chart_rows(client, url, "symptoms") == {"latency": 3, "errors": 1, "data-loss": 1}
    html = page(client, url).content.decode()
    assert "For the 4 cases of this selection." in html


def test_bars_link_to_the_cases_they_count(client, library):
    html = page(client, "/stats/?domain=storage").content.decode()
    assert 'href="/cases/?domain=storage&amp;year_from=2023&amp;year_to=2023"' in html
    assert 'href="/taxonomy/symptoms/latency/?domain=storage"' in html
    assert 'href="/orgs/globex/?domain=storage"' in html
    # Following a symptom's bar gives exactly the cases it counts.
    listed = page(client, "/taxonomy/symptoms/latency/?domain=storage").content.decode()
    assert re.findall(r'class="case-title" href="/cases/([^"?]+)"', listed) == ["A-5"]


def test_the_charts_are_accessible_svg_with_their_numbers(client, library):
    html = page(client, "/stats/").content.decode()
    assert html.count("<svg") == 8
    assert (
        '<figure class="chart" id="chart-years"' in html and "<title>Cases per year</title>" in html
    )
    assert html.count('<details class="chart-numbers">') == 8
    assert 'href="/stats/years.csv?lang=en"' in html
    assert "<script>alert" not in html and "&lt;script&gt;alert(&quot;org&quot;)" in html


def test_statistics_in_korean(client, library):
    html = page(client, "/stats/?lang=ko").content.decode()
    assert '<html lang="ko">' in html and "통계" in html and "지연" in html
    response = page(client, "/stats/symptoms.csv?lang=ko")
    assert "latency,지연,3" in response.content.decode("utf-8-sig")


def test_bad_parameters_are_refused(client, library):
    page(client, "/stats/?domain=nope", status=400)
    page(client, "/stats/nope.csv", status=404)
    page(client, "/stats/years.csv?severity=nope", status=400)


def test_the_list_links_to_its_statistics(client, library):
    html = page(client, "/cases/?domain=web").content.decode()
    assert 'href="/stats/?domain=web"' in html


def test_stats_run_a_fixed_number_of_queries(client, library, django_assert_max_num_queries):
    """Queries: the library's state; the taxonomy terms; the facet counts of the selection (the
    library's, cached, when nothing is chosen); years and durations; with `org`, the
    organisations it names."""
    for url in ["/stats/", "/stats/?domain=web&q=incident&year_from=2020", "/stats/years.csv"]:
        with django_assert_max_num_queries(4):
            page(client, url)
    with django_assert_max_num_queries(5):
        page(client, "/stats/?org=acme&lang=ko")
