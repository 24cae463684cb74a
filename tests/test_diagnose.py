""" "I'm seeing this" (/diagnose/): ranking by shared symptoms, rarer ones counting more, free
words breaking ties; each result's detection, root cause and remediation; root causes above."""

import re
from urllib.parse import urlencode

import pytest

from cases.models import Case, Term
from cases.translations import source_hash

from .library import REVIEWED, SEARCH_QUERIES, facet_counts, plain_case, store

pytestmark = pytest.mark.django_db


def step(en, ko=None, kind=None):
    item = {"text": {"en": en, "ko": ko}}
    if kind:
        item["kind"] = kind
    return item


@pytest.fixture
def library(tmp_path):
    """`common` is a symptom of nine cases; `rare-x` and `rare-y` of D-1 alone (with common).
    Of those nine, D-2 and F-0 to F-3 were rolled back, F-4 got capacity, D-1 new hardware."""
    cases = [
        plain_case(
            "D-1",
            date="2019-01-01",
            symptoms=["rare-x", "rare-y"],
            root_cause="bad-disk",
            detection={
                "en": "An alert on <script>alert(1)</script> fired.",
                "ko": "경보가 울렸다.",
            },
            remediation=[
                step("Replaced the disk", "디스크를 교체했다", kind="replace-hardware"),
                step("Rebuilt the array", kind="replace-hardware"),
            ],
            review=REVIEWED,
        ),
        plain_case(
            "D-2",
            date="2025-01-01",
            symptoms=["common"],
            root_cause="config",
            remediation=[step("Rolled back", kind="roll-back")],
        ),
        *[
            plain_case(
                f"F-{n}",
                date=f"202{n}-02-01",
                symptoms=["common"],
                root_cause="config",
                remediation=[step("Fixed", kind=FIXES.get(n))] if n in FIXES else [],
            )
            for n in range(7)
        ],
        # Two cases alike in every term: the words decide.
        plain_case("T-1", date="2024-05-01", symptoms=["rare-z"], root_cause="bad-disk"),
        plain_case(
            "T-2",
            date="2020-05-01",
            symptoms=["rare-z"],
            root_cause="bad-disk",
            detection={"en": "The readahead queue grew on every node.", "ko": None},
        ),
        plain_case("N-1", symptoms=["unrelated"], components=["cache"]),
    ]
    store(tmp_path, *cases)
    Term.objects.filter(slug="rare-x").update(label_ko="드문 증상")
    Term.objects.filter(facet="fix", slug="roll-back").update(label_en="Roll back", label_ko="롤백")


# The kinds of fix of F-0 to F-4 (F-5 and F-6 have no remediation steps).
FIXES = {0: "roll-back", 1: "roll-back", 2: "roll-back", 3: "roll-back", 4: "add-capacity"}


def ranked_ids(html):
    return re.findall(r'<li class="diagnosis-result">\s*<h3><a href="/cases/([^"]+)"', html)


def page(client, url, status=200):
    response = client.get(url)
    assert response.status_code == status, (url, response.status_code)
    return response.content.decode()


def test_two_rare_shared_symptoms_rank_above_one_common(client, library):
    html = page(client, "/diagnose/?symptoms=common&symptoms=rare-x&symptoms=rare-y")
    ids = ranked_ids(html)
    assert ids[0] == "D-1"
    assert set(ids[1:]) == {"D-2", *(f"F-{n}" for n in range(7))}
    assert "9 matching cases" in html


def test_one_rare_symptom_outweighs_a_common_one(client, library):
    ids = ranked_ids(page(client, "/diagnose/?symptoms=common&symptoms=rare-x"))
    assert ids[0] == "D-1" and len(ids) == 9


def test_free_words_break_ties(client, library):
    # T-1 is newer, so it comes first without words; "readahead" is only in T-2.
    assert ranked_ids(page(client, "/diagnose/?symptoms=rare-z")) == ["T-1", "T-2"]
    assert ranked_ids(page(client, "/diagnose/?symptoms=rare-z&q=readahead")) == ["T-2", "T-1"]
    # Words never lift a case above one sharing more.
    ids = ranked_ids(page(client, "/diagnose/?symptoms=rare-z&symptoms=common&q=readahead"))
    assert ids[:2] == ["T-2", "T-1"]


