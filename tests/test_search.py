"""Full-text search: English and Korean at once, web search syntax, ranking, snippets, ids."""

import re
import unicodedata
from urllib.parse import urlencode

import pytest
from django.db import connection
from django.http import QueryDict

from cases.listing import search
from cases.listing.selection import CaseFilter
from cases.models import Case, Organisation, RemediationStep

from .conftest import import_cases, seed_case, write_json
from .library import REVIEWED, listed_ids, no_text, plain_case, store

pytestmark = pytest.mark.django_db


def found(client, words, **params):
    response = client.get("/cases/", {"q": words, "sort": "date", **params})
    assert response.status_code == 200, response.status_code
    return listed_ids(response.content.decode())


def ranked(client, words, **params):
    """The ids a search lists, in the order of relevance."""
    response = client.get("/cases/", {"q": words, **params})
    assert response.status_code == 200, response.status_code
    return listed_ids(response.content.decode())


def test_english_words_match_their_inflected_forms(client, tmp_path):
    store(
        tmp_path,
        plain_case(
            "E-1", summary={"en": "The gateway timeout cascaded to the callers.", "ko": None}
        ),
        plain_case("E-2", summary={"en": "Requests were throttled by the balancer.", "ko": None}),
    )
    assert found(client, "timeouts") == ["E-1"]
    assert found(client, "cascading") == ["E-1"]
    assert found(client, "throttling balancers") == ["E-2"]


def test_korean_words_match_inside_inflected_forms_and_compounds(client, tmp_path):
    store(
        tmp_path,
        plain_case(
            "K-1",
            summary={"en": "Something failed.", "ko": "VAST 스토리지의 메타데이터가 포화됐다."},
        ),
        plain_case("K-2", summary={"en": "Something failed.", "ko": "네트워크 장비가 고장 났다."}),
    )
    assert found(client, "스토리지") == ["K-1"]
    assert found(client, "메타데이터") == ["K-1"]
    assert found(client, "포화") == ["K-1"]
    assert found(client, "데이터") == ["K-1"]  # inside the compound 메타데이터
    assert found(client, "네트워크") == ["K-2"]
    # Any word finds a case (each has one of the two); none has both, so neither is first.
    assert found(client, "스토리지 네트워크") == ["K-1", "K-2"]


def test_a_single_korean_syllable_matches_only_a_whole_word(client, tmp_path):
    store(
        tmp_path,
        plain_case("Y-1", summary={"en": "Something failed.", "ko": "가용성이 떨어졌다."}),
        plain_case("Y-2", summary={"en": "Something failed.", "ko": "서버가 멈췄다, 가 구역."}),
    )
    assert found(client, "가") == ["Y-2"]  # the word 가, not every word starting with it
    assert found(client, "가용") == ["Y-1"]
    assert found(client, "버가") == ["Y-2"]  # two syllables: inside 서버가


def test_a_latin_or_number_word_with_a_korean_ending_is_found_by_itself(client, tmp_path):
    # Korean texts only: the English ones say nothing of NFS, S3 or timeouts.
    store(
        tmp_path,
        plain_case("M-1", summary={"en": "Something failed.", "ko": "NFS의 메타데이터가 멈췄다."}),
        plain_case(
            "M-2", summary={"en": "Something failed.", "ko": "S3가 느려져 timeouts가 늘었다."}
        ),
        plain_case("M-3"),
    )
    assert found(client, "NFS") == ["M-1"]
    assert found(client, "nfs") == ["M-1"]
    assert found(client, "NFS의") == ["M-1"]
    assert found(client, '"NFS 메타데이터"') == ["M-1"]
    assert found(client, "S3") == ["M-2"]
    assert found(client, "timeout") == ["M-2"]  # the English stem of the leading run
    assert found(client, "메타데이터 -nfs") == []


def test_a_latin_word_with_a_particle_finds_the_word_however_it_is_followed(client, tmp_path):
    store(
        tmp_path,
        plain_case("N-1", summary={"en": "Something failed.", "ko": "NFS의 메타데이터가 멈췄다."}),
        plain_case("N-2", summary={"en": "Something failed.", "ko": "NFS가 멈췄다."}),
        plain_case("N-3", summary={"en": "The NFS server hung.", "ko": None}),
        plain_case("N-4", summary={"en": "The GPU failed.", "ko": "GPU가 멈췄다."}),
    )
    assert found(client, "NFS의") == ["N-1", "N-2", "N-3"]
    assert found(client, "NFS가") == found(client, "NFS")
    assert found(client, "GPU가") == ["N-4"]


