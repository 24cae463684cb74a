"""Korean search with particles and endings: a word typed as it is written in a sentence
(`스토리지가`, `포화시켰다`) finds what its stem finds, and no more."""

import pytest

from cases.listing import korean, search
from cases.models import Case

from .library import plain_case, store

pytestmark = pytest.mark.django_db

TEXTS = {
    "K-1": "스토리지의 메타데이터 서비스가 포화되었다.",
    "K-2": "메타데이터 요청이 스토리지를 포화시켰다.",
    "K-3": "노드에서 배포가 실패했다.",
    "K-4": "스토리 기능의 배포를 되돌렸다.",  # 스토리, not 스토리지
    "K-5": "서비스 장애가 발생했다.",
    "K-6": "고객들이 서버에 접속하지 못했다.",
    "K-7": "고객 요청이 실패했다.",
    "K-8": "전원이 끊겼고 서버가 멈추지 않았다.",
    "K-9": "배포 도중 서버가 멈췄다.",
    "K-10": "스케줄러가 멈춰서 작업이 쌓였고, 운영자는 원인을 몰랐다.",
    "K-11": "멈춤 신호가 없었다.",  # a noun: not a form of 멈추다
    "K-12": "로드 밸런서의 헬스 체크가 실패했다.",
    "K-13": "헬스체크 주기를 줄였다.",
    "K-14": "체크 후 헬스 상태를 보았다.",  # both nouns, not one after the other
}


@pytest.fixture
def korean_cases(tmp_path):
    store(
        tmp_path,
        *[
            plain_case(case_id, summary={"en": "Something failed.", "ko": text})
            for case_id, text in TEXTS.items()
        ],
    )


def found(text):
    return set(search.matching(Case.objects.all(), text).values_list("id", flat=True))


@pytest.mark.parametrize(
    ("typed", "stem"),
    [
        ("스토리지가", "스토리지"),
        ("스토리지를", "스토리지"),
        ("메타데이터를", "메타데이터"),
        ("노드에서는", "노드"),
        ("서비스를", "서비스"),
        ("장애가", "장애"),
        ("포화시켰다", "포화"),
        ("배포되었다", "배포"),
        ("발생했다", "발생"),
        ("고객들이", "고객"),  # the plural 들
        ("서비스들은", "서비스"),
    ],
)
def test_a_word_with_a_particle_or_ending_finds_what_its_stem_finds(korean_cases, typed, stem):
    assert korean.stem(typed) == stem
    assert found(stem)
    assert found(typed) == found(stem)


def test_no_precision_is_lost(korean_cases):
    assert found("고객들이") == {"K-6", "K-7"}
    assert korean.stem("가용성이") == "가용성"  # no other noun suffix is cut: 가용 is not it
    assert found("끊겼다") == {"K-8"} and korean.stem("끊겼다") == "끊기"
    assert korean.stem("잃었다") == "잃었다"  # 잃: a stem of one syllable is not cut to
    assert found("스토리지가") == {"K-1", "K-2"}  # not K-4's 스토리
    assert found("스토리지") == {"K-1", "K-2"}


@pytest.mark.parametrize(
    ("typed", "forms", "cases"),
    [
        ("멈추다", ("멈췄", "멈춰"), {"K-8", "K-9", "K-10"}),  # 멈추지, 멈췄다, 멈춰서
        ("멈췄다", ("멈췄", "멈춰"), {"K-8", "K-9", "K-10"}),  # the past typed: the verb
        ("멈춰서", ("멈췄", "멈춰"), {"K-8", "K-9", "K-10"}),
        ("모르다", ("몰랐", "몰라"), {"K-10"}),  # an irregular verb
        ("몰랐다", ("몰랐", "몰라"), {"K-10"}),
    ],
)
def test_a_verb_finds_the_forms_an_ending_fuses_with(korean_cases, typed, forms, cases):
    """Texts are mostly in the past tense, whose 었 fuses with a stem ending in a vowel."""
    assert korean.fused_forms(typed) == forms
    assert korean.stem(typed) == ("멈추" if typed.startswith("멈") else "모르")
    assert found(typed) == cases


def test_fused_forms_are_searched_within_the_search_syntax(korean_cases):
    assert found('"서버가 멈추다"') == {"K-8", "K-9"}  # a phrase: 서버가 멈추지, 서버가 멈췄다
    assert found("멈추다 -배포") == {"K-8", "K-10"}
    assert found("-멈추다 서버가") == {"K-6"}  # the one 서버 that did not stop
    assert found("멈추다 or 고객") == {"K-6", "K-7", "K-8", "K-9", "K-10"}
    assert found("만들다") == set() and korean.fused_forms("만들다") == ()  # 만들었: 만들


@pytest.mark.parametrize(
    ("typed", "cases"),
    [
        ("헬스체크", {"K-12", "K-13"}),
        ("헬스체크가", {"K-12", "K-13"}),
        ("헬스 체크", {"K-12", "K-13", "K-14"}),  # two words, anywhere (체크 ends 헬스체크)
        ('"헬스 체크"', {"K-12", "K-13"}),  # a phrase: one after the other, or together
        ('"헬스 체크가"', {"K-12", "K-13"}),
        ('"체크 헬스"', set()),  # in its order only
        ('실패했다 -"헬스 체크"', {"K-3", "K-7"}),  # left out, apart or together
    ],
)
def test_a_compound_finds_its_nouns_written_apart_and_together(korean_cases, typed, cases):
    assert found(typed) == cases


