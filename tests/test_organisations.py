"""/orgs/ and /orgs/<slug>/: the organisations with their cases."""

import pytest

from .library import listed_ids, six_cases, store

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


def test_an_unknown_organisation_is_not_found(client, library):
    assert client.get("/orgs/hooli/").status_code == 404