def test_a_latin_word_the_search_leaves_out_keeps_its_particle(client, tmp_path):
    """`IT의` cut to `IT` would search for the stopword `it`, so for nothing; `OR가` cut to
    `OR` would be web search syntax. They are searched as typed, as prefixes."""
    store(
        tmp_path,
        plain_case("W-1", summary={"en": "Something failed.", "ko": "IT의 시스템이 멈췄다."}),
        plain_case("W-2", summary={"en": "Something failed.", "ko": "ON이 켜지지 않았다."}),
        plain_case("W-3", summary={"en": "Something failed.", "ko": "OR가 멈췄다."}),
        plain_case("W-4", summary={"en": "Something failed.", "ko": "CAN의 버스가 멈췄다."}),
    )
    assert found(client, "IT의") == ["W-1"]
    assert found(client, "it의") == ["W-1"]
    assert found(client, "ON이") == ["W-2"]
    assert found(client, "OR가") == ["W-3"]
    assert ranked(client, "OR가 멈췄다")[0] == "W-3"  # the one with both words first
    assert found(client, "CAN의") == ["W-4"]
    assert found(client, "IT의 NFS의") == ["W-1"]  # either word: no case has NFS
    # Each word on its own: a word searched as typed leaves the others' stems alone.
    store(
        tmp_path,
        plain_case("W-5", summary={"en": "The NFS server hung.", "ko": None}),
        plain_case("W-6", summary={"en": "Something failed.", "ko": "NFS가 멈췄다."}),
    )
    assert found(client, "NFS의") == ["W-5", "W-6"]
    assert found(client, "NFS의 -IT의") == ["W-5", "W-6"]
    assert found(client, "NFS의 or OR가") == ["W-3", "W-5", "W-6"]


def test_a_quoted_phrase_matches_only_the_words_together(client, tmp_path):
    saturated = {"en": "The metadata service saturated.", "ko": "메타데이터 서비스가 포화됐다."}
    lost = {"en": "The service lost its metadata.", "ko": "서비스가 메타데이터를 잃었다."}
    store(tmp_path, plain_case("P-1", summary=saturated), plain_case("P-2", summary=lost))
    assert found(client, "metadata service") == ["P-1", "P-2"]
    assert found(client, '"metadata service"') == ["P-1"]
    assert found(client, '"메타데이터 서비스"') == ["P-1"]


def test_words_are_searched_as_typed_on_any_keyboard(client, tmp_path):
    """Decomposed Hangul (as macOS may send it), full-width letters and curly quotes find
    what their plain forms find."""
    saturated = {"en": "The NFS metadata service saturated.", "ko": "메타데이터 서비스가 포화됐다."}
    lost = {"en": "The service lost its metadata.", "ko": "서비스가 메타데이터를 잃었다."}
    store(tmp_path, plain_case("T-1", summary=saturated), plain_case("T-2", summary=lost))
    decomposed = unicodedata.normalize("NFD", "메타데이터 서비스가")
    assert decomposed != "메타데이터 서비스가"
    assert found(client, decomposed) == ["T-1", "T-2"]
    assert found(client, "ＮＦＳ") == ["T-1"]
    assert found(client, "“메타데이터 서비스”") == ["T-1"]
    assert found(client, "“metadata service”") == ["T-1"]
    assert found(client, "„metadata service“") == ["T-1"]
    # A no-break space (macOS's Option-Space) between words is a space: two words, not one.
    # (T-2 has both words, so it comes first; T-1 has one of them.)
    assert ranked(client, "lost\u00a0metadata") == ["T-2", "T-1"]
    assert ranked(client, "lost metadata") == ["T-2", "T-1"]
    assert ranked(client, "잃었다\u202f메타데이터") == ["T-2", "T-1"]
    assert ranked(client, "lost\u2028metadata") == ["T-2", "T-1"]
    assert ranked(client, "lost\u0085metadata") == ["T-2", "T-1"]
    html = client.get("/cases/", {"q": "ＮＦＳ\u3000metadata"}).content.decode()
    assert "NFS metadata" in html  # the chip says what was searched for
    diagnosed = client.get("/diagnose/", {"q": "ＮＦＳ"}).content.decode()
    assert 'href="/cases/T-1"' in diagnosed


