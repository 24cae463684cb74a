"""The case page /cases/<id>: the whole case, in the reader's language, escaped, in few queries."""

import re
from io import StringIO

import pytest
from django.urls import reverse

from cases.exchange.format import parse_timestamp

from .conftest import import_cases, make_case, seed_case, write_json

pytestmark = pytest.mark.django_db


def page(client, url="/cases/IL-0137", **headers):
    response = client.get(url, **headers)
    assert response.status_code == 200, response.status_code
    return response.content.decode()


def test_case_page_shows_the_whole_case_in_english(client, seeded):
    html = page(client)
    seed = seed_case()
    assert '<html lang="en">' in html
    assert seed["title"]["en"] in html
    assert "Lablup Inc" in html
    assert "Published on" in html and "June 15, 2026" in html
    assert "Draft: not yet reviewed" in html
    for section in ("summary", "symptoms", "detection", "lessons", "trigger"):
        first_paragraph = seed[section if section != "symptoms" else "symptoms_text"]["en"].split(
            "\n\n"
        )[0]
        assert first_paragraph[:80] in html, section
    assert "Tuned readahead" in html
    assert 'href="https://arxiv.org/abs/2605.09370"' in html
    assert "paper" in html and "Licence: <span>unknown</span>" in html
    assert "Shared filesystem" in html and "Monitoring blind spot" in html
    assert 'href="/cases/?components=shared-filesystem"' in html


def test_paragraph_breaks_are_kept(client, seeded):
    html = page(client)
    summary = seed_case()["summary"]["en"]
    assert summary.count("\n\n") == 2
    section = html.split('id="summary"')[1].split("</section>")[0]
    assert section.count("<p>") == 3


def test_empty_sections_are_left_out(client, seeded):
    html = page(client)
    # IL-0137 has no action items, no timeline and no related cases.
    assert 'id="action-items"' not in html
    assert 'id="timeline"' not in html
    assert 'id="related"' not in html
    assert 'id="recurrence"' not in html


def test_case_page_in_korean_from_the_query_parameter(client, seeded):
    response = client.get("/cases/IL-0137?lang=ko")
    html = response.content.decode()
    assert '<html lang="ko">' in html
    assert seed_case()["title"]["ko"] in html
    assert "무슨 일이 있었나" in html  # "What happened"
    assert "초안: 아직 검토되지 않았습니다" in html  # the draft mark
    assert response.cookies["incidentlib_language"].value == "ko"


def test_language_comes_from_cookie_then_accept_language_then_english(client, seeded):
    assert '<html lang="ko">' in page(client, HTTP_ACCEPT_LANGUAGE="ko-KR,ko;q=0.9")
    assert '<html lang="en">' in page(client, HTTP_ACCEPT_LANGUAGE="fr-FR")
    client.cookies["incidentlib_language"] = "ko"
    assert '<html lang="ko">' in page(client, HTTP_ACCEPT_LANGUAGE="en")
    assert '<html lang="en">' in page(client, "/cases/IL-0137?lang=en", HTTP_ACCEPT_LANGUAGE="ko")


def test_the_switcher_and_hreflang_alternates_link_the_other_language(client, seeded):
    html = page(client)
    assert (
        '<link rel="alternate" hreflang="ko" href="http://testserver/cases/IL-0137?lang=ko">'
        in html
    )
    assert '<a href="/cases/IL-0137?lang=ko" hreflang="ko" lang="ko">한국어</a>' in html


def test_missing_korean_falls_back_to_english_marked_as_such(client, tmp_path):
    case = make_case("A-1")
    case["lessons"] = {"en": "Test at production scale.", "ko": None}
    case["remediation"][0]["text"]["ko"] = ""
    import_cases(write_json(tmp_path / "a.json", case))
    html = page(client, "/cases/A-1?lang=ko")
    lessons = html.split('id="lessons"')[1].split("</section>")[0]
    assert '<div class="prose fallback" lang="en">' in lessons
    assert "Test at production scale." in lessons
    # One notice at the top says what is in English; no note under each text.
    assert "fallback-note" not in lessons
    notice = html.split('class="fallback-note"')[1].split("</p>")[0]
    assert "무엇으로 고쳤나" in notice and "교훈" in notice
    remediation = html.split('id="remediation"')[1].split("</section>")[0]
    assert '<span lang="en" class="fallback">Sharded the Arrow' in remediation


def test_case_text_is_escaped(client, tmp_path):
    case = make_case("A-1")
    case["title"]["en"] = "<script>alert('title')</script>"
    case["summary"]["en"] = 'A <b>bold</b> "claim"\n\n<img src=x onerror=alert(1)>'
    case["org"] = "<i>Org</i>"
    case["org_slug"] = "evil-org"
    import_cases(write_json(tmp_path / "a.json", case))
    html = page(client, "/cases/A-1")
    assert "<script>alert" not in html and "<img src=x" not in html and "<i>Org</i>" not in html
    assert "&lt;script&gt;alert(&#x27;title&#x27;)&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html


def test_reviewed_case_shows_reviewer_and_date(client, tmp_path):
    case = make_case("A-1")
    case["review"] = {
        "written_by": "session",
        "reviewed_by": "mina",
        "reviewed_at": "2026-11-10T09:00:00Z",
    }
    import_cases(write_json(tmp_path / "a.json", case))
    html = page(client, "/cases/A-1")
    assert "Reviewed by mina on Nov. 10, 2026" in html
    assert "Draft" not in html


