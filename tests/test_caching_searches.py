"""A search's page kept across the changes of texts that do not change it (cases/text_changes.py):
after any write, what the cache serves is what a fresh page says, and a write that leaves
a search's cases and order as they were leaves its page cached."""

import psycopg
import pytest
from django.db import connection
from django.test import Client

from cases import text_changes
from cases.listing import query as listing_query
from cases.listing import search
from cases.models import Case
from meaning import embedding, nearest

from .library import REVIEWED, plain_case, store

pytestmark = pytest.mark.django_db(transaction=True)

# On page 1 (one case a page): the newest case matching, C-4; C-1 is on page 4.
SEARCH = "/cases/?q=storage"
SEARCHES = [
    SEARCH, "/cases/?q=storage&page=2", "/cases/?q=storage+failed", "/cases/?q=storage+-disk",
    "/cases/?q=storage&sort=date", "/cases/?q=storage&severity=medium",
]  # fmt: skip


@pytest.fixture
def library(tmp_path, settings, monkeypatch):
    settings.INCIDENTLIB_PAGE_SIZE = 1
    # The changes of texts are no model's: a test database's flush leaves them; each test
    # starts with none.
    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE cases_textchange, cases_textchange_pruned")
    # More than two cases found are many: ordered by their title's match, then their date.
    monkeypatch.setattr(search, "RANK_ALL", 2)
    store(
        tmp_path,
        *(
            plain_case(
                f"C-{n}",
                review=dict(REVIEWED),
                date=f"2021-01-0{n}",
                summary={"en": "The storage failed.", "ko": "스토리지가 멈췄다."},
            )
            for n in range(1, 5)
        ),
        plain_case("C-5", review=dict(REVIEWED), date="2021-01-05"),
    )


def fresh(url):
    """The page made anew: a reader with a session is never served from the cache."""
    reader = Client()
    reader.cookies["sessionid"] = "anyone"
    response = reader.get(url)
    return response.status_code, response.content.decode()


def served(url):
    response = Client().get(url)
    return response["X-Cache"], (response.status_code, response.content.decode())


def kept(urls=SEARCHES):
    for url in urls:
        Client().get(url)
        assert served(url)[0] == "hit", url


def title(case_id, text):
    Case.objects.filter(id=case_id).update(title_en=text)


@pytest.mark.parametrize(
    ("write", "made_again"),
    [
        # C-1, on no page asked for, keeps matching as it did: every page stays cached.
        pytest.param(lambda: title("C-1", "A new title"), set(),
                     id="a title the search does not read"),
        # Its title matches now: it would come first.
        pytest.param(lambda: title("C-1", "Storage again"), set(SEARCHES),
                     id="a title that matches now"),
        pytest.param(lambda: Case.objects.filter(id="C-5").update(
            summary_en="The storage failed too."), set(SEARCHES), id="a case found now"),
        pytest.param(lambda: Case.objects.filter(id="C-4").update(
            summary_en="Nothing at all."), set(SEARCHES), id="a case found no more"),
        # A word one search leaves out: only that one changes.
        pytest.param(lambda: Case.objects.filter(id="C-2").update(
            summary_en="The storage disk failed."), {"/cases/?q=storage+-disk"},
                     id="a word left out"),
    ],
)  # fmt: skip
def test_a_search_is_made_again_only_when_a_write_changes_it(library, write, made_again):
    kept()
    write()
    answers = {url: served(url) for url in SEARCHES}
    assert {url for url, (state, _) in answers.items() if state == "miss"} == made_again
    for url, (_state, answer) in answers.items():
        assert answer == fresh(url), url


def test_a_title_write_the_search_does_not_read_leaves_its_first_page_cached(library):
    kept([SEARCH])
    title("C-1", "A new title")
    assert served(SEARCH)[0] == "hit"
    # Its first page shows C-4: a write to it makes the page again.
    title("C-4", "Another title")
    assert served(SEARCH) == ("miss", fresh(SEARCH))


# A search of few cases (not more than RANK_ALL): ordered by a score.
FEW = "/cases/?q=something"