def test_a_minus_word_leaves_cases_out(client, tmp_path):
    saturated = {"en": "The metadata service saturated.", "ko": "스토리지 메타데이터"}
    lost = {"en": "The service lost its metadata.", "ko": "네트워크 메타데이터"}
    store(tmp_path, plain_case("X-1", summary=saturated), plain_case("X-2", summary=lost))
    assert found(client, "metadata -lost") == ["X-1"]
    assert found(client, '-"metadata service" service') == ["X-2"]
    assert found(client, "메타데이터 -네트워크") == ["X-1"]


def test_or_between_words_finds_either(client, tmp_path):
    store(
        tmp_path,
        plain_case("O-1", summary={"en": "A certificate expired.", "ko": None}),
        plain_case("O-2", summary={"en": "A disk filled up.", "ko": None}),
    )
    assert found(client, "certificate or disk") == ["O-1", "O-2"]
    assert found(client, "certificate | disk") == ["O-1", "O-2"]  # PostgreSQL's own "or"
    assert found(client, "certificate|disk") == ["O-1", "O-2"]
    # Without `or`, either word still finds a case (neither has both).
    assert found(client, "certificate disk") == ["O-1", "O-2"]


def test_a_search_of_only_common_words_says_so_in_the_readers_language(client, tmp_path):
    store(tmp_path, plain_case("S-1", summary={"en": "The disk filled up.", "ko": None}))
    for words in ("the", "the and of", "the?!"):
        html = client.get("/cases/", {"q": words}).content.decode()
        assert listed_ids(html) == []
        assert "holds only words too common to search for" in html, words
        assert "No case matches all of these filters" not in html
    for marks in ("?!", "%", "--", '"', "*", "_", "__"):  # no word at all, common or not
        html = client.get("/cases/", {"q": marks}).content.decode()
        assert listed_ids(html) == []
        assert "holds no word to search for" in html and "too common" not in html, marks
    korean = client.get("/cases/", {"q": "the", "lang": "ko"}).content.decode()
    assert "너무 흔해서 검색하지 않는 낱말만 있습니다" in korean
    # A search that has a word, and finds nothing, says so: a search is not a filter.
    html = client.get("/cases/", {"q": "the certificate", "lang": "en"}).content.decode()
    assert "No case matches this search." in html and "too common" not in html
    korean = client.get("/cases/", {"q": "the certificate", "lang": "ko"}).content.decode()
    assert "이 검색에 맞는 사례가 없습니다." in korean and "필터를 모두" not in korean
    assert found(client, "the disk") == ["S-1"]


@pytest.mark.parametrize(
    "field", ["title", "summary", "trigger", "symptoms_text", "detection", "lessons", "remediation"]
)
def test_every_searchable_text_is_searched_in_both_languages(client, tmp_path, field, settings):
    text = {"en": "The zanzibar relay broke.", "ko": "잔지바르중계기가 멈췄다."}
    value = [{"text": text}] if field == "remediation" else text
    store(tmp_path, plain_case("F-1", **{field: value}), plain_case("F-2"))
    assert found(client, "zanzibar") == ["F-1"]
    assert found(client, "relays") == ["F-1"]
    assert found(client, "잔지바르") == ["F-1"]
    assert found(client, "중계기") == ["F-1"]


def test_organisation_names_are_searched(client, tmp_path):
    store(
        tmp_path, plain_case("G-1", org="Zanzibar Networks", org_slug="zanzibar"), plain_case("G-2")
    )
    assert found(client, "zanzibar") == ["G-1"]


