"""Every kind of answer carries the Content Security Policy (no inline script, no other
origin) and X-Content-Type-Options, static files included."""

import pytest
from django.test import Client

from .conftest import change_url, make_staff
from .library import REVIEWED, plain_case, six_cases, store

pytestmark = pytest.mark.django_db

PAGES = [
    "/",
    "/cases/",
    "/cases/?q=failed",
    "/cases/A-1",
    "/cases/A-1.json",
    "/taxonomy/",
    "/taxonomy/domain/web/",
    "/orgs/",
    "/orgs/acme/",
    "/sources/?url=https://example.com/a",
    "/feed/",
    "/sitemap.xml",
    "/sitemap-cases.xml",
    "/robots.txt",
    "/api/cases/",
    "/api/cases.jsonl",
    "/api/taxonomy/",
    "/api/nothing",
    "/cases/NOPE-1",
    "/cases/?q=%00",
    "/cases/?severity=bogus",
    "/healthz",
    "/readyz",
    "/admin/login/",
]


@pytest.fixture
def library(tmp_path):
    source = {"url": "https://example.com/a", "kind": "blog", "license": None, "archived": None}
    store(tmp_path, *six_cases(), plain_case("A-7", sources=[source], review=REVIEWED))


def policy(response):
    return dict(
        (part.strip().split(" ", 1) + [""])[:2]
        for part in response["Content-Security-Policy"].split(";")
        if part.strip()
    )


def assert_protected(response):
    directives = policy(response)
    assert directives["default-src"] == "'self'"
    assert directives["script-src"] == "'self'" and directives["style-src"] == "'self'"
    assert directives["object-src"] == "'none'" and directives["frame-ancestors"] == "'none'"
    assert "unsafe-inline" not in response["Content-Security-Policy"]
    assert "http" not in response["Content-Security-Policy"]  # no outside origin
    assert response["X-Content-Type-Options"] == "nosniff"


@pytest.mark.parametrize("path", PAGES)
def test_every_page_kind_sends_the_policy(library, path):
    response = Client().get(path)
    assert response.status_code < 500
    assert_protected(response)


def test_admin_pages_send_the_policy(library):
    client = Client()
    client.force_login(make_staff("rita", reviewer=True))
    for path in ["/admin/", "/admin/cases/case/", change_url("A-1"), "/admin/password_change/"]:
        response = client.get(path)
        assert response.status_code == 200, path
        assert_protected(response)


def test_the_locked_out_page_sends_the_policy(library, settings):
    settings.AXES_FAILURE_LIMIT = 1
    client = Client()
    client.post("/admin/login/", {"username": "x", "password": "y"})
    locked = client.post("/admin/login/", {"username": "x", "password": "y"})
    assert locked.status_code == 429
    assert_protected(locked)


def test_static_files_send_the_policy_and_nosniff(settings):
    settings.WHITENOISE_USE_FINDERS = True
    settings.WHITENOISE_AUTOREFRESH = True
    response = Client().get("/static/admin/js/core.js")
    assert response.status_code == 200
    assert_protected(response)
