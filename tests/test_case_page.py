"""The case page /cases/<id>: the whole case, in the reader's language, escaped, in few queries;
one notice for what is in English, the further documents, each term once, plain words for the
recurrence chain, and what sharing and search engines read."""

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


def section(html, name):
    return html.split(f'id="{name}"')[1].split("</section>")[0]


def english_only_case(case_id="A-1", **changes):
    """A case with no Korean text at all, its lists included."""
    case = make_case(case_id, **changes)
    for name in ("title", "summary", "trigger", "symptoms_text", "detection", "lessons"):
        case[name]["ko"] = None
    for step in case["remediation"]:
        step["text"]["ko"] = None
    case["action_items"] = [{"text": {"en": "Add a metadata load test.", "ko": ""}}]
    return case


def test_a_case_with_no_korean_says_once_at_the_top_which_parts_are_in_english(client, tmp_path):
    import_cases(write_json(tmp_path / "a.json", english_only_case()))
    html = page(client, "/cases/A-1?lang=ko")
    assert html.count('class="fallback-note"') == 1
    assert "아직 번역되지 않아" not in html.split("</header>", 2)[2]  # nothing after the header
    header = html.split('<header class="case-header">')[1].split("</header>")[0]
    notice = (
        header.split('class="fallback-note"')[0].rsplit("<p", 1)[1]
        + header.split('class="fallback-note"')[1].split("</p>")[0]
    )
    # The note is Korean, marked so, outside any English block.
    assert 'lang="ko"' in notice and 'role="note"' in notice
    parts = (
        "제목",
        "무슨 일이 있었나",
        "계기",
        "증상",
        "어떻게 알아챘나",
        "무엇으로 고쳤나",
        "교훈",
    )
    for part in (*parts, "후속 조치"):
        assert part in notice, part
    # Each text shown in English is marked and styled as such, with no note of its own.
    assert '<h1 lang="en" class="fallback">' in html
    for name in ("summary", "trigger", "symptoms", "detection", "lessons"):
        assert '<div class="prose fallback" lang="en">' in section(html, name), name
    steps = section(html, "remediation")
    assert steps.count('<span lang="en" class="fallback">') == len(
        english_only_case()["remediation"]
    )
    assert "fallback-note" not in steps


def test_the_notice_names_each_part_as_its_heading_does(client, tmp_path):
    """A Korean reader looks for "어떻게 알아챘나" in the notice and finds it as a heading."""
    case = english_only_case()
    case["impact"]["region"] = "South Korea"
    import_cases(write_json(tmp_path / "a.json", case))
    html = page(client, "/cases/A-1?lang=ko")
    notice = html.split('class="fallback-note"')[1].split("</p>")[0]
    named = notice.split(": ", 1)[1].split(". ")[0].rstrip(".").split(", ")
    # The impact has no Korean in the exchange format: not "not yet translated", but said so.
    assert "영향" not in named, named
    assert notice.endswith(" 영향의 일부 값은 영어로만 기록되어 있습니다."), notice
    headings = set(re.findall(r"<h2[^>]*>([^<]+)</h2>", html))
    # The title is the page's h1; terms and other cases' titles are spread over the page.
    spread = {"제목", "일부 분류 용어의 이름", "다른 사례의 제목"}
    sections = [part for part in named if part not in spread]
    assert len(sections) >= 7, named
    for part in sections:
        assert part in headings, (part, sorted(headings))


def test_a_translated_case_has_no_notice_and_an_english_page_never_has_one(client, seeded):
    assert 'class="fallback-note"' not in page(client, "/cases/IL-0137?lang=en")
    korean = page(client, "/cases/IL-0137?lang=ko")
    header = korean.split('<header class="case-header">')[1].split("</header>")[0]
    # IL-0137 is translated; only its English impact scope and term labels made from slugs
    # are English: the notice names the terms, and says the impact has no Korean to come.
    notice = header.split('class="fallback-note"')[-1].split("</p>")[0]
    assert "제목" not in notice and "일부 분류 용어의 이름" in notice
    assert notice.endswith(". 영향의 일부 값은 영어로만 기록되어 있습니다."), notice


def test_impact_values_and_licences_are_translated_when_known_and_marked_english_otherwise(
    client, seeded
):
    html = page(client, "/cases/IL-0137?lang=ko")
    impact = section(html, "impact")
    # users and region are "unknown": a known word, in Korean.
    assert impact.count("알 수 없음") == 2
    assert '<span lang="en">Solar Open pre-training job' in impact
    sources = section(html, "sources")
    assert "라이선스: <span>알 수 없음</span>" in sources
    english = page(client, "/cases/IL-0137?lang=en")
    assert "Licence: <span>unknown</span>" in section(english, "sources")


def test_a_licence_that_is_not_a_known_word_is_marked_english(client, tmp_path):
    case = make_case("A-1")
    case["sources"][0]["license"] = "CC BY 4.0"
    import_cases(write_json(tmp_path / "a.json", case))
    assert '라이선스: <span lang="en">CC BY 4.0</span>' in page(client, "/cases/A-1?lang=ko")