def test_ranking_puts_a_title_match_first(client, tmp_path):
    body = {"en": "Zanzibar again. The zanzibar relay, zanzibar everywhere, zanzibar.", "ko": None}
    store(
        tmp_path,
        plain_case("R-1", date="2020-01-01", title={"en": "Zanzibar outage", "ko": None}),
        plain_case("R-2", date="2025-01-01", summary=body, lessons=body, detection=body),
        plain_case("R-3", date="2024-01-01", lessons={"en": "Zanzibar once.", "ko": None}),
    )
    response = client.get("/cases/", {"q": "zanzibar"})
    assert listed_ids(response.content.decode()) == ["R-1", "R-2", "R-3"]
    assert found(client, "zanzibar") == ["R-2", "R-3", "R-1"]  # by date when asked


def test_snippets_highlight_the_matches_and_escape_case_text(client, tmp_path):
    text = 'When a < b && c > "d", the <em>zanzibar</em> relay failed; <img src=x onerror=1>.'
    store(tmp_path, plain_case("S-1", summary={"en": text, "ko": None}))
    html = client.get("/cases/", {"q": "zanzibar relays"}).content.decode()
    snippet = re.search(r'<p class="snippet">(.*?)</p>', html, re.S).group(1)
    assert "<mark>zanzibar</mark>" in snippet and "<mark>relay</mark>" in snippet
    assert "a &lt; b &amp;&amp; c &gt; &quot;d&quot;" in snippet
    assert "<img" not in html and "<em>" not in snippet
    assert re.sub(r"</?mark>", "", snippet).count("<") == 0


def test_a_korean_reader_gets_a_korean_snippet_or_an_english_one_marked_as_such(client, tmp_path):
    korean = {"en": "The relay broke.", "ko": "중계기의 전원이 꺼졌다."}
    english_only = {"en": "The relay and the zanzibar broke.", "ko": "무언가 멈췄다."}
    store(tmp_path, plain_case("S-1", summary=korean), plain_case("S-2", summary=english_only))
    html = client.get("/cases/", {"q": "중계기", "lang": "ko"}).content.decode()
    assert '<p class="snippet"><mark>중계기의</mark> 전원이 꺼졌다.</p>' in html
    html = client.get("/cases/", {"q": "zanzibar", "lang": "ko"}).content.decode()
    # Cut into its sentence at the start: the reader is told so.
    assert '<p class="snippet" lang="en">…relay and the <mark>zanzibar</mark> broke.</p>' in html


@pytest.mark.parametrize("words", ["IL-0137", "il-0137", "  Il-0137 ", "ＩＬ－０１３７"])
def test_a_search_for_a_case_id_goes_to_the_case(client, seeded, words):
    response = client.get("/cases/", {"q": words})
    assert response.status_code == 302 and response["Location"] == "/cases/IL-0137"


def test_a_search_for_the_id_of_no_case_searches_as_usual(client, seeded):
    response = client.get("/cases/", {"q": "IL-9999"})
    assert response.status_code == 200 and listed_ids(response.content.decode()) == []


def test_words_that_are_only_stop_words_or_operators_find_nothing_without_error(client, seeded):
    for words in ["the", "-", '"', "!!", "a & b | c", ":*", "'", "(((", "스토리지:*"]:
        response = client.get("/cases/", {"q": words})
        assert response.status_code == 200, words


def test_search_is_answered_by_the_gin_index(seeded):
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
    for words in ["timeouts", "스토리지", '"metadata service" -nfs', "timeouts storage -nfs"]:
        plan = search.matching(Case.objects.order_by(), words).explain()
        assert "case_search_idx" in plan, plan


def test_a_search_choosing_latin_stems_in_the_query_is_answered_by_the_gin_index(seeded):
    """Each Latin stem's choice (`NFS` searched, `IT` not) is made of constants: PostgreSQL
    folds it at planning, and the index answers as for any other search."""
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
    for words in ["NFS의", "NFS의 -IT의", "OR가 or 스토리지가"]:
        plan = search.matching(Case.objects.order_by(), words).explain()
        assert "case_search_idx" in plan and "CASE" not in plan, plan


