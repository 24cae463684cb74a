"""The list's sidebar as a reader meets it: the first values of each facet and a "more"
control, a "Filters (n)" control first in the page for a phone, readable greyed values,
and organisations in the order a reader expects, in both languages."""

import re
from pathlib import Path

import pytest

from .library import facet_counts, plain_case, six_cases, store

pytestmark = pytest.mark.django_db

COMPONENTS = ["database", "cache", "dns", "gpu", "queue", "kernel", "load-balancer"]


@pytest.fixture
def many_components(tmp_path):
    """Components used by 7, 6, ..., 1 cases: database most, load-balancer least."""
    cases = []
    for index in range(7):
        cases.append(
            plain_case(f"C-{index + 1}", components=COMPONENTS[: 7 - index], domain=["web"])
        )
    store(tmp_path, *cases)


def sidebar(html):
    return html.split('<aside class="facets"')[1].split("</aside>")[0]


def facet(html, param):
    groups = sidebar(html).split('<details class="facet" open>')[1:]
    return next(group for group in groups if f'data-value="{param}=' in group)


def values_in(html):
    return re.findall(r'data-value="[a-z_]+=([^"]+)"', html)


def test_a_facet_shows_its_first_values_with_most_cases_and_the_rest_behind_more(
    client, many_components
):
    components = facet(client.get("/cases/").content.decode(), "components")
    first, more = components.split('<details class="facet-more-values">')
    assert values_in(first) == COMPONENTS[:5]
    assert values_in(more) == COMPONENTS[5:]
    assert "<summary>2 more</summary>" in more


def test_values_with_no_cases_are_behind_more_after_the_others(client, tmp_path, many_components):
    store(tmp_path, plain_case("S-1", domain=["storage"], components=["dns"]), name="s.json")
    html = client.get("/cases/?domain=storage").content.decode()
    first, more = facet(html, "components").split('<details class="facet-more-values">')
    assert values_in(first) == ["dns"]
    # By name: they have no cases to be ordered by.
    assert values_in(more) == ["cache", "database", "gpu", "kernel", "load-balancer", "queue"]
    assert more.count('class="facet-value empty"') == 6
    # Counts are still given for every value, as before.
    assert facet_counts(html)["components=load-balancer"] == 0

    html = client.get("/cases/?components=kernel").content.decode()
    first, more = facet(html, "components").split('<details class="facet-more-values">')
    # kernel, chosen, then the first five with cases; the rest behind "more".
    assert values_in(first) == ["kernel", "database", "cache", "dns", "gpu"]
    assert values_in(more) == ["queue", "load-balancer"]


def test_a_facet_with_few_values_has_no_more_control(client, tmp_path):
    store(tmp_path, *six_cases())
    domain = facet(client.get("/cases/").content.decode(), "domain")
    assert "facet-more-values" not in domain


@pytest.mark.parametrize(("lang", "label"), [("en", "Filters (2)"), ("ko", "필터 (2)")])
def test_the_filters_control_comes_before_the_results_and_counts_the_filters(
    client, tmp_path, lang, label
):
    store(tmp_path, *six_cases())
    html = client.get(f"/cases/?severity=high&domain=web&lang={lang}").content.decode()
    summary = f'<details class="filters">\n  <summary>{label}</summary>'
    assert summary in html
    assert html.index(summary) < html.index('class="results"') < html.index('class="case-list"')
    plain = client.get(f"/cases/?lang={lang}").content.decode()
    assert '<details class="filters">\n  <summary>' + ("Filters" if lang == "en" else "필터") in (
        plain
    )
    # The search is not a filter: the panel has nothing chosen to count.
    searched = client.get(f"/cases/?q=failed&severity=high&lang={lang}").content.decode()
    assert f"<summary>{label.replace('2', '1')}</summary>" in searched


def contrast(foreground, background="#ffffff"):
    def luminance(colour):
        channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    lighter, darker = sorted((luminance(foreground), luminance(background)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def test_greyed_values_and_muted_text_reach_4_5_to_1():
    css = (Path(__file__).resolve().parent.parent / "static/css/site.css").read_text()
    variables = dict(re.findall(r"--([a-z-]+): (#[0-9a-f]{6})", css))
    empty = re.search(r"\.facet-value\.empty \{ color: ([^;]+);", css).group(1)
    colour = variables[empty[len("var(--") : -1]] if empty.startswith("var(") else empty
    assert contrast(colour) >= 4.5
    assert contrast(variables["muted"]) >= 4.5


@pytest.fixture
def organisations(tmp_path):
    names = ["TUI Airways", "Tarsnap", "crates.io", "Zalando", "Éole", "카카오", "네이버", "Acme"]
    store(
        tmp_path,
        *[
            plain_case(f"O-{n}", org=name, org_slug=f"org-{n}")
            for n, name in enumerate(names, start=1)
        ],
    )


def listed_organisations(html):
    listing = html.split('<ul class="organisation-list">')[1].split("</ul>")[0]
    return re.findall(r'<a href="/orgs/[^"]+/">([^<]+)</a>', listing)


def test_organisations_are_listed_as_an_english_reader_expects(client, organisations):
    html = client.get("/orgs/?lang=en").content.decode()
    assert listed_organisations(html) == [
        "Acme", "crates.io", "Éole", "Tarsnap", "TUI Airways", "Zalando", "네이버", "카카오",
    ]  # fmt: skip


def test_organisations_are_listed_as_a_korean_reader_expects(client, organisations):
    html = client.get("/orgs/?lang=ko").content.decode()
    assert listed_organisations(html) == [
        "네이버", "카카오", "Acme", "crates.io", "Éole", "Tarsnap", "TUI Airways", "Zalando",
    ]  # fmt: skip
