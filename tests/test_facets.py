"""The list's facets: beside every filter value, how many cases choosing it would give; the
sidebar shows each facet's first values with most cases and a "more" control, a "Filters (n)"
control first in the page for a phone, readable greyed values, and organisations in the order
a reader expects, in both languages."""

import re
from pathlib import Path

import pytest

from .library import facet_counts, listed_ids, plain_case, six_cases, store

pytestmark = pytest.mark.django_db


@pytest.fixture
def library(tmp_path):
    store(tmp_path, *six_cases())


def test_counts_without_a_selection_are_the_cases_having_each_value(client, library):
    # Counted by hand from the table in tests/library.py.
    assert facet_counts(client.get("/cases/").content.decode()) == {
        "domain=web": 2, "domain=ml": 2, "domain=storage": 2, "domain=network": 1,
        "symptoms=errors": 3, "symptoms=latency": 3, "symptoms=data-loss": 1,
        "components=database": 2, "components=cache": 2, "components=dns": 2,
        "components=gpu": 1,
        "root_cause=config": 2, "root_cause=capacity": 2, "root_cause=bug": 1,
        "root_cause=dependency": 1,
        "contributing=change-mgmt": 2, "contributing=monitoring-gap": 2,
        "severity=critical": 2, "severity=high": 2, "severity=medium": 1, "severity=low": 1,
        "org=acme": 2, "org=globex": 2, "org=initech": 2,
        "reviewed=yes": 3, "reviewed=no": 3,
    }  # fmt: skip


def test_counts_for_a_selection_match_a_hand_count(client, library):
    # symptoms=errors and severity critical or high.
    html = client.get("/cases/?symptoms=errors&severity=critical&severity=high").content.decode()
    assert listed_ids(html) == ["A-6", "A-3", "A-1"]
    assert facet_counts(html) == {
        # Facets not in use: how many of the three have the value.
        "domain=web": 1, "domain=ml": 1, "domain=network": 1, "domain=storage": 0,
        "components=database": 1, "components=gpu": 1, "components=dns": 1,
        "components=cache": 0,
        "root_cause=config": 1, "root_cause=capacity": 1, "root_cause=dependency": 1,
        "root_cause=bug": 0,
        "contributing=change-mgmt": 1, "contributing=monitoring-gap": 2,
        "org=acme": 1, "org=globex": 1, "org=initech": 1,
        "reviewed=yes": 2, "reviewed=no": 1,
        # symptoms in use: errors is chosen (3 have it); adding data-loss brings in A-4
        # (critical, data-loss); adding latency brings in nothing new (A-3 is already in).
        "symptoms=errors": 3, "symptoms=latency": 3, "symptoms=data-loss": 4,
        # severity in use: the chosen ones count their cases; adding medium or low brings in
        # nothing, since have no errors.
        "severity=critical": 1, "severity=high": 2, "severity=medium": 3, "severity=low": 3,
    }  # fmt: skip


@pytest.mark.parametrize(
    "query",
    ["", "?symptoms=errors&severity=critical&severity=high", "?org=acme&domain=ml",
     "?reviewed=no&components=dns", "?q=failed&year_from=2022&contributing=change-mgmt",
     "?org=acme&org=globex&reviewed=yes&severity=high&severity=critical&symptoms=errors"],
)  # fmt: skip
def test_following_a_value_gives_as_many_cases_as_its_count(client, library, query):
    html = client.get(f"/cases/{query}").content.decode()
    sidebar = html.split('class="facets"')[1]
    links = re.findall(
        r'data-value="([^"]+)"><a href="([^"]+)" rel="nofollow">.*?<span class="count"[^>]*>(\d+)',
        sidebar,
        re.S,
    )
    assert links
    for value, href, count in links:
        followed = client.get(href.replace("&amp;", "&")).content.decode()
        shown = re.search(r'id="result-count">(\d+) case', followed).group(1)
        assert shown == count, (value, href)


def test_values_that_would_give_nothing_are_shown_as_such(client, library):
    # A-6, the only network case, has dns; no case would be left with gpu or cache.
    html = client.get("/cases/?domain=network").content.decode()
    for value in ("components=gpu", "components=cache"):
        shown = re.search(rf'<li class="facet-value empty" data-value="{value}">(.*?)</li>', html)
        assert shown and "<a " not in shown.group(1) and ">0</span>" in shown.group(1)
    assert 'data-value="components=dns"><a href=' in html


def test_chosen_values_are_marked_and_their_link_removes_them(client, library):
    html = client.get("/cases/?org=acme&org=globex").content.decode()
    chosen = re.search(
        r'<li class="facet-value chosen" data-value="org=acme"><a href="([^"]+)"', html
    )
    assert chosen.group(1) == "/cases/?org=globex"
    assert 'aria-current="true"' in html.split('data-value="org=acme"')[1].split("</li>")[0]


def test_with_drafts_hidden_counts_leave_drafts_out(client, library, settings):
    settings.INCIDENTLIB_HIDE_DRAFTS = True
    # Only are reviewed.
    html = client.get("/cases/").content.decode()
    assert listed_ids(html) == ["A-5", "A-3", "A-1"]
    counts = facet_counts(html)
    assert counts["severity=critical"] == 1 and counts["domain=storage"] == 1
    # A term only drafts have is not shown at all (network: A-6's alone).
    assert "domain=network" not in counts and "org=acme" in counts and counts["org=acme"] == 1
    assert not any(key.startswith("reviewed=") for key in counts)
    home = client.get("/").content.decode()
    assert "The library holds 3 cases." in home


def test_counts_with_as_many_parameters_as_the_mask_holds_and_no_more(library):
    """Each case's key and the parameters it meets are grouped as one number: with every bit
    of the mask in use the keys come out whole, and a parameter more is refused, not miscounted."""
    from django.db.models import Q

    from cases.listing.facet_counts import MASK_BITS, count_facets
    from cases.models import Case, Term

    cases, terms, always = Case.objects.published(), Term.objects.index(), Q(id__isnull=False)
    alone = count_facets(cases, terms)
    full = count_facets(cases, terms, {f"p{bit}": always for bit in range(MASK_BITS)})
    assert (full.total, full.rows) == (alone.total, alone.rows) and alone.total == 6
    with pytest.raises(ValueError, match="at most 16"):
        count_facets(cases, terms, {f"p{bit}": always for bit in range(MASK_BITS + 1)})


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
