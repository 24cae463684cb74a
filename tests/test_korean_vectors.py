"""An import's Korean vectors (cases/exchange/vectors.py) are the database's own.

The import derives the Korean part of each case's search vectors in its own process; every
other write has the database derive it (cases_korean_tsvector). A search must find the same
cases however they were written: the two must give the same vector for every text.
"""

from pathlib import Path

import pytest
from django.db import connection
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cases.exchange import vectors
from cases.exchange.files import iter_case_file
from cases.models import Case

from .conftest import import_cases
from .library import plain_case, store

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "cases"

EDGES = [
    None,
    "",
    " ",
    "스토리지",
    "스토리지가 메타데이터의 병목을 만들었다.",
    "NFS의 timeouts가 S3가 200G를 3개 노드에서",
    "it's 'quoted' 스토리지's back\\slash 가\\나 '가'나",
    "읽기-쓰기 read-only 스토리지-노드가 http://example.com/경로에 a.b.c 1.2.3 foo@bar.com",
    "/var/lib/데이터 C:\\경로 #태그 @사람 100% 50ms를 v1.2가",
    "가" * 31 + " " + "가" * 32 + " " + "가" * 33 + " 나" * 3,
    "가나",
    "가나다",
    "ㄱㄴㄷ ㅏㅑ 한글ㅋㅋ 漢字가 ｆｕｌｌ가 😀가",
    "스토리지 " * 4_000 + "끝",  # longer than 20,000 characters: no endings
    "스토리지의 " * 3_333,  # 19,998 characters: endings
    "메타데이터가 " * 20_000,  # longer than 100,000 characters: read up to there
    "\n".join(["첫 줄", "", "셋째 줄\t탭"]),
]

KOREANISH = st.text(
    alphabet=st.one_of(
        st.sampled_from(list("가나다라스토리지의메타데이터는을를이가에서로ㄱㅏ")),
        st.sampled_from(list("abcXYZ019 -_.,/@:'\\\n\t()&%#")),
        st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
    ),
    max_size=80,
)


def database_vectors(texts):
    """cases_korean_tsvector of each text, as PostgreSQL writes a tsvector."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT cases_korean_tsvector(body)::text "
            "FROM unnest(%s::text[]) WITH ORDINALITY AS text(body, n) ORDER BY n",
            [list(texts)],
        )
        return [vector for (vector,) in cursor.fetchall()]


def import_vectors(texts):
    """The import's vectors of the same texts, read back by PostgreSQL."""
    with connection.cursor() as cursor:
        derived = vectors.KoreanVectors(cursor).vectors(texts)
        cursor.execute(
            "SELECT vector::tsvector::text "
            "FROM unnest(%s::text[]) WITH ORDINALITY AS given(vector, n) ORDER BY n",
            [derived],
        )
        return [vector for (vector,) in cursor.fetchall()]


def korean_texts_of_the_fixtures():
    texts = []
    for path in sorted(FIXTURES.glob("*.json")):
        for record in iter_case_file(path):
            data = record.data
            texts += [
                value["ko"] for value in data.values() if isinstance(value, dict) and "ko" in value
            ]
            texts += [step["text"]["ko"] for step in data["remediation"] + data["action_items"]]
    return texts


@pytest.mark.django_db
def test_the_import_derives_what_the_database_derives_for_each_text():
    texts = EDGES + korean_texts_of_the_fixtures()
    assert len(texts) > 200
    assert import_vectors(texts) == database_vectors(texts)


@pytest.mark.django_db
@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(KOREANISH, min_size=1, max_size=8))
def test_the_same_for_any_text(texts):
    assert import_vectors(texts) == database_vectors(texts)


@pytest.mark.django_db
def test_a_word_remembered_from_one_batch_gives_the_same_in_the_next():
    with connection.cursor() as cursor:
        korean = vectors.KoreanVectors(cursor)
        first = korean.vectors(["스토리지의 NFS가", "스토리지의 " * 5_000])
        again = korean.vectors(["스토리지의 NFS가", "스토리지의 " * 5_000])
    assert first == again
    assert import_vectors(["스토리지의 " * 5_000]) == database_vectors(["스토리지의 " * 5_000])


@pytest.mark.django_db
def test_imported_cases_hold_the_vectors_any_other_write_would_give_them(tmp_path):
    import_cases(FIXTURES)
    store(
        tmp_path,
        plain_case("K-1", summary={"en": "A timeout.", "ko": "NFS의 timeouts가 스토리지에서"}),
        plain_case(
            "K-2",
            summary={"en": "Nothing.", "ko": ""},
            org="'인용' 조직 \\ Org",
            org_slug="quoted-org",
        ),
    )
    imported = dict(Case.objects.values_list("id", "search_vector"))
    titles = dict(Case.objects.values_list("id", "title_vector"))
    assert len(imported) >= 20
    # Derived anew by the database (a write outside an import), as an admin save would.
    Case.objects.update(search_vector=None)
    assert dict(Case.objects.values_list("id", "search_vector")) == imported
    assert dict(Case.objects.values_list("id", "title_vector")) == titles


@pytest.mark.django_db
def test_in_an_import_the_trigger_keeps_the_vectors_given_and_derives_them_when_not(tmp_path):
    """What makes the import fast: within it, the database keeps the vectors it is given."""
    store(tmp_path, plain_case("K-1"), plain_case("K-2"))
    with connection.cursor() as cursor:
        cursor.execute("SELECT set_config('incidentlib.vectors', 'given', true)")
        cursor.execute(
            "UPDATE cases_case SET title_ko = '다른 제목', title_vector = 'given:1', "
            "search_vector = 'given:1' WHERE id = 'K-1'"
        )
        # Nothing given: derived as always.
        cursor.execute("UPDATE cases_case SET title_ko = '다른 제목' WHERE id = 'K-2'")
        cursor.execute("SELECT id, title_vector::text FROM cases_case ORDER BY id")
        titles = dict(cursor.fetchall())
    assert titles["K-1"] == "'given':1"
    assert "'제목':" in titles["K-2"]