def test_words_alone_find_cases(client, library):
    assert ranked_ids(page(client, "/diagnose/?q=readahead")) == ["T-2"]


def test_each_result_shows_shared_symptoms_detection_root_cause_and_fix(client, library):
    html = page(client, "/diagnose/?symptoms=rare-x&symptoms=common")
    result = html[html.index('<li class="diagnosis-result">') :]
    result = result[: result.index("</li>\n")] if "</li>\n" in result else result
    assert "Symptoms it shares" in html and 'href="/cases/?symptoms=rare-x"' in html
    assert "An alert on &lt;script&gt;alert(1)&lt;/script&gt; fired." in html
    assert "<script>alert(1)" not in html
    assert 'href="/cases/?root_cause=bad-disk"' in html
    assert "Replaced the disk" in html and "Rebuilt the array" in html


def test_the_most_frequent_root_causes_link_to_those_cases(client, library):
    html = page(client, "/diagnose/?symptoms=common&symptoms=rare-x")
    summary = html[html.index("root-cause-summary") : html.index("diagnosis-results")]
    counts = re.findall(
        r'root_cause=([a-z-]+)"[^>]*>[^<]*</a> <span class="count">(\d+)</span>', summary
    )
    assert counts == [("config", "8"), ("bad-disk", "1")]
    link = re.search(r'href="([^"]*root_cause=config[^"]*)"', summary).group(1)
    narrowed = page(client, link.replace("&amp;", "&"))
    assert sorted(ranked_ids(narrowed)) == sorted(["D-2", *(f"F-{n}" for n in range(7))])
    assert "8 matching cases" in narrowed


def summary_counts(html, css_class, param):
    summary = html[html.index(f'class="{css_class}"') :]
    summary = summary[: summary.index("</section>")]
    return re.findall(
        rf'{param}=([a-z-]+)"[^>]*>[^<]*</a> <span class="count">(\d+)</span>', summary
    ), summary


def test_the_most_frequent_kinds_of_fix_link_to_those_cases(client, library):
    html = page(client, "/diagnose/?symptoms=common&symptoms=rare-x")
    counts, summary = summary_counts(html, "fix-summary", "fix")
    # A case counts once for a kind, however many of its steps are of it (D-1's two).
    assert counts == [("roll-back", "5"), ("add-capacity", "1"), ("replace-hardware", "1")]
    assert "Their most frequent kinds of fix" in html and ">Roll back</a>" in summary
    symptom_ids = Term.objects.filter(facet="symptoms", slug__in=["common", "rare-x"])
    matching = Case.objects.filter(term_ids__overlap=list(symptom_ids.values_list("id", flat=True)))
    for slug, count in counts:
        direct = matching.filter(remediation_steps__kind__slug=slug).distinct().count()
        assert int(count) == direct, slug
        link = re.search(rf'href="([^"]*fix={slug}[^"]*)"', summary).group(1)
        narrowed = page(client, link.replace("&amp;", "&"))
        assert f"{direct} matching case" in narrowed
        assert sorted(ranked_ids(narrowed)) == sorted(
            matching.filter(remediation_steps__kind__slug=slug)
            .distinct()
            .values_list("id", flat=True)
        )
    narrowed = page(client, "/diagnose/?symptoms=common&symptoms=rare-x&fix=roll-back")
    assert sorted(ranked_ids(narrowed)) == ["D-2", "F-0", "F-1", "F-2", "F-3"]
    # The chosen kind is marked, and a link takes it away again.
    counts, summary = summary_counts(narrowed, "fix-summary", "fix")
    assert 'aria-current="true"' in summary
    assert 'href="/diagnose/?symptoms=common&amp;symptoms=rare-x">Every kind of fix' in summary
    # Root cause and kind of fix narrow together.
    both = page(client, "/diagnose/?symptoms=common&symptoms=rare-x&fix=replace-hardware"
                        "&root_cause=config")  # fmt: skip
    assert "0 matching cases" in both
    # Nothing with both: the page offers each again without its narrowing.
    assert "No case has any of these with the root cause or kind of fix chosen." in both
    assert 'href="/diagnose/?symptoms=common&amp;symptoms=rare-x&amp;root_cause=config">' in both
    assert 'href="/diagnose/?symptoms=common&amp;symptoms=rare-x&amp;fix=replace-hardware">' in both
    page(client, "/diagnose/?symptoms=common&fix=no-such-kind", status=400)


