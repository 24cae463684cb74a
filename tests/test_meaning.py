"""Search by meaning and across languages (meaning/): a case lacking a Korean text is found
by a Korean search through its English, with vectors the worker makes after the write."""

import numpy as np
import pytest

from meaning import nearest
from meaning.embedding import embedded_text, stale, untranslated
from meaning.models import CaseMeaning

from .conftest import run_worker
from .library import listed_ids, plain_case, store

pytestmark = pytest.mark.django_db(transaction=True)

RETRIES = {
    "en": "Retries after each timeout wrote so many log lines that the disk filled up and the "
    "database stopped accepting writes.",
    "ko": None,
}


def english_only(case_id, **changes):
    return plain_case(
        case_id,
        title={"en": "Retry storm filled the log disk", "ko": None},
        summary=RETRIES,
        **changes,
    )


def ranked(client, words):
    response = client.get("/cases/", {"q": words})
    assert response.status_code == 200, response.status_code
    return response.content.decode()


def test_a_korean_search_finds_a_case_with_no_korean_text_after_the_workers_pass(client, tmp_path):
    store(
        tmp_path,
        english_only("M-1"),
        plain_case(
            "M-2",
            title={"en": "A certificate expired", "ko": "인증서 만료"},
            summary={"en": "TLS handshakes failed.", "ko": "TLS 핸드셰이크가 실패했다."},
        ),
    )
    # No word of this query is in the case, nor in the glossary (cases/listing/glossary.py).
    query = "요청을 되풀이하다 기록이 쌓여 저장 공간이 가득 참"
    # By words at once: an English search finds it before any vector is made, and so does a
    # Korean one through the glossary's English words (재시도: retry, 디스크: disk).
    assert listed_ids(ranked(client, "retries filled the disk"))[0] == "M-1"
    assert listed_ids(ranked(client, "재시도 때문에 로그가 디스크를 가득 채움"))[0] == "M-1"
    assert "M-1" not in listed_ids(ranked(client, query))
    assert stale().count() == 2
    run_worker()
    assert stale().count() == 0
    html = ranked(client, query)
    assert listed_ids(html)[0] == "M-1"
    assert "Found through its English text" in html
    korean = client.get("/cases/", {"q": query, "lang": "ko"}).content.decode()
    assert "영어 본문으로 찾았습니다" in korean
    # A precise search (a quoted phrase) finds by its words alone.
    assert "M-1" not in listed_ids(ranked(client, '"로그 디스크"'))


def test_a_part_the_korean_text_lacks_is_found_through_its_english(client, tmp_path):
    store(
        tmp_path,
        plain_case(
            "P-1",
            title={"en": "Queue backlog", "ko": "큐 적체"},
            summary={"en": "The queue backed up.", "ko": "큐가 밀렸다."},
            lessons={"en": "Alert on certificate expiry thirty days ahead.", "ko": None},
        ),
        plain_case("P-2"),
    )
    run_worker()
    assert CaseMeaning.objects.get(case_id="P-1").untranslated
    # A case translated whole is found by its Korean words, not through its English.
    assert not CaseMeaning.objects.get(case_id="P-2").untranslated
    # No word of it is in the glossary (cases/listing/glossary.py): found by meaning alone.
    html = ranked(client, "유효 기간이 끝나기 전에 미리 경고 받기")
    assert listed_ids(html)[0] == "P-1" and "Found through its English text" in html


def test_a_vector_is_made_again_after_the_case_changes(client, tmp_path):
    store(tmp_path, english_only("V-1"))
    run_worker()
    made = CaseMeaning.objects.get(case_id="V-1")
    store(tmp_path, english_only("V-1", lessons={"en": "Rotate logs by size.", "ko": None}))
    assert list(stale().values_list("id", flat=True)) == ["V-1"]
    run_worker()
    again = CaseMeaning.objects.get(case_id="V-1")
    assert again.generation > made.generation and bytes(again.vector) != bytes(made.vector)


def test_a_case_lacking_some_korean_text_is_untranslated(tmp_path):
    from cases.models import Case

    whole = {"en": "English lessons.", "ko": "한국어 교훈."}
    store(
        tmp_path,
        plain_case("T-1", summary={"en": "English summary.", "ko": "한국어 요약."}, lessons=whole),
        plain_case("T-2", lessons={"en": "English lessons.", "ko": None}),
        plain_case("T-3", remediation=[{"text": {"en": "Roll back.", "ko": None}}]),
    )
    cases = {case.id: case for case in Case.objects.prefetch_related("remediation_steps")}
    assert not untranslated(cases["T-1"])
    assert untranslated(cases["T-2"]) and untranslated(cases["T-3"])
    assert embedded_text(cases["T-1"]) == "An incident\nEnglish summary.\nEnglish lessons."


def test_the_nearest_cases_of_equal_similarity_are_chosen_by_id_whatever_the_others():
    """Two cases of the same text have the same vector: which of them are among the nearest
    depends on them alone, not on the order or the values of the other rows (a page kept in
    the cache is checked by it: cases/text_changes.py)."""
    ids = ["C-9", "C-2", "C-5", "C-1", "C-7"]
    similarity = np.array([0.5, 0.8, 0.5, 0.5, 0.2], dtype=np.float32)
    chosen = nearest._best(similarity, np.arange(5), 3, ids)
    assert [ids[row] for row in chosen] == ["C-2", "C-1", "C-5"]
    similarity[4] = 0.4  # another case, less similar than the least chosen, written again
    assert nearest._best(similarity, np.arange(5), 3, ids) == chosen
    reordered = [4, 3, 2, 1, 0]
    again = nearest._best(similarity[reordered], np.arange(5), 3, [ids[r] for r in reordered])
    assert [ids[reordered[row]] for row in again] == ["C-2", "C-1", "C-5"]
