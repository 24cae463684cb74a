"""/taxonomy/ and /taxonomy/<facet>/<slug>/: the terms with their counts, a term with its cases."""

import re

import pytest

from cases.models import Term

from .library import facet_counts, listed_ids, six_cases, store

pytestmark = pytest.mark.django_db


@pytest.fixture
def library(tmp_path):
    store(tmp_path, *six_cases())
    Term.objects.filter(facet="components", slug="dns").update(
        label_en="DNS",
        label_ko="도메인 이름 시스템",
        description_en="Name resolution, resolvers and zones.",
        description_ko="이름 풀이, 리졸버와 존.",
    )


def test_the_taxonomy_lists_every_facet_and_term_with_its_count(client, library):
    html = client.get("/taxonomy/").content.decode()
    for facet in (
        "Domain",
        "Symptoms",
        "Components",
        "Root cause",
        "Contributing factors",
        "Severity",
    ):
        assert f"<h2>{facet}</h2>" in html, facet
    components = html.split('id="components"')[1].split("</section>")[0]
    assert (
        'href="/taxonomy/components/dns/">DNS</a> <span class="count">2 cases</span>' in components
    )
    assert "Name resolution, resolvers and zones." in components
    assert 'href="/taxonomy/components/gpu/"' in components and "1 case</span>" in components


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_severities_are_listed_most_severe_first_in_either_language(client, lang):
    """Not by label: in Korean that read 낮음, 높음, 보통, 심각, 알 수 없음."""
    labels = {"critical": "심각", "high": "높음", "medium": "보통", "low": "낮음", "unknown": "?"}
    for slug, korean in labels.items():
        Term.objects.update_or_create(
            facet="severity", slug=slug, defaults={"label_en": slug.title(), "label_ko": korean}
        )
    html = client.get("/taxonomy/", {"lang": lang}).content.decode()
    severity = html.split('id="severity"')[1].split("</section>")[0]
    listed = re.findall(r'href="/taxonomy/severity/([a-z-]+)/"', severity)
    assert listed == ["critical", "high", "medium", "low", "unknown"]


def test_a_term_page_shows_its_label_description_and_cases(client, library):
    html = client.get("/taxonomy/components/dns/").content.decode()
    assert "<h1>DNS</h1>" in html and "Name resolution, resolvers and zones." in html
    assert listed_ids(html) == ["A-6", "A-5"]
    korean = client.get("/taxonomy/components/dns/?lang=ko").content.decode()
    assert "<h1>도메인 이름 시스템</h1>" in korean and "이름 풀이, 리졸버와 존." in korean


def test_a_term_page_takes_further_filters_and_its_links_keep_the_term(client, library):
    html = client.get("/taxonomy/components/dns/?reviewed=yes").content.decode()
    assert listed_ids(html) == ["A-5"]
    # The chip of the term leads to /cases/ with the rest; other links stay on the page.
    assert 'href="/cases/?reviewed=yes"' in html  # the chip removing the term
    assert 'href="/taxonomy/components/dns/?reviewed=yes&amp;severity=low"' in html
    assert 'action="/taxonomy/components/dns/" role="search"' in html
    assert '<input type="hidden" name="reviewed" value="yes">' in html


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("/taxonomy/severity/high/?severity=low", []),
        ("/taxonomy/severity/high/?severity=low&severity=high", ["A-6", "A-1"]),
        ("/taxonomy/components/dns/?components=database", []),
        ("/taxonomy/components/dns/?components=cache&components=gpu", ["A-5"]),
        ("/taxonomy/domain/storage/?org=initech", ["A-5"]),
    ],
)
def test_the_query_string_narrows_a_term_page_and_never_adds_other_terms_cases(
    client, library, url, expected
):
    assert listed_ids(client.get(url).content.decode()) == expected


def sidebar_links(html):
    """(link, count) of every value the sidebar offers to add, as the reader sees them."""
    return [
        (href.replace("&amp;", "&"), int(count))
        for href, count in re.findall(
            r'<li class="facet-value" data-value="[^"]+"><a href="([^"]+)".*?'
            r'<span class="count"[^>]*>(\d+)</span>',
            html,
        )
    ]


def test_on_a_term_page_every_facet_count_is_what_its_link_gives(client, library):
    html = client.get("/taxonomy/severity/high/?severity=low").content.decode()
    assert listed_ids(html) == []
    counts = facet_counts(html)
    assert counts["severity=high"] == 2  # the page's own term, shown chosen
    assert counts["severity=low"] == 0 and counts["severity=critical"] == 0
    assert "org=globex" not in counts  # no high case is Globex's
    # The page's own term is chosen: its link leads to /cases/ without it.
    assert 'data-value="severity=high"><a href="/cases/?severity=low"' in html
    for url in ["/taxonomy/severity/high/", "/taxonomy/components/dns/?reviewed=no"]:
        links = sidebar_links(client.get(url).content.decode())
        assert len(links) > 5
        for link, count in links:
            assert link.startswith(url.split("?")[0])
            assert len(listed_ids(client.get(link).content.decode())) == count, (url, link)


def test_the_empty_state_of_a_term_page_offers_to_remove_either_filter(client, library):
    html = client.get("/taxonomy/severity/high/?severity=low").content.decode()
    empty = html.split('class="empty-state"')[1].split("</div>")[0]
    assert 'href="/cases/?severity=low">Remove “Severity: High”</a>' in empty
    assert 'href="/taxonomy/severity/high/">Remove “Severity: Low”</a> (2 cases)' in empty


def test_a_term_page_links_the_feed_and_api_of_its_own_term(client, library):
    head = client.get("/taxonomy/severity/high/?severity=low&reviewed=yes").content.decode()
    head = head.split("</head>")[0].replace("&amp;", "&")
    assert 'href="/feed/?lang=en&severity=high&reviewed=yes"' in head
    assert 'href="/api/cases/?severity=high&reviewed=yes"' in head


def test_a_term_page_without_a_label_in_korean_marks_the_english_one(client, library):
    html = client.get("/taxonomy/components/gpu/?lang=ko").content.decode()
    assert '<h1 lang="en">Gpu</h1>' in html


@pytest.mark.parametrize(
    "url", ["/taxonomy/colour/red/", "/taxonomy/components/no-such-term/", "/taxonomy/domain/dns/"]
)
def test_an_unknown_facet_or_term_is_not_found(client, library, url):
    assert client.get(url).status_code == 404


def test_a_search_for_a_case_id_from_a_term_page_goes_to_the_case(client, library):
    response = client.get("/taxonomy/severity/critical/", {"q": "a-3"})
    assert response.status_code == 302 and response["Location"] == "/cases/A-3"