@pytest.mark.parametrize(
    ("write", "made_again"),
    [
        # C-1 to C-4 have no `something`: the few search's cases and scores stay.
        pytest.param(lambda: title("C-1", "A new title"), set(), id="a case without its word"),
        # C-5 has it, and keeps it: its score may move.
        pytest.param(lambda: title("C-5", "Something else"), {FEW}, id="a case having its word"),
        pytest.param(lambda: Case.objects.filter(id="C-2").update(
            summary_en="Something broke the storage."), {FEW}, id="a case found now"),
    ],
)  # fmt: skip
def test_a_search_of_few_cases_is_made_again_when_a_case_having_its_words_changes(
    library, write, made_again
):
    kept([FEW, SEARCH])
    write()
    answers = {url: served(url) for url in (FEW, SEARCH)}
    assert {url for url, (state, _) in answers.items() if state == "miss"} == made_again
    for url, (_state, answer) in answers.items():
        assert answer == fresh(url), url


def test_a_search_of_few_cases_is_kept_across_a_change_to_a_case_it_does_not_find(
    library, monkeypatch
):
    """`storage` is common beside `something` (more than COMMON cases have it): the search
    finds C-5 alone, by `something`, and weighs `storage` in its score. A case having only
    `storage`, and keeping it, changes neither which cases it finds nor their scores."""
    monkeypatch.setattr(search, "COMMON", 2)
    url = "/cases/?q=something+storage"
    kept([url])
    Case.objects.filter(id="C-1").update(summary_en="The storage failed again.")
    assert served(url) == ("hit", fresh(url))
    Case.objects.filter(id="C-1").update(summary_en="Something failed again.")
    assert served(url) == ("miss", fresh(url))


def test_a_korean_search_is_kept_across_a_write_that_does_not_change_it(library):
    korean = "/cases/?q=스토리지"
    kept([korean])
    title("C-1", "A new title")
    assert served(korean)[0] == "hit"
    Case.objects.filter(id="C-5").update(summary_ko="스토리지도 멈췄다.")
    assert served(korean) == ("miss", fresh(korean))


def test_a_search_of_many_cases_by_a_word_that_says_little_is_made_again(library):
    """`다시` says little: no unit weighed, yet the search of one weighed unit finds the cases
    having both (a case gaining it is found now)."""
    url = "/cases/?q=스토리지+다시"
    Case.objects.filter(id__in=["C-1", "C-2", "C-3"]).update(summary_ko="스토리지가 다시 멈췄다.")
    kept([url])  # three cases: many
    Case.objects.filter(id="C-4").update(summary_ko="스토리지가 다시 멈췄다.")
    assert served(url) == ("miss", fresh(url))


def test_a_search_is_made_again_after_sentence_vectors_are_written(library):
    """A Korean search finds cases lacking Korean by their vectors, and vectors weigh in a
    search's score: a vector written (the worker's pass) makes them again, not an English
    search of many cases, which no vector orders."""
    korean = "/cases/?q=스토리지"
    kept([korean, FEW, SEARCH])
    assert embedding.embed_stale() == 5
    assert {url: served(url)[0] for url in (korean, FEW, SEARCH)} == {
        korean: "miss",
        FEW: "miss",
        SEARCH: "hit",
    }
    for url in (korean, FEW, SEARCH):
        assert served(url) == ("hit", fresh(url))


def test_a_page_read_before_the_changes_pruned_is_made_again(library):
    kept([SEARCH])
    title("C-1", "A new title")
    assert served(SEARCH)[0] == "hit"
    with connection.cursor() as cursor:
        cursor.execute("UPDATE cases_textchange SET changed_at = changed_at - interval '1 hour'")
    assert text_changes.prune(keep_seconds=60) >= 1
    # The change it was checked against is gone: it cannot be checked, so it is made again.
    assert served(SEARCH) == ("miss", fresh(SEARCH))
    assert served(SEARCH)[0] == "hit"


def test_an_import_leaves_no_changes_behind(library, tmp_path):
    store(tmp_path, plain_case("C-6", review=dict(REVIEWED)), name="more.json")
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM cases_textchange")
        assert cursor.fetchone() == (0,)


