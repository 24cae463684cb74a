"""Every browsing page in English and in Korean, its case text escaped, none needing JavaScript."""

import re
from html.parser import HTMLParser

import pytest

from cases.models import Term

from .library import six_cases, store

pytestmark = pytest.mark.django_db

SOURCE = "https://example.com/shared-report"

# page: (English interface text it shows, the same text in Korean)
PAGES = {
    "/": ("Explore by classification", "분류로 찾아보기"),
    "/cases/": ("Search the library", "라이브러리 검색"),
    "/cases/?q=failed&severity=high": ("Remove this filter", "이 필터 빼기"),
    "/cases/?severity=low&org=globex": (
        "No case matches all of these filters.",
        "이 필터를 모두 만족하는 사례가 없습니다.",
    ),
    "/cases/?severity=bogus": ("Some filters could not be used", "쓸 수 없는 필터가 있습니다"),
    "/taxonomy/": (
        "Every case is classified along these facets.",
        "모든 사례는 이 분류 축들로 분류됩니다.",
    ),
    "/taxonomy/components/dns/": ("Sort by:", "정렬:"),
    # A search box over a selection searches within it, and says so.
    "/taxonomy/components/dns/?year_from=2000": ("Search these cases", "이 사례들에서 검색"),
    "/orgs/": (
        "The organisations whose incidents the library holds.",
        "라이브러리에 장애 사례가 실린 조직들입니다.",
    ),
    "/orgs/acme/": ("Filters in use", "적용 중인 필터"),
    f"/sources/?url={SOURCE}": ("2 cases cite this address.", "사례 2건이 이 주소를 인용합니다."),
}

# Interface text that must not be left in English on a Korean page.
ENGLISH_INTERFACE = [
    "Search the library", "Search these cases",
    "Sort by", "Remove this filter", "Filters in use", "Filters",
    "cases you would get", "Explore by classification", "No case matches", "Recent cases",
    "Taxonomy", "Organisations", "From year", "Apply", "Start again", "Try removing",
    "cite this address", "Browse all cases",
]  # fmt: skip


@pytest.fixture
def library(tmp_path):
    cases = six_cases()
    for case in cases[:2]:
        case["sources"] = [{"url": SOURCE, "kind": "report", "license": None, "archived": None}]
    store(tmp_path, *cases)
    Term.objects.filter(facet="components", slug="dns").update(label_ko="도메인 이름 시스템")
    Term.objects.filter(facet="severity", slug="high").update(label_ko="높음")


def get(client, url, language):
    separator = "&" if "?" in url else "?"
    response = client.get(f"{url}{separator}lang={language}")
    assert response.status_code in (200, 400), (url, response.status_code)
    return response.content.decode()


@pytest.mark.parametrize("url", PAGES)
def test_every_page_is_in_english(client, library, url):
    html = get(client, url, "en")
    assert '<html lang="en">' in html
    assert PAGES[url][0] in html


@pytest.mark.parametrize("url", PAGES)
def test_every_page_is_in_korean(client, library, url):
    html = get(client, url, "ko")
    assert '<html lang="ko">' in html
    assert PAGES[url][1] in html
    for english in ENGLISH_INTERFACE:
        assert f">{english}" not in html and f'"{english}' not in html, english


@pytest.mark.parametrize("written", ["ko", "KO", "ko-KR", "ko_kr", " ko "])
def test_lang_is_read_as_a_reader_or_a_link_may_write_it(client, library, settings, written):
    response = client.get("/cases/", {"lang": written}, HTTP_ACCEPT_LANGUAGE="en")
    assert '<html lang="ko">' in response.content.decode()
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "ko"
    assert '<link rel="canonical" href="http://testserver/cases/?lang=ko">' in (
        response.content.decode()
    )