@pytest.mark.parametrize(
    ("lang", "said"), [("en", "too common to search for"), ("ko", "너무 흔해서")]
)
def test_words_too_common_to_search_for_are_said_to_be(client, library, lang, said):
    html = page(client, f"/diagnose/?q=the+of&lang={lang}")
    assert said in html and "No case of the library" not in html
    assert "No case of the library has any of these." in page(client, "/diagnose/?q=zzyzx&lang=en")


def test_the_form_works_in_korean_and_keeps_the_choice(client, library):
    html = page(client, "/diagnose/?symptoms=rare-x&lang=ko")
    assert '<html lang="ko">' in html
    assert 'value="rare-x" checked' in html and "드문 증상" in html
    assert "디스크를 교체했다" in html and "경보가 울렸다." in html
    assert "지금 보이는 증상" in html
    html = page(client, "/diagnose/?symptoms=common&lang=ko")
    assert "가장 흔한 조치 유형" in html and ">롤백</a>" in html


@pytest.mark.parametrize(
    ("lang", "labels"),
    [
        # Alphabetical in English, 가나다 in Korean: never the slugs' order (a, b, c).
        ("en", ["Apple", "Banana", "Cherry"]),
        ("ko", ["가지", "나무", "다리"]),
    ],
)
def test_the_forms_choices_are_in_the_order_of_their_labels(client, tmp_path, lang, labels):
    store(tmp_path, plain_case("L-1", symptoms=["a", "b", "c"]))
    for slug, en, ko in [("a", "Cherry", "나무"), ("b", "Apple", "다리"), ("c", "Banana", "가지")]:
        Term.objects.filter(facet="symptoms", slug=slug).update(label_en=en, label_ko=ko)
    html = page(client, f"/diagnose/?lang={lang}")
    shown = re.findall(r'name="symptoms" value="[^"]+"[^>]*> <span[^>]*>([^<]+)</span>', html)
    assert [label for label in shown if label in labels] == labels, shown


def test_an_empty_form_runs_no_search(client, library, django_assert_max_num_queries):
    # The library's state; the terms; the choices' counts (the sidebar's, until it changes).
    with django_assert_max_num_queries(3):
        html = page(client, "/diagnose/")
    assert 'type="checkbox" name="symptoms" value="common"' in html
    assert "matching case" not in html


def test_unknown_terms_are_refused(client, library):
    html = page(client, "/diagnose/?symptoms=nope", status=400)
    assert "nope" in html
    page(client, "/diagnose/?symptoms=common&page=99", status=404)


def test_links_lead_here_from_the_home_term_and_case_pages(client, library):
    assert 'href="/diagnose/"' in page(client, "/")
    assert 'href="/diagnose/?symptoms=rare-x"' in page(client, "/taxonomy/symptoms/rare-x/")
    case_page = page(client, "/cases/D-1")
    assert 'href="/diagnose/?symptoms=rare-x&amp;symptoms=rare-y"' in case_page


def test_diagnose_runs_a_fixed_number_of_queries(client, library, django_assert_max_num_queries):
    """Queries: the library's state; the taxonomy terms; the choices' counts (the library's,
    kept by the database and cached); how many cases have each chosen term
    (with the library's size); the matches counted by root cause and kind of fix; one page of
    them with organisation, severity and root cause; their remediation steps. Free words add
    what a search adds (tests/test_query_budgets.py's SEARCH_QUERIES)."""
    for url, words in [
        ("/diagnose/?symptoms=common&symptoms=rare-x&components=database&domain=web", False),
        ("/diagnose/?symptoms=rare-z&q=readahead+node&root_cause=bad-disk&lang=ko", True),
        ("/diagnose/?q=readahead", True),
        ("/diagnose/?symptoms=common&fix=roll-back&root_cause=config&q=rolled", True),
    ]:
        with django_assert_max_num_queries(7 + (SEARCH_QUERIES if words else 0)):
            page(client, url)


