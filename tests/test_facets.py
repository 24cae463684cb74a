"""Facet counts: beside every filter value, how many cases choosing it would give."""

import re

import pytest

from .library import facet_counts, listed_ids, six_cases, store

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
