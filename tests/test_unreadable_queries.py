"""Bad input on public pages is refused by us, never a crash: a NUL or bytes that are not
UTF-8 in a query string get a 400 naming the parameter; absurd page numbers a 400 or 404;
and a fuzz of every list page's query string gives no 5xx."""

from urllib.parse import quote_from_bytes

import pytest
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .conftest import make_staff
from .library import six_cases, store

pytestmark = pytest.mark.django_db

PAGES = ["/", "/cases/", "/feed/", "/sources/", "/taxonomy/domain/web/", "/orgs/acme/"]
API = ["/api/cases/", "/api/taxonomy/", "/api/cases.jsonl"]
HUGE = "9" * 5000


@pytest.fixture
def library(tmp_path):
    store(tmp_path, *six_cases())


@pytest.mark.parametrize("path", PAGES + API)
@pytest.mark.parametrize(
    ("query", "name"),
    [
        ("url=http://x%00y", "url"),
        ("q=a%00b", "q"),
        ("severity=high&org=%ED%A0%80", "org"),  # a lone surrogate, written as UTF-8
        ("q=%FF%FE", "q"),
        ("bad%00name=1", "bad\x00name"),
    ],
)
def test_a_nul_or_a_surrogate_in_a_query_is_a_400_naming_it(client, library, path, query, name):
    response = client.get(f"{path}?{query}")
    assert response.status_code == 400
    assert "no-store" in response["Cache-Control"]
    if path.startswith("/api/"):
        assert list(response.json()["parameters"]) == [name]
    else:
        assert response["Content-Type"].startswith("text/html")
        page = response.content.decode()
        assert '<html lang="en">' in page and "Bad request" in page
        if "\x00" not in name:
            assert f"<code>{name}</code>" in page


@pytest.mark.parametrize(
    "asked", [{"QUERY_STRING": "q=a%00b&lang=ko"}, {"HTTP_ACCEPT_LANGUAGE": "ko"}]
)
def test_the_400_for_an_unreadable_query_is_in_the_readers_language(client, library, asked):
    query = asked.pop("QUERY_STRING", "q=a%00b")
    page = client.get(f"/cases/?{query}", **asked).content.decode()
    assert '<html lang="ko">' in page and "잘못된 요청" in page
    assert "여기에는 NUL 문자를 쓸 수 없습니다." in page and "Bad request" not in page
    api = client.get(f"/api/cases/?{query}", **asked).json()
    assert api["error"] == "올바르지 않은 매개변수가 있습니다.", api


def test_the_sources_page_with_a_nul_in_its_address_is_a_400(client, library):
    response = client.get("/sources/?url=http://x%00y")
    assert response.status_code == 400 and "<code>url</code>" in response.content.decode()


def test_the_admin_refuses_a_nul_in_its_search_too(client, library):
    client.force_login(make_staff("ed"))
    assert client.get("/admin/cases/case/?q=%00").status_code == 400


@pytest.mark.parametrize(
    ("url", "statuses"),
    [
        (f"/api/cases/?page={HUGE}", {404}),
        (f"/api/cases/?per_page={HUGE}", {400}),
        (f"/api/cases/?page=1{'0' * 18}", {400, 404}),
        (f"/cases/?page={HUGE}", {400, 404}),
        (f"/orgs/acme/?page={HUGE}", {400, 404}),
        (f"/taxonomy/domain/web/?page={HUGE}", {400, 404}),
        (f"/sources/?url=https://example.com/&page={HUGE}", {400, 404}),
        (f"/cases/?year_from={HUGE}", {400}),
    ],
)
def test_a_page_number_of_five_thousand_digits_is_refused(client, library, url, statuses):
    assert client.get(url).status_code in statuses


# The fuzz ---------------------------------------------------------------------------------

NAMES = [
    "q", "page", "per_page", "sort", "org", "domain", "symptoms", "components", "root_cause",
    "contributing", "severity", "reviewed", "year_from", "year_to", "updated_since", "url",
    "lang", "p",
]  # fmt: skip
VALUES = [
    "", "1", "0", "-1", "high", "acme", "web", "yes", "2021", "2026-01-01T00:00:00Z", "ko",
    "https://example.com/", "relevance", "updated", "IL-0137", '"a b" -c or d', HUGE[:30],
]  # fmt: skip
raw_text = st.binary(max_size=12)
names = st.one_of(st.sampled_from(NAMES), raw_text.map(lambda b: quote_from_bytes(b)))
# Dangerous pieces, written into a valid value: NUL, a lone surrogate, bytes that are not
# UTF-8, quotes, a line break, a plus, many digits.
NASTY = ["%00", "%ED%A0%80", "%FF", "%25", "'", "%22", "+", "%0A", "%E2%80%A8", "9" * 50]
spoiled = st.builds(
    lambda value, piece, at: value[:at] + piece + value[at:],
    st.sampled_from(VALUES).map(lambda v: quote_from_bytes(v.encode())),
    st.sampled_from(NASTY),
    st.integers(0, 30),
)
values = st.one_of(
    st.sampled_from(VALUES),
    spoiled,
    raw_text.map(quote_from_bytes),
    st.text(max_size=12).map(lambda t: quote_from_bytes(t.encode("utf-8", "surrogatepass"))),
)
queries = st.lists(st.tuples(st.sampled_from(NAMES).map(str) | names, values), max_size=5).map(
    lambda pairs: "&".join(f"{name}={value}" for name, value in pairs)
)


@pytest.mark.parametrize("path", [*PAGES, *API[:2], "/stats/", "/stats/severity.csv", "/diagnose/"])
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(query=queries)
def test_no_query_string_makes_a_page_fail(library, path, query):
    response = Client().get(path, QUERY_STRING=query)
    assert response.status_code < 500, (path, query)


def test_a_host_not_allowed_is_a_400_not_a_500(client, library, settings):
    """The 400 page's language links asked for the request's absolute address, which
    raised DisallowedHost again: every such request was a 500."""
    settings.ALLOWED_HOSTS = ["testserver"]
    settings.DEBUG = False
    response = client.get("/", HTTP_HOST="evil.example")
    assert response.status_code == 400