@pytest.mark.parametrize(
    ("licence", "english", "korean"),
    [
        ("all rights reserved", "all rights reserved", "모든 권리 보유"),
        ("Public domain (US government work)", "public domain (US government work)",
         "퍼블릭 도메인 (미국 정부 저작물)"),
        ("public domain", "public domain", "퍼블릭 도메인"),
    ],
)  # fmt: skip
def test_the_common_licences_are_shown_in_korean(client, tmp_path, licence, english, korean):
    case = make_case("A-1")
    case["sources"][0]["license"] = licence
    import_cases(write_json(tmp_path / "a.json", case))
    assert f"라이선스: <span>{korean}</span>" in page(client, "/cases/A-1?lang=ko")
    assert f"Licence: <span>{english}</span>" in page(client, "/cases/A-1?lang=en")


def test_further_documents_are_shown_under_the_sources(client, tmp_path):
    docs = [
        {"title": {"en": "Runbook", "ko": "런북"}, "url": "https://example.com/runbook"},
        "https://example.com/slides.pdf",
        {"title": "Internal memo"},
        {"url": "javascript:alert(1)", "title": "<script>x</script>"},
        {"size": 3},
    ]
    import_cases(write_json(tmp_path / "a.json", make_case("A-1", docs=docs)))
    html = page(client, "/cases/A-1?lang=ko")
    assert html.index('id="sources"') < html.index('id="documents"')
    documents = section(html, "documents")
    assert "추가 문서" in documents
    assert '<a href="https://example.com/runbook" rel="noopener noreferrer external">런북</a>' in (
        documents
    )
    assert 'href="https://example.com/slides.pdf"' in documents
    assert '<span lang="en">Internal memo</span>' in documents
    assert "javascript:" not in documents and "<script>" not in documents
    assert "&lt;script&gt;x&lt;/script&gt;" in documents
    assert '<code lang="en">{&quot;size&quot;: 3}</code>' in documents


def test_a_case_without_documents_has_no_such_section(client, seeded):
    assert 'id="documents"' not in page(client, "/cases/IL-0137")


def test_root_cause_and_contributing_factors_are_shown_once(client, seeded):
    html = page(client, "/cases/IL-0137")
    why = section(html, "root-cause")
    assert "?root_cause=capacity" in why and "?contributing=monitoring-blind-spot" in why
    classification = section(html, "taxonomy")
    assert "root_cause=" not in classification and "contributing=" not in classification
    assert "?components=shared-filesystem" in classification
    assert html.count("?root_cause=capacity") == 1
    assert html.count("?contributing=monitoring-blind-spot") == 1


def test_the_recurrence_chain_says_in_plain_words_which_case_repeats_which(client, tmp_path):
    write_json(
        tmp_path / "run.json",
        [
            make_case("A-1", date="2020-01-01"),
            make_case("A-2", date="2021-01-01", recurrence_of="A-1"),
            make_case("A-3", date="2022-01-01", recurrence_of="A-2"),
        ],
    )
    import_cases(tmp_path / "run.json")
    chain = section(page(client, "/cases/A-2"), "recurrence")
    assert "recurs it" not in chain
    earlier, this, later = chain.split("<li")[1:]
    assert "A-1" in earlier and "A-3" in later
    assert "the same failure, earlier: this case repeats it" in earlier
    assert "the same failure, later: it repeats this case" in later
    korean = section(page(client, "/cases/A-2?lang=ko"), "recurrence")
    assert "앞서 일어난 같은 장애: 이 사례는 그 장애의 재발입니다" in korean
    assert "뒤에 다시 일어난 같은 장애: 이 사례의 재발입니다" in korean


def test_the_recurrence_chain_follows_the_links_whatever_the_dates(client, tmp_path):
    """A recurrence dated before its original still comes after it: the chain reads as the
    links say, each case after the one it repeats."""
    write_json(
        tmp_path / "run.json",
        [
            make_case("A-1", date="2022-01-01"),
            make_case("A-2", date="2021-01-01", recurrence_of="A-1"),
            make_case("A-3", date="2020-01-01", recurrence_of="A-1"),
            make_case("A-4", date="2019-01-01", recurrence_of="A-2"),
        ],
    )
    import_cases(tmp_path / "run.json")
    chain = section(page(client, "/cases/A-1"), "recurrence")
    items = chain.split("<li")[1:]
    assert [next(i for i in ("A-1", "A-2", "A-3", "A-4") if i in item) for item in items] == [
        "A-1",  # the original
        "A-3",  # repeats A-1, the older of its two recurrences
        "A-2",  # repeats A-1
        "A-4",  # repeats A-2: right after it
    ]
    middle = section(page(client, "/cases/A-2"), "recurrence").split("<li")[1:]
    assert "A-1" in middle[0] and "this case repeats it" in middle[0]
    assert len(middle) == 3  # what A-2 repeats, A-2, what repeats A-2: not its sibling A-3
    assert "A-4" in middle[2] and "it repeats this case" in middle[2]


