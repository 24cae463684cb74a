"""/orgs/ and /orgs/<slug>/: the organisations with their cases."""

import pytest

from .library import facet_counts, listed_ids, six_cases, store

pytestmark = pytest.mark.django_db


@pytest.fixture
def library(tmp_path):
    store(tmp_path, *six_cases())


def test_the_organisations_are_listed_by_name_with_their_counts(client, library):
    html = client.get("/orgs/").content.decode()
    listing = html.split('class="organisation-list"')[1].split("</ul>")[0]
    assert listing.index("Acme") < listing.index("Globex") < listing.index("Initech")
    assert '<a href="/orgs/globex/">Globex</a> <span class="count">2 cases</span>' in listing


def test_an_organisation_page_lists_its_cases(client, library):
    html = client.get("/orgs/initech/").content.decode()
    assert "<h1>Initech</h1>" in html
    assert listed_ids(html) == ["A-6", "A-5"]
    assert listed_ids(client.get("/orgs/initech/?severity=low").content.decode()) == ["A-5"]


def test_the_query_string_narrows_an_organisation_page_and_never_adds_other_cases(client, library):
    html = client.get("/orgs/initech/?org=acme").content.decode()
    assert "<h1>Initech</h1>" in html
    assert listed_ids(html) == []
    counts = facet_counts(html)
    assert counts["org=initech"] == 2 and counts["org=acme"] == 0
    assert "org=globex" not in counts
    empty = html.split('class="empty-state"')[1].split("</div>")[0]
    assert 'href="/cases/?org=acme">Remove “Organisation: Initech”</a>' in empty
    assert 'href="/orgs/initech/">Remove “Organisation: Acme”</a> (2 cases)' in empty
    assert listed_ids(client.get("/orgs/initech/?org=initech").content.decode()) == ["A-6", "A-5"]
    html = client.get("/orgs/initech/?symptoms=errors").content.decode()
    assert listed_ids(html) == ["A-6"]
    assert facet_counts(html)["symptoms=latency"] == 2  # errors or latency


def test_an_unknown_organisation_is_not_found(client, library):
    assert client.get("/orgs/hooli/").status_code == 404
