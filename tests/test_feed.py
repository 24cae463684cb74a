"""/feed/: an Atom feed of reviewed cases, latest review first, filtered like /cases/."""

import html
import re
import xml.etree.ElementTree as ET

import pytest

from .library import DRAFT, plain_case, store

pytestmark = pytest.mark.django_db

ATOM = "{http://www.w3.org/2005/Atom}"


def reviewed(at):
    return {"written_by": None, "reviewed_by": "mina", "reviewed_at": at}


@pytest.fixture
def library(tmp_path):
    store(
        tmp_path,
        plain_case("F-1", date="2024-01-01", review=reviewed("2026-03-01T00:00:00Z"),
                   title={"en": "Old outage, reviewed last", "ko": "오래된 장애"},
                   components=["dns"]),
        plain_case("F-2", date="2025-06-01", review=reviewed("2026-01-01T00:00:00Z"),
                   title={"en": "Recent outage, reviewed first", "ko": None}),
        plain_case("F-3", date="2025-09-01", review=dict(DRAFT),
                   title={"en": "A draft", "ko": None}, components=["dns"]),
    )  # fmt: skip


def feed(client, query=""):
    response = client.get(f"/feed/{query}")
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("application/atom+xml")
    return ET.fromstring(response.content)


def test_the_feed_parses_as_atom_with_reviewed_cases_latest_review_first(client, library):
    root = feed(client)
    assert root.tag == f"{ATOM}feed"
    assert root.find(f"{ATOM}title").text and root.find(f"{ATOM}updated").text
    entries = root.findall(f"{ATOM}entry")
    titles = [entry.find(f"{ATOM}title").text for entry in entries]
    assert titles == ["F-1: Old outage, reviewed last", "F-2: Recent outage, reviewed first"]
    first = entries[0]
    assert first.find(f"{ATOM}link").get("href") == "http://testserver/cases/F-1"
    assert first.find(f"{ATOM}id").text == "http://testserver/cases/F-1"
    assert first.find(f"{ATOM}published").text.startswith("2026-03-01T00:00:00")
    assert first.find(f"{ATOM}updated").text.startswith("2026-11-09T11:55:50")
    summary = first.find(f"{ATOM}summary")
    assert summary.get("type") == "html"
    assert "Something failed." in summary.text and "Jan. 1, 2024" in summary.text
    categories = {c.get("term") for c in first.findall(f"{ATOM}category")}
    assert {"Dns", "Medium", "Config"} <= categories


def test_the_feed_takes_the_filters_of_the_case_list(client, library):
    titles = [
        e.find(f"{ATOM}title").text for e in feed(client, "?components=dns").iter(f"{ATOM}entry")
    ]
    assert titles == ["F-1: Old outage, reviewed last"]  # F-3 has dns too, but is a draft
    root = feed(client, "?components=dns")
    self_link = [link for link in root.findall(f"{ATOM}link") if link.get("rel") == "self"][0]
    assert self_link.get("href") == "http://testserver/feed/?components=dns"
    assert not list(feed(client, "?year_to=2023").iter(f"{ATOM}entry"))


def test_the_feed_is_in_the_readers_language(client, library):
    titles = [e.find(f"{ATOM}title").text for e in feed(client, "?lang=ko").iter(f"{ATOM}entry")]
    assert titles[0] == "F-1: 오래된 장애"


def test_a_summary_in_english_in_the_korean_feed_says_it_is_english(client, tmp_path):
    english_only = {"en": "Only in English.", "ko": None}
    store(
        tmp_path,
        plain_case("G-1", review=reviewed("2026-03-01T00:00:00Z"), summary=english_only),
        plain_case("G-2", review=reviewed("2026-02-01T00:00:00Z")),
    )
    root = feed(client, "?lang=ko")
    assert root.get("{http://www.w3.org/XML/1998/namespace}lang") == "ko"
    summaries = {
        entry.find(f"{ATOM}id").text.rsplit("/", 1)[1]: entry.find(f"{ATOM}summary").text
        for entry in root.iter(f"{ATOM}entry")
    }
    assert '<div lang="en"><p>Only in English.</p></div>' in summaries["G-1"]
    assert 'lang="en"' not in summaries["G-2"]  # translated: in the feed's language
    english = {e.find(f"{ATOM}summary").text for e in feed(client, "?lang=en").iter(f"{ATOM}entry")}
    assert not any('lang="en"' in summary for summary in english)