def test_refused_choices_are_named_in_the_readers_language(client, library):
    """A refused choice is named by its label, never by its raw parameter name (an English
    word on a Korean page), with the value that was refused."""
    html = page(client, "/diagnose/?lang=ko&symptoms=nope&components=gone&page=0", status=400)
    errors = html[html.index('class="filter-errors"') : html.index("</section>")]
    assert "<strong>증상</strong> (nope)" in errors
    assert "<strong>구성 요소</strong> (gone)" in errors
    assert "<strong>쪽</strong> (0)" in errors
    for raw in ("symptoms", "components", "page"):
        assert f"<strong>{raw}</strong>" not in errors
    html = page(client, "/diagnose/?lang=en&symptoms=nope", status=400)
    assert "<strong>Symptoms</strong> (nope)" in html


NOTE_KO = '<small class="fallback-note" lang="ko">(영어: 아직 번역되지 않음)</small>'


def result_of(html, case_id):
    """The HTML of one case's result."""
    start = html.index(f'<li class="diagnosis-result">\n  \n  <h3><a href="/cases/{case_id}"')
    return html[start : html.index("</li>\n", html.index("</dl>", start))]


def test_english_detection_on_a_korean_page_is_marked_and_noted(client, library):
    """As on the case pages (`{% prose %}`): lang="en", and the note that it is not yet
    translated; a Korean detection has neither."""
    html = page(client, "/diagnose/?symptoms=rare-z&lang=ko")
    english = result_of(html, "T-2")
    assert (
        '<span lang="en" class="fallback">The readahead queue grew on every node.</span> ' + NOTE_KO
    ) in english
    html = page(client, "/diagnose/?symptoms=rare-x&lang=ko")
    korean = result_of(html, "D-1")
    assert "<span>경보가 울렸다.</span>" in korean
    assert 'lang="en" class="fallback">An alert' not in korean


def test_english_remediation_steps_are_marked_and_noted_once_after_the_list(client, library):
    html = page(client, "/diagnose/?symptoms=rare-x&lang=ko")
    result = result_of(html, "D-1")
    assert "<li><span>디스크를 교체했다</span>" in result
    assert '<li><span lang="en" class="fallback">Rebuilt the array</span>' in result
    assert f"</ol>{NOTE_KO}" in result
    # The title and the detection are Korean: the steps' note is the result's only one.
    assert result.count("fallback-note") == 1


def test_several_english_steps_share_one_note_and_stay_escaped(client, tmp_path):
    words = " ".join(f"w{n}" for n in range(80))
    store(
        tmp_path,
        plain_case(
            "S-1",
            symptoms=["rare-s"],
            detection={"en": f"<b>Paged</b> {words}", "ko": None},
            remediation=[step("Drained <i>node</i>"), step("Rebooted"), step("Resynced")],
        ),
    )
    html = page(client, "/diagnose/?symptoms=rare-s&lang=ko")
    result = result_of(html, "S-1")
    for text in ("Drained &lt;i&gt;node&lt;/i&gt;", "Rebooted", "Resynced"):
        assert f'<li><span lang="en" class="fallback">{text}</span>' in result
    # One note for the steps, one for the detection (shortened to 60 words, as before).
    assert result.count("fallback-note") == 2
    assert "&lt;b&gt;Paged&lt;/b&gt; w0 " in result and "<b>" not in result and "<i>" not in result
    assert "w57 w58 …</span> " + NOTE_KO in result and "w59" not in result


def test_an_english_page_has_no_fallback_marks_or_notes(client, library):
    for url in ("/diagnose/?symptoms=rare-x", "/diagnose/?symptoms=rare-z&lang=en"):
        results = page(client, url).split('class="diagnosis-results"')[1]
        assert "fallback" not in results and 'lang="en"' not in results


STALE_NOTE_KO = "번역 이후 영어 원문이 바뀌었습니다"