def test_timeline_durations_are_in_words(client, tmp_path):
    case = make_case("A-1", timeline={"detected_after": "PT45M", "resolved_after": "P2DT3H"})
    import_cases(write_json(tmp_path / "a.json", case))
    assert "45 minutes" in page(client, "/cases/A-1") and "2 days 3 hours" in page(
        client, "/cases/A-1"
    )
    html = page(client, "/cases/A-1?lang=ko")
    assert "45분" in html and "2일 3시간" in html


def test_related_cases_and_the_recurrence_chain_in_both_directions(client, tmp_path):
    write_json(
        tmp_path / "run.json",
        [
            make_case("A-1", date="2020-01-01"),
            make_case("A-2", date="2021-01-01", recurrence_of="A-1", related=["A-3"]),
            make_case("A-3", date="2022-01-01", recurrence_of="A-2"),
        ],
    )
    import_cases(tmp_path / "run.json")
    first = page(client, "/cases/A-1")
    chain = first.split('id="recurrence"')[1].split("</section>")[0]
    assert chain.index("A-1") < chain.index("A-2") < chain.index("A-3")
    assert "the same failure, later: it repeats this case" in chain
    middle = page(client, "/cases/A-2")
    assert 'href="/cases/A-3"' in middle.split('id="related"')[1].split("</section>")[0]
    assert "the same failure, earlier: this case repeats it" in middle
    last = page(client, "/cases/A-3")
    assert (
        'href="/cases/A-2"' in last.split('id="related"')[1]
    )  # "related" seen from the other side


def test_trailing_slash_and_lower_case_ids_reach_the_case(client, seeded):
    assert client.get("/cases/IL-0137/").status_code == 200
    response = client.get("/cases/il-0137")
    assert response.status_code == 301 and response["Location"] == "/cases/IL-0137"
    both = client.get("/cases/Il-0137/both?lang=ko")
    assert both.status_code == 301 and both["Location"] == "/cases/IL-0137/both?lang=ko"


def test_unknown_case_gets_a_proper_404_page(client, db):
    response = client.get("/cases/IL-9999")
    assert response.status_code == 404
    html = response.content.decode()
    assert '<html lang="en">' in html and "Not found" in html and "Browse all cases" in html
    korean = client.get("/cases/IL-9999?lang=ko").content.decode()
    assert '<html lang="ko">' in korean and "찾을 수 없습니다" in korean


def test_case_json_is_the_exchange_format(client, seeded):
    response = client.get("/cases/IL-0137.json")
    assert response["Content-Type"] == "application/json"
    value = response.json()
    # With the library's own time of its last write (as the API gives it).
    assert parse_timestamp(value.pop("modified")) == seeded.changed_at
    assert value == seed_case()
    assert client.get("/cases/IL-9999.json").status_code == 404


def test_case_page_runs_a_fixed_number_of_queries(client, tmp_path, django_assert_max_num_queries):
    """Queries: the library's state (for the cache); the case with organisation, terms and
    reviewer; sources; remediation; action items; tags; related links; the recurrence chain;
    cases relating to it; its similar cases (cases/discover/similar.py)."""
    many = make_case("BIG-1", related=[f"R-{n}" for n in range(30)], recurrence_of="R-0")
    many["sources"] = [
        {"url": f"https://example.com/{n}", "kind": "blog", "license": None, "archived": None}
        for n in range(40)
    ]
    # Every step with a kind of fix: the kinds come with the steps, no query more.
    many["remediation"] = [
        dict(step, kind=f"fix-{n % 7}") for n, step in enumerate(many["remediation"] * 20)
    ]
    many["action_items"] = [{"text": step["text"]} for step in many["remediation"]]
    many["contributing"] = [f"factor-{n}" for n in range(25)]
    others = [make_case(f"R-{n}", related=["BIG-1"]) for n in range(30)]
    write_json(tmp_path / "run.json", [many, *others])
    import_cases(tmp_path / "run.json")
    with django_assert_max_num_queries(10):
        html = page(client, "/cases/BIG-1")
    assert html.count('href="https://example.com/') == 40
    with django_assert_max_num_queries(10):
        page(client, "/cases/R-1")


def test_detail_url_is_reversible():
    assert reverse("cases:detail", args=["IL-0137"]) == "/cases/IL-0137"
    assert re.fullmatch(r"/cases/IL-0137\.json", reverse("cases:detail_json", args=["IL-0137"]))


def test_terms_and_source_kinds_are_labelled_in_korean(client, db):
    from django.core.management import call_command

    call_command("load_demo", stdout=StringIO(), stderr=StringIO())
    html = page(client, "/cases/IL-0137?lang=ko")
    taxonomy = html.split('id="taxonomy"')[1].split("</section>")[0]
    assert "공유 파일 시스템" in taxonomy
    assert "Shared filesystem" not in taxonomy
    assert '<span class="source-kind">논문</span>' in html


def test_a_related_case_title_in_english_only_is_marked_on_the_korean_page(client, tmp_path):
    other = make_case("A-2")
    other["title"] = {"en": "English-only neighbour", "ko": None}
    write_json(tmp_path / "run.json", [make_case("A-1", related=["A-2"]), other])
    import_cases(tmp_path / "run.json")
    related = page(client, "/cases/A-1?lang=ko").split('id="related"')[1].split("</section>")[0]
    assert '<span lang="en" class="fallback">English-only neighbour</span>' in related
    # Said once, in the notice at the top of the page, not after the title.
    assert "fallback-note" not in related
    assert "다른 사례의 제목" in page(client, "/cases/A-1?lang=ko").split("</header>")[1]
