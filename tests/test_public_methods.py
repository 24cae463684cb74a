"""Public pages only read: GET and HEAD. Any other method is a 405 naming those two (the API's
in JSON), and, having written nothing, sets no cookie (`incidentlib_wrote` would send the
client's next reads to the primary)."""

import pytest

from .library import six_cases, store

pytestmark = pytest.mark.django_db

PUBLIC = [
    "/",
    "/cases/",
    "/cases/A-1",
    "/cases/A-1.json",
    "/cases/A-1.bib",
    "/diagnose/",
    "/stats/",
    "/stats/severity.csv",
    "/taxonomy/",
    "/taxonomy/domain/web/",
    "/orgs/",
    "/orgs/acme/",
    "/sources/",
    "/feed/",
    "/sitemap.xml",
    "/sitemap-cases.xml",
    "/robots.txt",
    "/api/cases/",
    "/api/taxonomy/",
]


@pytest.fixture
def library(tmp_path):
    store(tmp_path, *six_cases())


@pytest.mark.parametrize("path", PUBLIC)
@pytest.mark.parametrize("method", ["TRACE", "OPTIONS", "POST", "DELETE"])
def test_a_method_other_than_get_and_head_is_a_405_without_a_cookie(client, library, path, method):
    response = client.generic(method, path)
    assert response.status_code == 405
    assert response["Allow"] == "GET, HEAD"
    assert not response.cookies, response.cookies