def test_a_write_the_page_saw_after_its_snapshot_then_undone_makes_it_again(library, monkeypatch):
    """The page's queries run after the snapshot its entry keeps: a change committed in
    between may be in the page, and a later write putting the case back must not pass for
    no change at all."""
    url = "/cases/?q=storage&page=2"
    load = listing_query.ListingQuery.load

    def loading_after_a_write(self, language):
        monkeypatch.setattr(listing_query.ListingQuery, "load", load)
        Case.objects.filter(id="C-5").update(summary_en="The storage failed too.")
        return load(self, language)

    monkeypatch.setattr(listing_query.ListingQuery, "load", loading_after_a_write)
    Client().get(url)  # C-5 found: its page 2 shows C-4
    Case.objects.filter(id="C-5").update(summary_en="Nothing to see.")
    assert served(url) == ("miss", fresh(url))


def test_a_search_with_a_percent_sign_is_served_again(library):
    url = "/cases/?q=storage%25"
    kept([url])
    assert served(url)[1] == fresh(url)


def test_a_transaction_left_open_elsewhere_keeps_no_page_from_the_cache(library, settings):
    """After a prune, a page read since is served again, whatever other transactions the
    server has open (the oldest of them is the whole server's)."""
    kept([SEARCH])
    title("C-1", "A new title")
    with connection.cursor() as cursor:
        cursor.execute("UPDATE cases_textchange SET changed_at = changed_at - interval '1 hour'")
    database = settings.DATABASES["default"]
    with psycopg.connect(
        dbname=database["NAME"],
        user=database["USER"],
        host=database["HOST"],
        port=database["PORT"],
        password=database["PASSWORD"],
    ) as other:
        other.execute("SELECT pg_current_xact_id()")  # holds a transaction id, open
        assert text_changes.prune(keep_seconds=60) >= 1
        assert served(SEARCH)[0] == "miss"
        assert served(SEARCH) == ("hit", fresh(SEARCH))


def test_a_page_that_more_changes_followed_than_a_read_checks_is_made_again(library, monkeypatch):
    monkeypatch.setattr(text_changes, "MAX_CHECKED", 1)
    kept([SEARCH])
    title("C-1", "A new title")
    assert served(SEARCH)[0] == "hit"
    title("C-2", "Another new title")
    assert served(SEARCH) == ("miss", fresh(SEARCH))
    assert served(SEARCH)[0] == "hit"


def test_a_kept_search_is_read_in_two_queries_however_many_changes_followed(
    library, django_assert_num_queries
):
    """The library's state, then the rows shown and the changes checked, in one query."""
    kept([SEARCH])
    for n in range(1, 4):
        title(f"C-{n}", f"Title {n}")
    with django_assert_num_queries(2):
        assert Client().get(SEARCH)["X-Cache"] == "hit"


@pytest.mark.parametrize(
    ("least_similarity", "state"),
    [
        pytest.param(0.999, "hit", id="a case no search named, less similar than any it named"),
        pytest.param(nearest.MIN_SIMILARITY, "miss", id="a case near enough to be named"),
    ],
)
def test_a_vector_written_since_makes_a_search_again_only_if_it_may_change_it(
    library, monkeypatch, least_similarity, state
):
    """The worker writes a changed case's vector: a search that used the vectors is made again
    only if that case was among those they named, or is as near to the search as the least
    of them (with fewer named than it takes, any case of MIN_SIMILARITY)."""
    korean = "/cases/?q=스토리지"
    assert embedding.embed_stale() == 5
    monkeypatch.setattr(nearest, "MIN_SIMILARITY", least_similarity)
    kept([korean, FEW])
    title("C-1", "A new title")  # on no page, matching as before
    assert embedding.embed(list(Case.objects.filter(id="C-1"))) == 1
    assert served(korean) == (state, fresh(korean))
    # C-1 (about storage) may be too far from `something` to be named: whatever the cache
    # does, it serves what a fresh page says.
    assert served(FEW)[1] == fresh(FEW)


def test_a_kept_search_is_read_in_two_queries_once_the_process_has_the_vectors_since(
    library, monkeypatch, django_assert_num_queries
):
    """A vector written since the page, for a case it did not name: the process reads it once
    (its copy of the vectors), then each read is the state and the one check again."""
    korean = "/cases/?q=스토리지"
    assert embedding.embed_stale() == 5
    monkeypatch.setattr(nearest, "MIN_SIMILARITY", 0.999)  # no case near enough to be named
    kept([korean])
    assert embedding.embed(list(Case.objects.filter(id="C-1"))) == 1
    assert served(korean)[0] == "hit"
    with django_assert_num_queries(2):
        assert Client().get(korean)["X-Cache"] == "hit"
