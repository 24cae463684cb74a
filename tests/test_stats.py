"""/stats/: the charts of a selection against direct counts, their links and their CSV."""

import csv
import io
import re

import pytest

from cases.discover.stats import CHART_SLUGS
from cases.models import Case, Term

from .library import SEARCH_QUERIES, six_cases, store

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
    # Kinds of fix: A-1 rolled back (twice), A-2 rolled back and added capacity, A-4 added
    # capacity, A-5 a step of no kind.
    kinds = {"A-1": ["roll-back", "roll-back"], "A-2": ["roll-back", "add-capacity"],
             "A-4": ["add-capacity"], "A-5": [None]}  # fmt: skip
    for case in cases:
        case["remediation"] = [
            {"text": {"en": "A step", "ko": None}, **({"kind": kind} if kind else {})}
            for kind in kinds.get(case["id"], [])
        ]
    store(tmp_path, *cases)
    Term.objects.filter(slug="latency").update(label_ko="지연")
    Term.objects.filter(facet="fix", slug="roll-back").update(label_en="Roll back", label_ko="롤백")


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
    fixes = chart_rows(client, "/stats/", "fix")
    for slug, count in fixes.items():
        assert count == cases.filter(remediation_steps__kind__slug=slug).distinct().count()
    assert fixes == {"roll-back": 2, "add-capacity": 2}
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


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("en", "Filtered by: Domain: <span>Ml</span> or <span>Storage</span>; "
               "Severity: <span>High</span>.</span> <span>Search: “&lt;b&gt;disk”."),
        ("ko", "적용한 필터: 분야: <span lang=\"en\">Ml</span> 또는 "
               "<span lang=\"en\">Storage</span>; 심각도: <span lang=\"en\">High</span>.</span> "
               "<span>검색: “&lt;b&gt;disk”."),
    ],
)  # fmt: skip
def test_the_statistics_of_a_selection_name_it(client, library, lang, said):
    url = f"/stats/?domain=ml&domain=storage&severity=high&q=%3Cb%3Edisk&lang={lang}"
    html = page(client, url).content.decode()
    start = html.index('<p class="stats-selection">')
    assert said in " ".join(html[start : html.index("</p>", start)].split())
    assert 'class="stats-selection"' not in page(client, f"/stats/?lang={lang}").content.decode()


def test_bars_link_to_the_cases_they_count(client, library):
    html = page(client, "/stats/?domain=storage").content.decode()
    assert 'href="/cases/?domain=storage&amp;year_from=2023&amp;year_to=2023"' in html
    assert 'href="/taxonomy/symptoms/latency/?domain=storage"' in html
    assert 'href="/orgs/globex/?domain=storage"' in html
    # Following a symptom's bar gives exactly the cases it counts.
    listed = page(client, "/taxonomy/symptoms/latency/?domain=storage").content.decode()
    assert re.findall(r'class="case-title" href="/cases/([^"?]+)"', listed) == ["A-5"]


def test_a_kind_of_fix_bar_links_to_the_cases_it_counts(client, library):
    html = page(client, "/stats/?domain=web").content.decode()
    assert 'href="/taxonomy/fix/roll-back/?domain=web"' in html
    listed = page(client, "/taxonomy/fix/roll-back/?domain=web").content.decode()
    assert sorted(re.findall(r'class="case-title" href="/cases/([^"?]+)"', listed)) == [
        "A-1",
        "A-2",
    ]
    assert chart_rows(client, "/stats/?domain=web", "fix") == {"roll-back": 2, "add-capacity": 1}


def duration_links(html, chart):
    """{bucket: (cases, link)} of the bars of a duration chart."""
    figure = html[html.index(f'id="chart-{chart}"') :]
    figure = figure[: figure.index("</ol>")]
    return {
        key: (int(count), link.replace("&amp;", "&"))
        for link, key, count in re.findall(
            r'<a class="bar-row" href="([^"]*_after=([a-z0-9-]+)[^"]*)".*?class="bar-count">(\d+)<',
            figure,
            re.S,
        )
    }


