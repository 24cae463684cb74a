"""/sources/?url=...: every case citing one source; a case page links there for shared sources."""

import pytest
from django.utils.html import escape

from .library import plain_case, store

pytestmark = pytest.mark.django_db

SHARED = "https://example.com/report?part=1&lang=en"
OWN = "https://example.com/only-one"


def source(url):
    return {"url": url, "kind": "report", "license": None, "archived": None}


@pytest.fixture
def library(tmp_path):
    store(
        tmp_path,
        plain_case("S-1", date="2024-01-01", sources=[source(SHARED), source(OWN)]),
        plain_case("S-2", date="2025-01-01", sources=[source(SHARED)]),
        plain_case("S-3", date="2023-01-01"),
    )


def test_the_sources_page_lists_every_case_citing_the_address(client, library):
    response = client.get("/sources/", {"url": SHARED})
    html = response.content.decode()
    assert response.status_code == 200
    assert "2 cases cite this address." in html
    assert html.index('href="/cases/S-2"') < html.index('href="/cases/S-1"')
    assert 'href="/cases/S-3"' not in html


def test_an_address_no_case_cites_says_so(client, library):
    url = "https://example.com/cited-by-no-case"
    assert "No case cites this address." in client.get("/sources/", {"url": url}).content.decode()
    korean = client.get("/sources/", {"url": url, "lang": "ko"}).content.decode()
    assert "이 주소를 인용한 사례가 없습니다." in korean and "0건" not in korean


def test_a_source_cited_by_several_cases_links_to_them_from_the_case_page(client, library):
    html = client.get("/cases/S-1").content.decode()
    sources = html.split('id="sources"')[1].split("</section>")[0]
    link = "/sources/?url=https%3A%2F%2Fexample.com%2Freport%3Fpart%3D1%26lang%3Den"
    assert f'href="{link}">cited by 2 cases</a>' in sources
    assert sources.count("cited by") == 1  # the address only S-1 cites has no such link
    assert "2 cases cite this address." in client.get(link).content.decode()


@pytest.mark.parametrize(
    ("language", "ask"),
    [
        ("en", "Give the address of a source to see every case that cites it."),
        ("ko", "출처 주소를 입력하면 그 주소를 인용한 사례를 모두 보여 줍니다."),
    ],
)
def test_the_sources_page_without_an_address_asks_for_one(client, library, language, ask):
    response = client.get("/sources/", {"lang": language})
    assert response.status_code == 200  # a form to fill in, not a mistake
    html = response.content.decode()
    assert 'name="url"' in html and ask in html
    assert 'role="alert"' not in html


@pytest.mark.parametrize(
    "url",
    ["javascript:alert(document.cookie)", "JavaScript:alert(1)", "data:text/html,x", "ftp://x"],
)
def test_an_address_that_is_not_http_is_never_linked_and_gets_a_400(client, library, url):
    response = client.get("/sources/", {"url": url})
    assert response.status_code == 400
    html = response.content.decode()
    problem = html.split('role="alert"')[1].split("</section>")[0]
    assert "is not the address of a source." in problem
    assert "Enter an http:// or https:// address without spaces." in problem
    assert f'href="{url}' not in html and 'href="javascript:' not in html.lower()
    assert 'name="url"' in html  # the form to give another address, the refused one in it
    assert f'value="{escape(url)}"'.lower() in html.lower()  # its scheme in small letters


def test_the_problem_with_an_address_is_said_in_korean(client, library):
    response = client.get("/sources/", {"url": "javascript:alert(1)", "lang": "ko"})
    assert response.status_code == 400
    html = response.content.decode()
    assert "출처 주소가 아닙니다: “javascript:alert(1)”" in html
    assert "공백 없는 http:// 또는 https:// 주소를 입력하세요." in html


@pytest.mark.parametrize(
    "pasted",
    [
        "https://example.com/only-one/",
        "https://Example.COM/only-one",
        "HTTPS://example.com/only-one",
        "https://EXAMPLE.com/only-one/",
    ],
)
def test_an_address_pasted_with_a_trailing_slash_or_capitals_finds_its_cases(
    client, library, pasted
):
    """The host and scheme are case-blind, and a page with and without its last slash is
    one page for a reader; the path's own letters are not (a server may tell them apart)."""
    html = client.get("/sources/", {"url": pasted}).content.decode()
    assert "1 case cites this address." in html and 'href="/cases/S-1"' in html
    other = client.get("/sources/", {"url": "https://example.com/ONLY-ONE"}).content.decode()
    assert "No case cites this address." in other


@pytest.mark.parametrize("url", ["https://[zz]/", "http://[", "https://[::1/"])
def test_an_address_whose_host_cannot_be_read_is_a_400(client, library, url):
    response = client.get("/sources/", {"url": url})
    assert response.status_code == 400
    assert "brackets must hold an IP address" in response.content.decode()
