"""The library's one ranking of words (cases/ranking.py, Search.words_score): a rare word a
reader typed weighs more than common words a long case says in many forms, and a word read
in several forms (a verb's fused forms) counts as much as one read in one."""

import pytest

from cases.listing import search
from cases.models import Case

from .library import plain_case, store

pytestmark = pytest.mark.django_db


def ordered(text):
    return list(
        search.by_relevance(search.matching(Case.objects.all(), text), text).values_list(
            "id", flat=True
        )
    )


def test_a_short_case_with_the_rare_word_outranks_a_long_one_saying_common_words_often(
    tmp_path,
):
    """The failing query of issue 32's Korean set: the case it was written for said 카나리
    once, in its summary; a long case said 배포 and 문제 in many forms, in its title too."""
    long_text = (
        "배포가 실패했다. 배포를 되돌렸다. 배포된 설정에 문제가 있었다. 배포에서 문제를 찾았다. "
        "배포하던 중 문제는 커졌다. 배포용 도구의 문제로 배포는 멈추지 않았다. "
    ) * 3
    store(
        tmp_path,
        plain_case(
            "R-1",
            title={"en": "Canary", "ko": "네트워크 설정에서 IP 블록이 빠졌다"},
            summary={"en": "x", "ko": "카나리 단계가 문제를 잡았지만 배포가 멈추지 않았다."},
        ),
        plain_case(
            "R-2",
            title={"en": "Rollout", "ko": "배포 문제로 배포가 멈추지 않은 배포 장애"},
            summary={"en": "x", "ko": long_text},
            lessons={"en": "x", "ko": "카나리 배포가 필요하다. " + long_text},
        ),
        plain_case("R-3", summary={"en": "x", "ko": "배포 문제가 생겼다."}),
    )
    assert ordered("카나리에서 문제를 잡았는데 배포가 안 멈춤")[0] == "R-1"


def test_a_verb_read_in_its_fused_forms_counts_as_a_word_read_in_one(tmp_path):
    """ts_rank divides the rank of `'멈추':* | '멈췄':* | '멈춰':*` by three: undone."""
    store(
        tmp_path,
        plain_case("V-1", summary={"en": "x", "ko": "스케줄러가 멈췄다."}),
        plain_case("V-2", summary={"en": "x", "ko": "큐 적체가 생겼다."}),
    )
    query = search.LibraryQuery("멈추다")
    assert query.operands == 3
    assert search.LibraryQuery("스토리지가").operands == 1
    assert search.LibraryQuery('"멈추다 서버"').operands == 1
    # Each word in one case, as rare: neither outranks the other by its number of forms.
    scores = dict(
        Case.objects.annotate(score=search.Search("멈추다 적체").words_score()).values_list(
            "id", "score"
        )
    )
    assert scores["V-1"] == pytest.approx(scores["V-2"], rel=0.35)


def test_korean_words_that_say_little_do_not_outweigh_a_rare_one(tmp_path):
    """Issue 32's "다이노가 데이터베이스에 연결을 못 하고 로그도 늦게 옴": 못, 하고 (and 안)
    are in most Korean texts, but written apart (`못 했다`) they are rare words for the
    search, and a long case saying them outranked the one with the rare 다이노."""
    store(
        tmp_path,
        plain_case("D-1", title={"en": "Dynos", "ko": "다이노가 바깥 네트워크에 연결을 잃었다"}),
        plain_case(
            "D-2",
            summary={"en": "x", "ko": "연결을 못 했다. 못 하고 안 했다. 안 하고 못 했다."},
        ),
        plain_case("D-3", summary={"en": "x", "ko": "디스크가 가득 찼다."}),
    )
    assert ordered("다이노가 연결을 못 하고 안 됨")[0] == "D-1"
    assert set(ordered("못 하고")) == {"D-2"}  # alone, they are searched for


@pytest.mark.parametrize(
    ("word", "little"),
    [("안", True), ("못", True), ("하고", True), ("너무", True), ("했는데", True)],
)
def test_a_korean_word_says_little_when_all_its_morphemes_do(word, little):
    from cases.listing import korean

    assert korean.says_little(word) is little
    assert not korean.says_little("다이노가") and not korean.says_little("없으면")
    assert not korean.says_little("the") and not korean.says_little("잡았는데")