def test_an_entry_is_never_updated_before_it_was_published(client, tmp_path):
    """An import keeps the `updated_at` of its file, which may be older than the review."""
    case = plain_case("U-1", review=reviewed("2026-03-01T00:00:00Z"))
    case["updated_at"] = "2025-01-01T00:00:00Z"
    store(tmp_path, case)
    entry = next(feed(client).iter(f"{ATOM}entry"))
    assert entry.find(f"{ATOM}published").text.startswith("2026-03-01T00:00:00")
    assert entry.find(f"{ATOM}updated").text.startswith("2026-03-01T00:00:00")


def test_a_bad_filter_gets_a_400_from_the_feed(client, library):
    response = client.get("/feed/?severity=bogus")
    assert response.status_code == 400
    assert "severity" in response.content.decode()


def test_case_text_in_the_feed_is_escaped(client, tmp_path):
    store(
        tmp_path,
        plain_case("X-1", review=reviewed("2026-01-01T00:00:00Z"),
                   title={"en": "<script>alert(1)</script>", "ko": None},
                   summary={"en": "A <b>bold</b> & risky claim", "ko": None}),
    )  # fmt: skip
    body = client.get("/feed/").content.decode()
    entry = ET.fromstring(body).find(f"{ATOM}entry")
    assert entry.find(f"{ATOM}title").text == "X-1: <script>alert(1)</script>"
    # Atom's type="html" summary holds HTML as text: the case's markup must stay text in it.
    assert "A &lt;b&gt;bold&lt;/b&gt; &amp; risky claim" in entry.find(f"{ATOM}summary").text
    assert "<script>" not in body


@pytest.mark.parametrize("url", ["/", "/cases/", "/cases/F-1", "/taxonomy/", "/orgs/"])
def test_pages_link_the_feed_from_their_head(client, library, url):
    head = client.get(url).content.decode().split("</head>")[0]
    assert 'rel="alternate" type="application/atom+xml"' in head
    assert 'href="/feed/' in head


def test_a_filtered_list_links_the_feed_of_its_selection(client, library):
    head = client.get("/cases/?components=dns&sort=date").content.decode().split("</head>")[0]
    assert 'type="application/atom+xml"' in head
    assert 'href="/feed/?lang=en&amp;components=dns"' in head


@pytest.mark.parametrize(
    ("url", "feed"),
    [
        ("/", "/feed/?lang=ko"),
        ("/cases/F-1", "/feed/?lang=ko"),
        ("/taxonomy/", "/feed/?lang=ko"),
        ("/orgs/", "/feed/?lang=ko"),
        ("/cases/?components=dns&sort=date", "/feed/?lang=ko&components=dns"),
        ("/taxonomy/components/dns/", "/feed/?lang=ko&components=dns"),
    ],
)
def test_a_korean_page_links_the_korean_feed(client, library, settings, url, feed):
    # Korean by the cookie the language switcher sets, which a feed reader will not send.
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "ko"
    head = client.get(url).content.decode().split("</head>")[0].replace("&amp;", "&")
    assert '<html lang="ko">' in head and 'type="application/atom+xml"' in head
    assert f'href="{feed}"' in head
    client.cookies.clear()
    titles = [e.find(f"{ATOM}title").text for e in feed_entries(client, feed)]
    assert "F-1: 오래된 장애" in titles


def feed_entries(client, url):
    return list(feed(client, url[len("/feed/") :]).iter(f"{ATOM}entry"))


def test_the_feeds_links_keep_its_language(client, library):
    root = feed(client, "?lang=ko&components=dns")
    links = {link.get("rel"): link.get("href") for link in root.findall(f"{ATOM}link")}
    assert links["self"] == "http://testserver/feed/?lang=ko&components=dns"
    assert links["alternate"] == "http://testserver/cases/?lang=ko&components=dns"
    assert root.find(f"{ATOM}title").text != "incidentlib: reviewed cases matching a selection"


def test_the_entries_lead_to_the_cases_in_the_feeds_language(client, library):
    """A feed reader sends no language cookie: a Korean feed's entries link the Korean pages,
    and keep the case's address as their id, the same in both languages."""
    client.cookies.clear()
    entries = feed_entries(client, "/feed/?lang=ko")
    links = {
        entry.find(f"{ATOM}id").text: entry.find(f"{ATOM}link").get("href") for entry in entries
    }
    assert links["http://testserver/cases/F-1"] == "http://testserver/cases/F-1?lang=ko"
    client.cookies.clear()
    entries = feed_entries(client, "/feed/")
    assert entries[0].find(f"{ATOM}link").get("href") == "http://testserver/cases/F-1"