def test_a_stale_korean_text_is_noted_as_on_the_case_page(client, tmp_path):
    """A Korean detection or step whose English changed since it was translated keeps its
    place with the case page's quiet note, linking the English; an English page says nothing."""
    store(
        tmp_path,
        plain_case(
            "K-1",
            symptoms=["rare-k"],
            detection={"en": "An alert fired.", "ko": "경보가 울렸다."},
            remediation=[
                step("Rebuilt the array", "어레이를 다시 만들었다"),
                step("Swapped", "교체했다"),
            ],
            translations={
                "detection": {
                    "source": source_hash("An older English"),
                    "english_at": "2026-12-01T09:00:00Z",
                },
                "remediation[1]": {"source": source_hash("An older step")},
            },
        ),
    )
    result = result_of(page(client, "/diagnose/?symptoms=rare-k&lang=ko"), "K-1")
    assert result.count(STALE_NOTE_KO) == 2
    note = f'<small class="stale-note" role="note">{STALE_NOTE_KO} (2026-12-01)'
    assert re.search(rf"<span>경보가 울렸다.</span>\s*{re.escape(note)}", result)
    # The English beside the Korean: a ?lang=en link would switch the whole library.
    assert 'href="/cases/K-1/both#detection"' in result and "lang=en" not in result
    assert re.search(r"<li><span>어레이를 다시 만들었다</span>\s*</li>", result)  # current
    assert 'href="/cases/K-1/both#remediation"' in result
    english = page(client, "/diagnose/?symptoms=rare-k&lang=en")
    assert "stale-note" not in english.split('class="diagnosis-results"')[1]


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("en", "Symptoms: <span>Common</span>, <span>Rare x</span>; Kind of fix: "
               "<span>Roll back</span>. Words: “&lt;b&gt;disk”."),
        ("ko", "증상: <span lang=\"en\">Common</span>, <span>드문 증상</span>; 조치 유형: "
               "<span>롤백</span>. 낱말: “&lt;b&gt;disk”."),
    ],
)  # fmt: skip
def test_a_printed_diagnosis_says_what_was_chosen(client, library, lang, said):
    """Print hides the form: the page says the choice in words in its place."""
    html = page(client, f"/diagnose/?symptoms=common&symptoms=rare-x&symptoms=common"
                        f"&fix=roll-back&q=%3Cb%3Edisk&lang={lang}")  # fmt: skip
    start = html.index('<p class="printed-selection">') + len('<p class="printed-selection">')
    assert " ".join(html[start : html.index("</p>", start)].split()) == said


@pytest.mark.parametrize("words", ["%", "--", '"'])
def test_words_of_no_letter_are_said_to_hold_none(client, library, words):
    html = page(client, "/diagnose/?" + urlencode({"q": words, "lang": "en"}))
    assert "holds no word to search for" in html


def test_common_words_are_named_before_a_root_cause_is_blamed(client, library):
    html = page(client, "/diagnose/?q=the&root_cause=config&lang=en")
    assert "holds only words too common to search for" in html
    assert "with the root cause or kind of fix chosen" not in html


def choice_counts(html, facet="symptoms"):
    """{slug: (count, greyed)} of the form's checkboxes of one facet."""
    return {
        slug: (int(count), bool(empty))
        for empty, slug, count in re.findall(
            rf'<li( class="empty")?><label><input type="checkbox" name="{facet}" '
            r'value="([^"]+)"[^>]*>.*?<span class="count"[^>]*>(\d+)</span>',
            html,
        )
    }


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_each_choice_shows_the_sidebars_count_and_an_empty_one_is_greyed(client, library, lang):
    """A Korean reader picked 지연 증가, which no case has, and got nothing: each choice says
    how many cases have it (the list's sidebar's count), and one that none has is greyed."""
    Term.objects.create(facet="symptoms", slug="latency-increase", label_en="Latency increase",
                        label_ko="지연 증가")  # fmt: skip
    html = page(client, f"/diagnose/?lang={lang}")
    counts = choice_counts(html)
    sidebar = facet_counts(page(client, f"/cases/?lang={lang}"))
    assert counts["latency-increase"] == (0, True)
    assert counts["common"] == (sidebar["symptoms=common"], False) == (8, False)
    assert counts["rare-x"] == (1, False)
    assert {slug: n for slug, (n, _) in counts.items() if n} == {
        key.split("=")[1]: n for key, n in sidebar.items() if key.startswith("symptoms=") and n
    }
    assert choice_counts(html, "components")["cache"] == (1, False)
