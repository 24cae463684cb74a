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
        ("끊겼다", "끊겼"),  # a verb: its ending, written after its stem
        ("멈추다", "멈추"),
    ],
)
def test_a_word_with_a_particle_or_ending_finds_what_its_stem_finds(korean_cases, typed, stem):
    assert korean.stem(typed) == stem
    assert found(stem)
    assert found(typed) == found(stem)


def test_no_precision_is_lost(korean_cases):
    assert found("고객들이") == {"K-6", "K-7"}
    assert korean.stem("가용성이") == "가용성"  # no other noun suffix is cut: 가용 is not it
    assert found("끊겼다") == {"K-8"} and found("멈추다") == {"K-8"}
    assert korean.stem("잃었다") == "잃었다"  # 잃: a stem of one syllable is not cut to
    assert found("스토리지가") == {"K-1", "K-2"}  # not K-4's 스토리
    assert found("스토리지") == {"K-1", "K-2"}


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
    korean.stem.cache_clear()
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