@pytest.mark.parametrize("selection", ["", "?domain=storage&domain=ml", "?year_from=2022&lang=ko"])
def test_each_duration_bar_links_to_the_cases_it_counts(client, library, selection):
    html = page(client, f"/stats/{selection}").content.decode()
    for chart, param in (("detect", "detected_after"), ("resolve", "resolved_after")):
        bars = duration_links(html, chart)
        counts = chart_rows(client, f"/stats/{selection}", chart)
        # Every bar with cases is a link; a bar of none is not.
        assert bars.keys() == {key for key, cases in counts.items() if cases}, chart
        for key, (cases, link) in bars.items():
            assert cases == counts[key] and f"{param}={key}" in link
            assert link.startswith("/cases/?")
            listed = re.findall(
                r'class="case-title" href="/cases/([^"?]+)"', page(client, link).content.decode()
            )
            assert len(listed) == cases, (chart, key, link)
            api = link.replace("/cases/", "/api/cases/", 1).replace("&lang=ko", "")
            assert page(client, api).json()["total"] == cases


def test_the_charts_are_html_text_with_their_numbers(client, library):
    html = page(client, "/stats/").content.decode()
    # A list, said to be one even with its markers hidden (Safari and VoiceOver).
    assert html.count('<ol class="bar-list" role="list"') == 9
    assert '<figure class="chart" id="chart-years"' in html
    assert '<h2 id="chart-years-title">Cases per year</h2>' in html
    assert '<ol class="bar-list" role="list" aria-labelledby="chart-years-title">' in html
    # Each bar's label and count are text, the bar an SVG rectangle of its share of the longest.
    assert re.search(
        r'<a class="bar-row" href="/taxonomy/symptoms/latency/">\s*'
        r'<span class="bar-label">Latency</span>\s*'
        r'<span class="bar-count">3</span><span class="visually-hidden"> cases</span>\s*'
        r'<svg class="bar" aria-hidden="true"[^>]*><rect width="100.0%"',
        html,
    )
    assert re.search(
        r'<span class="bar-label">Data loss</span>\s*'
        r'<span class="bar-count">1</span><span class="visually-hidden"> case</span>\s*'
        r'<svg[^>]*><rect width="33.3%"',
        html,
    )
    # A year without cases is a row of no link and no length.
    assert re.search(
        r'<span class="bar-row">\s*<span class="bar-label">2020</span>\s*'
        r'<span class="bar-count">0</span>\s*<svg[^>]*><rect width="0.0%"',
        html,
    )
    assert html.count('<details class="chart-numbers">') == 9
    assert 'href="/stats/fix.csv?lang=en"' in html and 'href="/stats/years.csv?lang=en"' in html
    assert "<script>alert" not in html
    assert (
        '<span class="bar-label">&lt;script&gt;alert(&quot;org&quot;)&lt;/script&gt;</span>' in html
    )


def test_statistics_in_korean(client, library):
    html = page(client, "/stats/?lang=ko").content.decode()
    assert '<html lang="ko">' in html and "통계" in html and "지연" in html
    response = page(client, "/stats/symptoms.csv?lang=ko")
    assert "latency,지연,3" in response.content.decode("utf-8-sig")
    assert "조치 유형별 사례 수" in html and "롤백" in html
    assert "roll-back,롤백,2" in page(client, "/stats/fix.csv?lang=ko").content.decode("utf-8-sig")


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
    for url in [
        "/stats/",
        "/stats/?domain=web&q=incident&year_from=2020",
        "/stats/years.csv",
        "/stats/?detected_after=1h-4h&fix=roll-back",
        "/stats/fix.csv?resolved_after=unknown",
    ]:
        # A search adds its own (tests/library.py).
        with django_assert_max_num_queries(4 + (SEARCH_QUERIES if "q=" in url else 0)):
            page(client, url)
    with django_assert_max_num_queries(5):
        page(client, "/stats/?org=acme&lang=ko")


