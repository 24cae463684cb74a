"""Words written otherwise: the glossary's Korean words (a loanword in Hangul finds the name in
Latin letters, a Korean word a case with no Korean text), and a command's options."""

import pytest

from cases.listing import glossary
from cases.listing.tsquery import units

from .library import listed_ids, plain_case, store

pytestmark = pytest.mark.django_db


def ranked(client, words):
    response = client.get("/cases/", {"q": words})
    assert response.status_code == 200, response.status_code
    return listed_ids(response.content.decode())


def found_by_page(client, words):
    return set(ranked(client, words))


def test_a_loanword_in_hangul_finds_the_name_in_latin_letters(client, tmp_path):
    store(
        tmp_path,
        plain_case("G-1", summary={"en": "Something failed.", "ko": "Redis가 멈춰서 앱이 죽었다."}),
        plain_case("G-2", summary={"en": "Something failed.", "ko": "레디스 노드가 멈췄다."}),
        plain_case("G-3", summary={"en": "Something failed.", "ko": "디스크가 가득 찼다."}),
    )
    assert found_by_page(client, "레디스") == {"G-1", "G-2"}
    assert found_by_page(client, "레디스가") == {"G-1", "G-2"}
    # An English word is searched as it is: every case has English text to find it in.
    assert found_by_page(client, "redis") == {"G-1"}


def test_a_korean_word_finds_a_case_with_no_korean_text_by_its_words(client, tmp_path):
    store(
        tmp_path,
        plain_case(
            "G-4",
            title={"en": "Certificate expiry took the API down", "ko": None},
            summary={"en": "The certificate expired at midnight.", "ko": None},
        ),
        plain_case("G-5", summary={"en": "The disk filled up.", "ko": None}),
    )
    assert found_by_page(client, "인증서 만료") == {"G-4"}
    assert found_by_page(client, "인증서 만료 -디스크") == {"G-4"}


def test_a_quoted_or_left_out_korean_word_means_what_it_says(client, tmp_path):
    store(
        tmp_path,
        plain_case("G-6", summary={"en": "Something failed.", "ko": "Redis가 멈춰 서버가 죽었다."}),
        plain_case("G-7", summary={"en": "Something failed.", "ko": "레디스 서버가 멈췄다."}),
    )
    assert found_by_page(client, '"레디스"') == {"G-7"}
    assert found_by_page(client, "서버 -레디스") == {"G-6"}
    assert found_by_page(client, "서버 -redis") == {"G-7"}


def test_the_glossary_reads_a_word_with_its_particles_and_punctuation():
    assert glossary.also("앱이") == glossary.also("앱")
    assert "application" in glossary.also("앱이")
    assert "overload" in glossary.also("과부하,")
    assert glossary.also("redis") == ()  # only Korean words are looked up
    assert glossary.also("없으면") == ()
    # Each Korean form of a group finds the others, and no form finds itself.
    for form, others in glossary.ALSO.items():
        assert form not in others and others


@pytest.mark.parametrize(
    ("typed", "wanted", "excluded"),
    [
        ("rm -rf", ["rm", '"-rf"'], []),
        ("kill -9 worker", ["kill", '"-9"', "worker"], []),
        ("git push --force", ["git", "push", '"--force"'], []),
        ("memory -disk", ["memory"], ["-disk"]),  # a word of three letters or more: left out
        ("memory -DB", ["memory"], ["-DB"]),  # capitals: a name, not an option
        ('"rm -rf" -rf', ['"rm -rf"', '"-rf"'], []),
    ],
)
def test_a_commands_option_is_searched_not_left_out(typed, wanted, excluded):
    assert units(typed) == (wanted, excluded)


def test_a_search_with_a_commands_option_finds_the_command(client, tmp_path):
    store(
        tmp_path,
        plain_case("G-11", summary={"en": "An engineer ran rm -rf on the primary.", "ko": None}),
        plain_case("G-12", summary={"en": "An engineer ran rm on a log file.", "ko": None}),
        plain_case("G-13", summary={"en": "The OOM killer sent kill -9 to it.", "ko": None}),
    )
    assert ranked(client, "rm -rf") == ["G-11", "G-12"]  # both say rm; G-11 says both words
    assert found_by_page(client, "kill -9") == {"G-13"}
    assert found_by_page(client, "rm -primary") == {"G-12"}