def test_the_search_vector_follows_every_write(client, tmp_path):
    store(tmp_path, plain_case("W-1", summary={"en": "Alpha broke.", "ko": None}),
          plain_case("W-2", review=REVIEWED))  # fmt: skip
    assert found(client, "alpha") == ["W-1"]
    # Re-import: the texts, the remediation steps and the organisation's name change.
    store(
        tmp_path,
        plain_case(
            "W-1",
            summary={"en": "Beta broke.", "ko": None},
            remediation=[{"text": {"en": "Rebooted the gamma router", "ko": None}}],
        ),
        name="again.json",
    )
    assert found(client, "alpha") == []
    assert found(client, "beta") == ["W-1"]
    assert found(client, "gamma") == ["W-1"]
    # Writes that are not imports: a step edited, steps deleted, an organisation renamed.
    RemediationStep.objects.filter(case_id="W-1").update(text_en="Replaced the delta switch")
    assert found(client, "gamma") == [] and found(client, "delta") == ["W-1"]
    RemediationStep.objects.filter(case_id="W-1").delete()
    assert found(client, "delta") == []
    Organisation.objects.filter(slug="example-org").update(name="Epsilon Systems")
    assert found(client, "epsilon") == ["W-1", "W-2"]
    case = Case.objects.get(id="W-2")
    case.title_en = "Zeta outage"
    case.save()
    assert found(client, "zeta") == ["W-2"]


def test_the_seed_case_is_found_by_its_english_and_korean_words(client, tmp_path):
    import_cases(write_json(tmp_path / "seed.json", seed_case()))
    for words in [
        "readahead",
        "initialisations",
        "VAST",
        "스토리지",
        "메타데이터",
        "샤딩",
        '"small random"',
    ]:
        assert found(client, words) == ["IL-0137"], words


def test_an_english_reader_searching_in_korean_gets_the_korean_snippet_marked_as_such(
    client, tmp_path
):
    import_cases(write_json(tmp_path / "seed.json", seed_case()))  # its Korean texts: 샤딩을
    html = client.get("/cases/", {"q": "샤딩", "lang": "en"}).content.decode()
    assert listed_ids(html) == ["IL-0137"]
    snippet = re.search(r'<p class="snippet" lang="ko">(.*?)</p>', html, re.S)
    assert snippet and "<mark>샤딩을</mark>" in snippet.group(1)
    # English words still give the English snippet, unmarked.
    html = client.get("/cases/", {"q": "readahead", "lang": "en"}).content.decode()
    snippet = re.search(r'<p class="snippet">(.*?)</p>', html, re.S)
    assert snippet and "<mark>readahead</mark>" in snippet.group(1)