@pytest.mark.django_db(transaction=True)
def test_stats_and_diagnose_are_cached_and_never_stale_after_a_write(client, library):
    from cases.models import RemediationStep

    urls = [
        "/stats/",
        "/stats/fix.csv",
        "/diagnose/?symptoms=errors",
        "/cases/?detected_after=1h-4h",
    ]
    for url in urls:
        assert (page(client, url)["X-Cache"], page(client, url)["X-Cache"]) == ("miss", "hit")
    # A-3 (errors, detected after 2 h) gets a step rolled back; A-2 is detected after 45 min.
    RemediationStep.objects.create(
        case_id="A-3", position=0, text_en="Rolled back",
        kind=Term.objects.get(facet="fix", slug="roll-back"),
    )  # fmt: skip
    Case.objects.filter(id="A-2").update(detected_after="PT3H")
    assert chart_rows(client, "/stats/", "fix")["roll-back"] == 3
    diagnosis = page(client, "/diagnose/?symptoms=errors").content.decode()
    assert re.search(r'fix=roll-back"[^>]*>Roll back</a> <span class="count">2</span>', diagnosis)
    listed = page(client, "/cases/?detected_after=1h-4h").content.decode()
    assert sorted(re.findall(r'class="case-title" href="/cases/([^"?]+)"', listed)) == [
        "A-2",
        "A-3",
    ]


def test_refused_parameters_are_named_in_the_readers_language(client, library):
    """A refused parameter is named as the case list names it, never by its raw name (an
    English word on a Korean page), with its value and a link that drops it."""
    html = page(client, "/stats/?lang=ko&symptoms=nope&year_from=abc&sort=x", status=400)
    html = html.content.decode()
    errors = html[html.index('class="filter-errors"') : html.index("</section>")]
    assert "<strong>증상</strong> (nope)" in errors
    assert "<strong>시작 연도</strong> (abc)" in errors
    assert "<strong>정렬 기준</strong> (x)" in errors
    for raw in ("symptoms", "year_from", "sort"):
        assert f"<strong>{raw}</strong>" not in errors
    assert 'href="/stats/?year_from=abc">이 필터 빼기</a>' in errors
    assert 'href="/stats/?symptoms=nope">이 필터 빼기</a>' in errors
    html = page(client, "/stats/?lang=en&symptoms=nope", status=400).content.decode()
    assert "<strong>Symptoms</strong> (nope)" in html


# What a spreadsheet would run as a formula, one of each start OWASP names.
FORMULAS = ['=HYPERLINK("https://evil.example/","Click")', "+1+1", "-2+3", "@SUM(1,2)",
            "\t=1+1", "\r=1+1"]  # fmt: skip


def test_no_cell_of_any_csv_is_a_formula(client, library):
    """Organisation names and term labels that a spreadsheet would run (issue 33, point 9)
    are written with a quote before them, as OWASP recommends: every chart's CSV, in both
    languages, read back by a real CSV reader, has no cell that begins a formula."""
    from cases.models import Organisation

    for number, term in enumerate(Term.objects.order_by("facet", "slug")):
        formula = FORMULAS[number % len(FORMULAS)]
        Term.objects.filter(pk=term.pk).update(label_en=formula, label_ko=formula)
    for number, organisation in enumerate(Organisation.objects.order_by("slug")):
        Organisation.objects.filter(pk=organisation.pk).update(name=FORMULAS[number])
    neutralised = {"'" + formula for formula in FORMULAS}
    for chart in CHART_SLUGS:
        for lang in ("en", "ko"):
            response = page(client, f"/stats/{chart}.csv?lang={lang}")
            rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
            assert len(rows) > 1, chart
            cells = [cell for row in rows for cell in row]
            assert not [c for c in cells if c.startswith(("=", "+", "-", "@", "\t", "\r"))], (
                chart,
                lang,
            )
            if chart not in ("years", "detect", "resolve"):  # the others' labels are ours
                assert {row[1] for row in rows[1:]} & neutralised, (chart, lang)