@pytest.mark.parametrize("hide_drafts", [True, False])
def test_a_hidden_draft_in_the_chain_leaves_the_others_in_the_order_of_the_links(
    client, tmp_path, settings, hide_drafts
):
    settings.INCIDENTLIB_HIDE_DRAFTS = hide_drafts
    reviewed = {"written_by": None, "reviewed_by": "mina", "reviewed_at": "2026-01-02T03:04:05Z"}
    draft = {"written_by": None, "reviewed_by": None, "reviewed_at": None}
    write_json(
        tmp_path / "run.json",
        [
            make_case("A-1", date="2022-01-01", review=reviewed),
            make_case("D-2", date="2021-01-01", recurrence_of="A-1", review=draft),
            make_case("A-3", date="2020-01-01", recurrence_of="D-2", review=reviewed),
            make_case("A-4", date="2023-01-01", recurrence_of="A-3", review=reviewed),
        ],
    )
    import_cases(tmp_path / "run.json")
    shown = ["A-1", "A-3", "A-4"] if hide_drafts else ["A-1", "D-2", "A-3", "A-4"]
    for page_of in shown:
        items = section(page(client, f"/cases/{page_of}"), "recurrence").split("<li")[1:]
        listed = [next(i for i in ("A-1", "D-2", "A-3", "A-4") if i in item) for item in items]
        assert listed == shown, page_of


def test_the_korean_note_names_other_titles_only_for_other_cases(client, tmp_path):
    """The case's own title in English is "the title", not "titles of other cases", even
    though the case is in its own recurrence chain."""
    english_only = {"en": "Only in English", "ko": None}
    write_json(
        tmp_path / "run.json",
        [
            make_case("A-1", date="2020-01-01"),
            make_case("A-2", date="2021-01-01", recurrence_of="A-1", title=english_only),
        ],
    )
    import_cases(tmp_path / "run.json")
    note = page(client, "/cases/A-2?lang=ko").split('class="fallback-note"')[1].split("</p>")[0]
    assert "제목" in note  # its own title
    assert "다른 사례의 제목" not in note
    note = page(client, "/cases/A-1?lang=ko").split('class="fallback-note"')[1].split("</p>")[0]
    assert "다른 사례의 제목" in note  # A-2's title, in A-1's chain, is English


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_an_unknown_case_in_json_answers_a_json_404(client, db, lang):
    response = client.get(f"/cases/IL-9999.json?lang={lang}")
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body["error"] and body["parameters"] == {}
    if lang == "ko":
        assert body["error"] == "이 번호의 사례는 없습니다."


def test_the_page_describes_itself_for_search_engines_and_sharing(client, seeded):
    from .conftest import seed_case

    seed = seed_case()
    for lang in ("en", "ko"):
        html = page(client, f"/cases/IL-0137?lang={lang}")
        head = html.split("</head>")[0]
        summary_start = seed["summary"][lang][:60]
        assert f'<meta name="description" content="{summary_start}' in head, lang
        assert f'<meta property="og:description" content="{summary_start}' in head
        assert f'<link rel="canonical" href="http://testserver/cases/IL-0137?lang={lang}">' in head
        address = f"http://testserver/cases/IL-0137?lang={lang}"
        assert f'<meta property="og:url" content="{address}">' in head
        assert '<meta property="og:type" content="article">' in head
        assert '<meta name="twitter:card" content="summary">' in head
        assert f'<meta property="og:title" content="IL-0137: {seed["title"][lang][:40]}' in head
        assert (
            '<link rel="alternate" hreflang="x-default" href="http://testserver/cases/IL-0137">'
            in head
        )
        assert 'hreflang="en" href="http://testserver/cases/IL-0137?lang=en"' in head
        assert 'hreflang="ko" href="http://testserver/cases/IL-0137?lang=ko"' in head


def test_the_description_is_escaped_and_short(client, tmp_path):
    case = make_case("A-1")
    case["summary"]["en"] = 'A "quoted" <b>summary</b> ' + "word " * 200
    import_cases(write_json(tmp_path / "a.json", case))
    head = page(client, "/cases/A-1").split("</head>")[0]
    description = head.split('<meta name="description" content="')[1].split('">')[0]
    assert description.startswith("A &quot;quoted&quot; &lt;b&gt;summary&lt;/b&gt;")
    assert len(description) < 400 and description.endswith("…")


def test_x_default_keeps_the_other_parameters(client, seeded):
    head = page(client, "/cases/?severity=unknown&lang=ko").split("</head>")[0]
    assert (
        '<link rel="alternate" hreflang="x-default" href="http://testserver/cases/?severity=unknown">'
        in head
    )