@pytest.mark.parametrize("rank_all", [1000, 2], ids=["ranked", "title matches first"])
def test_a_phrase_search_pages_through_its_cases_in_order_as_counted(
    client, tmp_path, settings, monkeypatch, rank_all
):
    """The counts' pass picks the page's cases (cases/listing/facet_counts.py): page after page they
    are the selection's cases in the list's order, as many as counted, with either order of
    a search (ranked, or title matches first when many cases match)."""
    monkeypatch.setattr(search, "RANK_ALL", rank_all)
    settings.INCIDENTLIB_PAGE_SIZE = 2
    phrase = {"en": "The load balancer dropped connections.", "ko": None}
    apart = {"en": "The load moved off the balancer.", "ko": None}
    store(
        tmp_path,
        *[
            plain_case(
                f"L-{n}",
                date=f"{2010 + n % 4}-01-0{1 + n % 3}",
                title={"en": "Load balancer outage" if n % 3 == 0 else "An outage", "ko": None},
                summary=apart if n == 4 else phrase,
                lessons=phrase if n % 2 else no_text(),
                severity="high" if n % 4 else "low",
            )
            for n in range(1, 10)
        ],
    )
    for params in [{}, {"severity": "high"}, {"sort": "date"}]:
        query = {"q": '"load balancer"', **params}
        filterset = CaseFilter(QueryDict(urlencode(query)), Case.objects.published())
        assert filterset.is_valid()
        expected = list(filterset.qs.values_list("id", flat=True))
        assert "L-4" not in expected and len(expected) >= 5, params
        listed = []
        for page in range(1, (len(expected) + 1) // 2 + 1):
            html = client.get("/cases/", {**query, "page": page}).content.decode()
            assert re.search(rf'id="result-count">{len(expected)} cases<', html), (params, page)
            listed += listed_ids(html)
        assert listed == expected, params


@pytest.mark.parametrize(
    ("words", "language"),
    [("데이터", "ko"), ("서버", "ko"), ("장애", "ko"), ("UTC", "ko"), ("storage", "en")],
)
def test_a_snippets_passages_are_whole_words_marked_where_they_cut(client, words, language):
    """PostgreSQL cuts a headline's passages at its own tokens, which split a word as a reader
    sees it (`37분(PST)부터`: `부터 us-east-1 의 S3 가 …`; `Kakao's`: `Kakao`). Each passage
    of every snippet begins after a space (or at the start of the text) and ends before one,
    or before punctuation alone; "…" before and after the snippet says where it cuts."""
    from html import unescape
    from io import StringIO

    from django.core.management import call_command

    call_command("load_demo", stdout=StringIO(), stderr=StringIO())
    html = client.get("/cases/", {"q": words, "lang": language}).content.decode()
    row = r'<li class="case-row">.*?href="/cases/([^"]+)".*?'
    snippets = re.findall(row + r'<p class="snippet"(?: lang="(\w+)")?>(.*?)</p>', html, re.S)
    assert len(snippets) >= 3
    for case_id, snippet_language, snippet in snippets:
        case = Case.objects.get(id=case_id)
        suffix = f"_{snippet_language or language}"
        texts = [getattr(case, name + suffix) for name in search.SNIPPET_TEXTS]
        text = "\n\n".join(t for t in texts if t)
        shown = unescape(re.sub(r"</?mark>", "", snippet))
        cut_before, cut_after = shown.startswith("…"), shown.endswith("…")
        passages = shown.removeprefix("…").removesuffix("…").split(" … ")
        for passage in passages:
            at = text.find(passage)
            assert at >= 0, (case_id, passage)
            end = at + len(passage)
            assert at == 0 or text[at - 1].isspace(), (case_id, text[max(0, at - 15) : end])
            rest = re.match(r"\S*", text[end:]).group()
            assert not any(c.isalnum() for c in rest), (case_id, text[at : end + 15])
        # "…" says where the snippet cuts into the text: not at its start or a paragraph's,
        # nor at its end, a paragraph's or a sentence's.
        first, last = text.find(passages[0]), text.find(passages[-1]) + len(passages[-1])
        assert cut_before == (first > 0 and text[first - 1] != "\n"), (case_id, shown)
        ends = last == len(text) or text[last] == "\n" or passages[-1][-1] in ".!?"
        assert cut_after == (not ends), (case_id, shown)


def test_a_description_in_a_readers_own_words_finds_its_case_first(client, tmp_path):
    """Not every word of a description is in the case it describes: any meaningful word finds
    a case, and the cases sharing the most (and the rarest) come first."""
    store(
        tmp_path,
        plain_case(
            "L-1",
            summary={
                "en": "A memory leak in the cache process slowed requests until clients timed out.",
                "ko": "캐시 프로세스의 메모리 누수로 요청이 느려져 클라이언트가 타임아웃됐다.",
            },
        ),
        plain_case(
            "L-2",
            summary={
                "en": "A certificate expired and handshakes failed.",
                "ko": "인증서가 만료되어 핸드셰이크가 실패했다.",
            },
        ),
        plain_case(
            "L-3",
            summary={
                "en": "The DNS resolver ran out of memory.",
                "ko": "DNS 리졸버의 메모리가 부족했다.",
            },
        ),
    )
    assert ranked(client, "memory leak caused timeouts in our api gateway")[0] == "L-1"
    assert ranked(client, "메모리 누수 때문에 요청이 계속 타임아웃 남")[0] == "L-1"
    assert ranked(client, "pods OOM killed because the resolver used all its memory")[0] == "L-3"
    assert ranked(client, "tls handshake errors after the cert expired")[0] == "L-2"
    html = client.get("/cases/", {"q": "why did the certificate expire on us"}).content.decode()
    assert "No case matches" not in html and listed_ids(html) == ["L-2"]


def test_cases_having_every_word_come_before_better_partial_matches(client, tmp_path):
    store(
        tmp_path,
        plain_case(
            "E-1",
            date="2020-01-01",
            lessons={"en": "Zanzibar met a quokka.", "ko": None},
        ),
        plain_case(
            "E-2",
            date="2025-01-01",
            title={"en": "Zanzibar, zanzibar and zanzibar", "ko": None},
            summary={"en": "Zanzibar again, zanzibar everywhere.", "ko": None},
        ),
    )
    assert ranked(client, "zanzibar quokka") == ["E-1", "E-2"]
    assert ranked(client, "zanzibar") == ["E-2", "E-1"]  # one word: the better match first


def test_a_common_word_beside_rarer_ones_finds_no_case_of_its_own(client, tmp_path, monkeypatch):
    """A word in more than COMMON cases only weighs in the order when rarer words are
    searched beside it; alone, or with only common words, it finds its cases."""
    monkeypatch.setattr(search, "COMMON", 2)
    store(
        tmp_path,
        plain_case("C-1", date="2021-01-01", summary={"en": "The service broke.", "ko": None}),
        plain_case("C-2", date="2022-01-01", summary={"en": "The service stalled.", "ko": None}),
        plain_case("C-3", date="2023-01-01", summary={"en": "A zanzibar service.", "ko": None}),
    )
    assert found(client, "service zanzibar") == ["C-3"]
    assert found(client, "service") == ["C-3", "C-2", "C-1"]
    # "incident" is in every title: two common words find the cases having either.
    assert found(client, "service incident") == ["C-3", "C-2", "C-1"]


def test_a_long_search_counts_its_words_cases_in_one_query(
    client, tmp_path, django_assert_max_num_queries
):
    store(tmp_path, plain_case("Q-1", summary={"en": "The disk filled up.", "ko": None}))
    client.get("/cases/", {"q": "disk full"})  # the taxonomy, the library's state: cached
    with django_assert_max_num_queries(20) as short:
        client.get("/cases/", {"q": "disk full", "page": 1})
    with django_assert_max_num_queries(20) as long:
        client.get(
            "/cases/",
            {"q": "disk full of logs after retries wrote errors for hours without rotation"},
        )
    assert len(long.captured_queries) == len(short.captured_queries)


def test_a_word_the_statistics_show_common_is_not_counted(tmp_path, monkeypatch):
    """A word, or the prefix of a Korean one, that PostgreSQL's statistics (ANALYZE) show in
    many more than COMMON cases counts as common without its cases being counted: here the
    statistics are left from before an edit that took the words out of all cases but one,
    which counting would see. A library smaller than COMMON * 10 cases is counted."""
    monkeypatch.setattr(search, "COMMON", 2)
    store(
        tmp_path,
        *[
            plain_case(
                f"S-{n}",
                summary={"en": f"The service broke {n}.", "ko": "배포가 실패했다."},
            )
            for n in range(25)
        ],
        plain_case("S-25", summary={"en": "A zanzibar quokka.", "ko": None}),
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE cases_case")
    Case.objects.exclude(id__in=["S-0", "S-25"]).update(
        summary_en="The relay broke.", summary_ko="멈췄다."
    )
    assert search.Search("service 배포 zanzibar").frequencies == (26, [3, 3, 1])
    monkeypatch.setattr(search, "COMMON", 3)
    assert search.Search("service 배포 zanzibar").frequencies == (26, [1, 1, 1])


def test_common_words_alone_find_the_cases_having_the_most_of_them(client, tmp_path, monkeypatch):
    """With every word common (in more than COMMON cases), a search finds the cases having
    every word; with none having them all, those having all but one; never the cases having
    one common word alone, which would be most of a large library."""
    monkeypatch.setattr(search, "COMMON", 2)

    def case(case_id, words):
        return plain_case(case_id, summary={"en": f"The {words} failed.", "ko": None})

    store(
        tmp_path,
        case("X-1", "zanzibar quokka"),
        case("X-2", "quokka marmot"),
        case("X-3", "zanzibar marmot"),
        case("X-4", "zanzibar quokka"),
        case("X-5", "marmot"),
    )
    assert sorted(found(client, "zanzibar quokka marmot")) == ["X-1", "X-2", "X-3", "X-4"]
    assert sorted(found(client, "zanzibar quokka")) == ["X-1", "X-4"]