def test_a_quoted_phrase_finds_its_compound_only_where_kiwi_reads_one():
    assert korean.phrase_compounds('"헬스 체크" "데이터 센터가"') == {
        ("헬스", "체크"): "헬스체크",
        ("데이터", "센터"): "데이터센터",
    }
    assert korean.phrase_compounds('"서버 실" "체크 후" "서버가 멈추다" 헬스 체크') == {}


def test_a_compound_is_split_only_into_nouns_kiwi_reads_in_it():
    assert korean.analysed("데이터센터").spaced == ("데이터", "센터")
    assert korean.analysed("메타데이터를").spaced == ("메타", "데이터")
    assert korean.analysed("서버실").spaced == ()  # one noun for Kiwi
    assert korean.analysed("재시도").spaced == ()  # 재: a prefix, not a noun
    assert korean.analysed("가용성이").spaced == ()  # 성: a suffix
    assert korean.analysed("스토리지").spaced == ()


def test_a_fused_form_is_highlighted_in_the_snippet(korean_cases):
    case = Case.objects.get(id="K-9")
    search.add_snippets([case], "멈추다", "ko")
    assert "<mark>멈췄다</mark>" in str(case.snippet)


@pytest.mark.parametrize("word", ["스토리지", "데이터", "네트워크", "가", "timeouts", "A가"])
def test_a_bare_word_a_single_syllable_and_latin_words_are_searched_as_typed(word):
    assert korean.stems(word) == word


@pytest.mark.parametrize(
    "typed, stem", [("NFS의", "NFS"), ("S3가", "S3"), ("timeouts가", "timeouts"), ("API를", "API")]
)
def test_a_latin_word_with_a_particle_is_searched_as_the_latin_word(typed, stem):
    assert korean.stems(typed) == stem


def test_search_syntax_is_kept_around_the_stems():
    assert korean.stems('"메타데이터 서비스를" -스토리지가 or timeout') == (
        '"메타데이터 서비스" -스토리지 or timeout'
    )


def test_the_analyser_is_loaded_once_and_only_for_korean_words(monkeypatch):
    monkeypatch.setattr(korean, "_kiwi", None)
    korean.analysed.cache_clear()
    assert korean.stems("timeout -nfs") == "timeout -nfs"
    assert korean._kiwi is None  # an English search does not load it
    korean.stems("스토리지가")
    loaded = korean._kiwi
    assert loaded is not None
    korean.stems("메타데이터를")
    assert korean._kiwi is loaded


def test_the_analyser_is_loaded_whole_and_starts_no_thread(monkeypatch):
    """gunicorn's master loads it before forking its workers: a fork carries no thread."""
    import os

    monkeypatch.setattr(korean, "_kiwi", None)
    before = len(os.listdir("/proc/self/task"))
    korean.analyser()
    korean.analyser().tokenize("메타데이터를")
    assert len(os.listdir("/proc/self/task")) == before


def test_a_phrase_found_written_together_is_highlighted(korean_cases):
    case = Case.objects.get(id="K-13")
    search.add_snippets([case], '"헬스 체크"', "ko")
    assert "<mark>헬스체크</mark>" in str(case.snippet)


def test_phrases_find_their_compounds_whatever_their_order(tmp_path):
    """The shorter phrase's form is inside the longer one's: "헬스 체크" in "서버 헬스 체크"."""
    store(
        tmp_path,
        plain_case("P-1", summary={"en": "x", "ko": "서버헬스체크 실패와 헬스체크 재시도"}),
    )
    assert found('"서버 헬스 체크" "헬스 체크"') == {"P-1"}
    assert found('"헬스 체크" "서버 헬스 체크"') == {"P-1"}


SHORT_STEM_TEXTS = {
    "S-1": "카나리 단계가 문제를 잡았지만 배포가 멈추지 않았다.",
    "S-2": "Redis 없이는 앱을 시작할 수 없었다.",
    "S-3": "잡음이 섞인 신호를 걸렀다.",  # 잡음: a noun, not a form of 잡다
    "S-4": "경보가 늦었고 로그도 늦게 도착했다.",
}


@pytest.fixture
def short_stem_cases(tmp_path):
    store(
        tmp_path,
        *[
            plain_case(case_id, summary={"en": "Something failed.", "ko": text})
            for case_id, text in SHORT_STEM_TEXTS.items()
        ],
    )


@pytest.mark.parametrize(
    ("typed", "cases"),
    [
        ("잡았는데", {"S-1"}),  # 잡았지만: the same verb, another ending
        ("잡으려다", {"S-1"}),
        ("앱이", {"S-2"}),  # 앱을: the same noun, another particle
        ("없으면", {"S-2"}),  # 없었다
        ("늦어서", {"S-4"}),  # 늦었고, 늦게
    ],
)
def test_a_word_of_a_one_syllable_stem_finds_that_stems_other_forms(short_stem_cases, typed, cases):
    """A stem of one syllable is not searched for by itself (it would begin too many words:
    잡 begins 잡음), but in its forms of two syllables or more."""
    assert found(typed) == cases


def test_a_one_syllable_stem_keeps_its_word_and_light_verbs_stay_as_typed():
    assert korean.stem("잡았는데") == "잡았는데"
    assert "잡았" in korean.fused_forms("잡았는데") and "잡고" in korean.fused_forms("잡았는데")
    assert all(len(form) > 1 for form in korean.fused_forms("떴다"))  # not 떠, 떴
    assert korean.fused_forms("하고") == ()  # 하다: found in nearly every text
    assert korean.fused_forms("가") == ()