@pytest.mark.parametrize(
    ("query", "title"),
    [
        ("", "incidentlib: newest reviewed cases"),
        ("?lang=en&sort=date", "incidentlib: newest reviewed cases"),
        ("?components=dns", "incidentlib: reviewed cases. Filtered by: Components: Dns."),
        (
            "?components=dns&components=database&q=%3Cb%3Eoutage",
            "incidentlib: reviewed cases. Filtered by: Components: Dns or Database. "
            "Search: “<b>outage”.",
        ),
        ("?lang=ko&severity=medium", "incidentlib: 검토된 사례. 적용한 필터: 심각도: Medium."),
    ],
)
def test_a_feed_names_its_selection_in_its_title(client, library, query, title):
    """Two feeds followed in one reader tell themselves apart (the page's head names its
    feed the same way)."""
    assert feed(client, query).find(f"{ATOM}title").text == title


def test_the_list_names_the_feed_of_its_selection(client, library):
    head = client.get("/cases/?components=dns&lang=en").content.decode().split("</head>")[0]
    assert 'title="incidentlib: reviewed cases. Filtered by: Components: Dns."' in head


def test_an_english_title_in_the_korean_feed_says_it_is_english(client, library):
    titles = [e.find(f"{ATOM}title").text for e in feed(client, "?lang=ko").iter(f"{ATOM}entry")]
    assert titles == [
        "F-1: 오래된 장애",
        "F-2: Recent outage, reviewed first (영어: 아직 번역되지 않음)",
    ]


def test_a_term_pages_feed_link_and_its_feed_have_one_title(client, library):
    for url in ("/taxonomy/components/dns/?symptoms=errors", "/orgs/example-org/?components=dns"):
        for lang in ("en", "ko"):
            head = client.get(f"{url}&lang={lang}").content.decode().split("</head>")[0]
            assert "Filtered by" in head or "적용한 필터" in head
            link = re.search(r'<link rel="alternate" type="application/atom\+xml" title="([^"]*)" '
                             r'href="([^"]*)"', head)  # fmt: skip
            title = (
                feed(client, "?" + link[2].split("?", 1)[1].replace("&amp;", "&"))
                .find(f"{ATOM}title")
                .text
            )
            assert html.unescape(link[1]) == title, (url, lang)


@pytest.mark.parametrize("words", ["\x01abc", "a\x0bb", "\ufffe", "a\x1fb\ud7ff"])
def test_a_search_xml_cannot_carry_gives_a_feed_that_parses(client, library, words):
    """Its title names the search: a control character in it made the feed a 500, U+FFFE
    an XML reader's error."""
    response = client.get("/feed/", {"q": words})
    assert response.status_code == 200
    ET.fromstring(response.content)


def test_a_feed_of_drafts_is_refused_saying_why(client, library):
    """It was always empty, titled "reviewed cases ... Review: draft"."""
    response = client.get("/feed/?reviewed=no")
    assert response.status_code == 400
    assert (
        response.content.decode()
        == "reviewed: the feed holds reviewed cases only; drafts have none\n"
    )
    assert client.get("/feed/?reviewed=yes").status_code == 200
    drafts = client.get("/cases/?reviewed=no").content.decode()
    assert "/feed/" not in drafts.split("</head>")[1] and "atom+xml" not in drafts


def test_a_case_text_xml_cannot_carry_gives_a_feed_that_parses(client, tmp_path):
    """The exchange format lets a case's text hold a control character: the feed leaves it
    out rather than refuse the whole feed."""
    store(
        tmp_path,
        plain_case(
            "X-1",
            review=reviewed("2026-03-01T00:00:00Z"),
            title={"en": "A bell\x07 rang", "ko": None},
            summary={"en": "Form\x0cfeed.", "ko": None},
        ),
    )
    response = client.get("/feed/")
    assert response.status_code == 200
    entry = ET.fromstring(response.content).find(f"{ATOM}entry")
    assert entry.find(f"{ATOM}title").text == "X-1: A bell rang"