@pytest.mark.parametrize("written", ["zh", "k", "kor", "english", "x" * 600])
def test_a_lang_that_is_no_language_of_the_site_is_left_aside(client, library, settings, written):
    response = client.get("/cases/", {"lang": written}, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    assert '<html lang="en">' in response.content.decode()
    assert settings.LANGUAGE_COOKIE_NAME not in response.cookies


@pytest.mark.parametrize("url", PAGES)
def test_every_page_links_its_other_language(client, library, url):
    html = get(client, url, "en")
    assert '<link rel="alternate" hreflang="ko"' in html
    assert 'hreflang="ko" lang="ko">한국어</a>' in html


@pytest.mark.parametrize(
    ("language", "title"),
    [
        ("en", "Real incidents, read well · incidentlib"),
        ("ko", "실제 장애, 제대로 읽기 · incidentlib"),
    ],
)
def test_the_home_page_has_a_title_of_its_own(client, library, language, title):
    assert f"<title>{title}</title>" in get(client, "/", language)


def test_term_labels_are_korean_where_written_and_marked_english_where_not(client, library):
    html = get(client, "/cases/", "ko")
    sidebar = html.split('class="facets"')[1]
    dns = sidebar.split('data-value="components=dns"')[1].split("</li>")[0]
    assert "<span>도메인 이름 시스템</span>" in dns
    gpu = sidebar.split('data-value="components=gpu"')[1].split("</li>")[0]
    assert '<span lang="en">Gpu</span>' in gpu
    # A row's severity says what it is: "높음" alone could be anything high.
    assert '<span class="severity severity-high">심각도:&nbsp;<span>높음</span></span>' in html
    chips = get(client, "/cases/?severity=high&components=gpu", "ko").split('class="chips"')[1]
    assert "<span>높음</span>" in chips and '<span lang="en">Gpu</span>' in chips


def test_a_korean_title_is_shown_and_a_missing_one_falls_back_marked(client, tmp_path, library):
    from tests.library import plain_case

    store(tmp_path, plain_case("K-1", title={"en": "Only in English", "ko": None}), name="k.json")
    html = get(client, "/cases/", "ko")
    assert "<span>장애 하나</span>" in html
    row = html.split('href="/cases/K-1"')[1].split("</a>")[0]
    assert '<span lang="en" class="fallback">Only in English</span>' in row


@pytest.mark.parametrize(
    "url", ["/", "/cases/", "/cases/?q=alert", "/taxonomy/components/database/", "/orgs/evil/",
            "/feed/", "/sources/?url=https://example.com/x"],
)  # fmt: skip
def test_case_text_is_escaped_on_every_page(client, tmp_path, url):
    from tests.library import REVIEWED, plain_case

    store(
        tmp_path,
        plain_case(
            "X-1",
            title={"en": "<script>alert('x')</script>", "ko": None},
            summary={"en": "<img src=x onerror=alert(1)> broke", "ko": None},
            org="<i>Evil</i> Corp",
            org_slug="evil",
            review=REVIEWED,
            sources=[
                {"url": "https://example.com/x", "kind": "blog", "license": None, "archived": None}
            ],
        ),
    )
    html = client.get(url).content.decode()
    assert "<script>alert" not in html and "<img src=x" not in html and "<i>Evil</i>" not in html
    assert "&lt;script&gt;alert" in html


@pytest.mark.parametrize("url", [*PAGES, "/cases/A-1"])
def test_no_page_needs_javascript(client, library, url):
    html = get(client, url, "en")
    assert "<script" not in html.lower()
    assert "onclick" not in html.lower()


class AttributeNames(HTMLParser):
    def __init__(self):
        super().__init__()
        self.names = set()

    def handle_starttag(self, tag, attrs):
        self.names.update(name for name, _value in attrs)


@pytest.mark.parametrize("language", ["en", "ko"])
@pytest.mark.parametrize("url", PAGES)
def test_every_attribute_is_well_quoted(client, library, url, language):
    """A quote inside a translated attribute value would split it into stray attributes."""
    parser = AttributeNames()
    parser.feed(get(client, f"{url}{'&' if '?' in url else '?'}q=%22a%22+%3Cb%3E", language))
    assert all(re.fullmatch(r"[a-z][a-z-]*", name) for name in parser.names), parser.names
