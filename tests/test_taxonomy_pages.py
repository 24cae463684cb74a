"""/taxonomy/ and /taxonomy/<facet>/<slug>/: the terms with their counts, a term with its cases."""

import pytest

from cases.models import Term

from .library import listed_ids, six_cases, store

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


def test_a_term_page_shows_its_label_description_and_cases(client, library):
    html = client.get("/taxonomy/components/dns/").content.decode()
    assert "<h1>DNS</h1>" in html and "Name resolution, resolvers and zones." in html
    assert listed_ids(html) == ["A-6", "A-5"]
    korean = client.get("/taxonomy/components/dns/?lang=ko").content.decode()
    assert "<h1>도메인 이름 시스템</h1>" in korean and "이름 풀이, 리졸버와 존." in korean


def test_a_term_page_takes_further_filters_and_its_links_keep_the_term(client, library):
    html = client.get("/taxonomy/components/dns/?reviewed=yes").content.decode()
    assert listed_ids(html) == ["A-5"]
    # Its chips and facet values lead to /cases/ with the term written out.
    assert 'href="/cases/?reviewed=yes"' in html  # the chip removing the term
    assert 'href="/cases/?reviewed=yes&amp;components=dns&amp;severity=low"' in html


def test_a_term_page_without_a_label_in_korean_marks_the_english_one(client, library):
    html = client.get("/taxonomy/components/gpu/?lang=ko").content.decode()
    assert '<h1 lang="en">Gpu</h1>' in html


@pytest.mark.parametrize(
    "url", ["/taxonomy/colour/red/", "/taxonomy/components/no-such-term/", "/taxonomy/domain/dns/"]
)
def test_an_unknown_facet_or_term_is_not_found(client, library, url):
    assert client.get(url).status_code == 404
