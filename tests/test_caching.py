"""Cached pages are never stale after a write, and never personal (cases/caching.py).

These tests commit (transactional database): the library's generation changes only when a
write is committed, as it does for a real request.
"""

import re

import pytest
from django.test import Client

from cases.models import Case, Organisation, Term
from cases.review import workflow as review

from .conftest import change_url, logged_in, make_staff, open_case
from .library import DRAFT, REVIEWED, plain_case, store

pytestmark = pytest.mark.django_db(transaction=True)

PAGES = [
    "/",
    "/cases/",
    "/cases/?q=incident",
    "/cases/?severity=medium",
    "/cases/C-1",
    "/cases/C-1?lang=ko",
    "/cases/C-1.json",
    "/taxonomy/",
    "/taxonomy/severity/medium/",
    "/orgs/",
    "/orgs/example-org/",
    "/feed/",
    "/api/cases/",
    "/api/taxonomy/",
    "/sitemap.xml",
    "/sitemap-cases.xml",
]


@pytest.fixture
def library(tmp_path):
    store(
        tmp_path,
        plain_case("C-1", review=dict(REVIEWED)),
        plain_case("C-2", review=dict(REVIEWED), date="2020-01-01"),
    )
    return tmp_path


def get(client, url, **headers):
    response = client.get(url, **headers)
    assert response.status_code == 200, (url, response.status_code)
    return response


def text(client, url, **headers):
    response = get(client, url, **headers)
    content = b"".join(response.streaming_content) if response.streaming else response.content
    return content.decode()


def test_a_page_is_kept_compressed_and_served_as_it_was_made(client, library):
    from cases.caching import pack, unpack

    made = get(Client(), "/cases/C-1")
    assert made["X-Cache"] == "miss"
    kept = pack(made.content)
    assert len(kept[1]) < len(made.content) / 2
    assert unpack(kept) == made.content
    served = get(Client(), "/cases/C-1")
    assert served["X-Cache"] == "hit" and served.content == made.content
    assert unpack(b"{}") == b"{}" == pack(b"{}")  # too small to gain: kept as it is


def test_a_page_is_made_once_then_served_from_the_cache(client, library):
    for url in PAGES:
        first = get(client, url)
        second = get(client, url)
        assert (first["X-Cache"], second["X-Cache"]) == ("miss", "hit"), url
        assert first.content == second.content, url


def test_an_import_that_changes_a_case_shows_on_every_page_at_once(client, library):
    for url in PAGES:  # the Korean page among them leaves the language cookie: English first
        get(client, url)
    client = Client()
    # A later review in the file: else the import returns the changed case to draft.
    review = dict(REVIEWED, reviewed_at="2026-02-02T03:04:05Z")
    store(library, plain_case("C-1", title={"en": "Renamed outage", "ko": "바뀐 장애"},
                              review=review), name="update.json")  # fmt: skip
    for url in ["/cases/", "/cases/C-1", "/cases/C-1.json", "/feed/", "/api/cases/"]:
        assert "Renamed outage" in text(client, url), url
    assert "바뀐 장애" in text(client, "/cases/C-1?lang=ko")
    assert "C-1" in text(client, "/cases/?q=renamed")


def test_a_new_case_changes_the_lists_counts_sitemap_and_download(client, library):
    before = text(client, "/cases/?severity=medium")
    assert "3 cases" not in before
    get(client, "/sitemap-cases.xml")
    get(client, "/taxonomy/severity/medium/")
    store(library, plain_case("C-3", review=dict(REVIEWED)), name="new.json")
    assert "3 cases" in text(client, "/cases/?severity=medium")
    assert "3 cases" in text(client, "/taxonomy/")
    assert "/cases/C-3" in text(client, "/sitemap-cases.xml")
    assert '"C-3"' in text(client, "/api/cases.jsonl")
    assert "/cases/C-3" in text(client, "/taxonomy/severity/medium/")


def test_an_admin_save_shows_at_once_to_readers(client, library):
    reader = Client()
    get(reader, "/cases/C-1")
    editor = logged_in(client, make_staff("ed"))
    data = open_case(editor, "C-1")
    data["title_en"] = "Edited in the admin"
    response = editor.post(change_url("C-1"), data)
    assert response.status_code == 302
    assert "Edited in the admin" in text(reader, "/cases/C-1")
    assert "Edited in the admin" in text(reader, "/cases/")


def test_an_approval_and_a_return_to_draft_show_at_once(client, library, settings):
    settings.INCIDENTLIB_HIDE_DRAFTS = True
    store(library, plain_case("C-9", review=dict(DRAFT)), name="draft.json")
    assert client.get("/cases/C-9").status_code == 404
    assert "/cases/C-9" not in text(client, "/cases/")
    rita = make_staff("rita", reviewer=True)
    case = review.approve("C-9", rita, seen_version=str(Case.objects.get(id="C-9").version))
    assert client.get("/cases/C-9").status_code == 200
    assert "/cases/C-9" in text(client, "/cases/")
    assert "C-9" in text(client, "/feed/")
    review.return_to_draft("C-9", rita, seen_version=str(case.version))
    assert client.get("/cases/C-9").status_code == 404
    for url in ["/cases/", "/feed/", "/api/cases/", "/sitemap-cases.xml", "/api/cases.jsonl"]:
        assert "C-9" not in text(client, url), url


def test_a_taxonomy_or_organisation_change_and_a_deletion_show_at_once(client, library):
    get(client, "/cases/C-1")
    get(client, "/orgs/")
    Term.objects.filter(facet="severity", slug="medium").update(label_en="Middling")
    assert "Middling" in text(client, "/cases/C-1")
    Organisation.objects.filter(slug="example-org").update(name="Renamed Org")
    assert "Renamed Org" in text(client, "/orgs/")
    assert "Renamed Org" in text(client, "/cases/C-1")
    get(client, "/cases/")
    Case.objects.filter(id="C-2").delete()
    assert "/cases/C-2" not in text(client, "/cases/")
    assert client.get("/cases/C-2").status_code == 404


@pytest.mark.parametrize(
    "korean",
    [{"QUERY_STRING": "lang=ko"}, {"HTTP_ACCEPT_LANGUAGE": "ko"}, {"cookie": "ko"}],
    ids=["query", "accept-language", "cookie"],
)
def test_a_korean_page_is_never_served_to_an_english_reader(library, korean, settings):
    english_reader, korean_reader = Client(), Client()
    if "cookie" in korean:
        korean_reader.cookies[settings.LANGUAGE_COOKIE_NAME] = korean.pop("cookie")
    for url in ["/cases/C-1", "/cases/", "/"]:
        query = korean.get("QUERY_STRING")
        korean_page = text(korean_reader, f"{url}?{query}" if query else url,
                           **{k: v for k, v in korean.items() if k != "QUERY_STRING"})  # fmt: skip
        assert 'lang="ko"' in korean_page[:200], url
        english_page = text(english_reader, url)
        assert '<html lang="en">' in english_page, url
        assert get(english_reader, url)["Vary"].count("Accept-Language") == 1


@pytest.mark.parametrize(
    ("cookie", "accept_language", "lang", "sets"),
    [
        (None, None, "ko", "ko"),
        ("en", "ko", "ko", "ko"),
        ("ko", None, "en", "en"),
        ("ko", "en", "ko", None),
        (None, "ko-KR,ko;q=0.9", "ko", None),
        (None, None, "en", None),
        (None, "fr", "en", None),
    ],
)
def test_lang_sets_the_cookie_only_when_it_changes_the_readers_language(
    library, settings, cookie, accept_language, lang, sets
):
    reader = Client()
    if cookie:
        reader.cookies[settings.LANGUAGE_COOKIE_NAME] = cookie
    headers = {"HTTP_ACCEPT_LANGUAGE": accept_language} if accept_language else {}
    response = get(reader, f"/cases/C-1?lang={lang}", **headers)
    assert f'<html lang="{lang}">' in response.content.decode()
    set_cookie = response.cookies.get(settings.LANGUAGE_COOKIE_NAME)
    assert (set_cookie.value if set_cookie else None) == sets
    assert "public" in response["Cache-Control"]
    assert response["Vary"] == "Cookie, Accept-Language"


def test_a_lang_page_is_a_public_page_cached_under_its_query(library, settings):
    korean_reader = Client()
    korean_reader.cookies[settings.LANGUAGE_COOKIE_NAME] = "ko"
    first, second = (get(korean_reader, "/cases/C-1?lang=ko") for _ in range(2))
    assert (first["X-Cache"], second["X-Cache"]) == ("miss", "hit")
    assert not second.cookies and "public" in second["Cache-Control"]
    assert second.content == first.content and '<html lang="ko">' in second.content.decode()
    # The same address for another reader: the Korean page, under the same ETag.
    stranger = get(Client(), "/cases/C-1?lang=ko", HTTP_ACCEPT_LANGUAGE="en")
    assert stranger["X-Cache"] == "hit" and stranger["ETag"] == second["ETag"]
    assert stranger.cookies[settings.LANGUAGE_COOKIE_NAME].value == "ko"
    # The page without ?lang, for this Korean reader and for an English one: two pages.
    english = get(Client(), "/cases/C-1")
    assert english["X-Cache"] == "miss" and '<html lang="en">' in english.content.decode()
    assert english["ETag"] != second["ETag"]
    assert get(korean_reader, "/cases/C-1")["ETag"] not in (english["ETag"], second["ETag"])


def test_a_reviewers_page_is_neither_cached_nor_served_from_the_cache(client, library):
    reviewer = logged_in(Client(), make_staff("rita", reviewer=True))
    anonymous = Client()
    first = get(reviewer, "/cases/C-1")
    assert "X-Cache" not in first and "private" in first["Cache-Control"]
    assert get(anonymous, "/cases/C-1")["X-Cache"] == "miss"
    assert get(anonymous, "/cases/C-1")["X-Cache"] == "hit"
    again = get(reviewer, "/cases/C-1")
    assert "X-Cache" not in again and "private" in again["Cache-Control"]


def test_conditional_requests_get_304_until_a_write_changes_the_page(client, library):
    first = get(client, "/cases/C-1")
    assert "public" in first["Cache-Control"] and first["ETag"]
    etag = first["ETag"]
    not_modified = client.get("/cases/C-1", HTTP_IF_NONE_MATCH=etag)
    assert not_modified.status_code == 304 and not not_modified.content
    # Weakly compared (RFC 9110): a compressing proxy's W/ tag, or one of several.
    for named in (f"W/{etag}", f'"other", {etag}'):
        assert client.get("/cases/C-1", HTTP_IF_NONE_MATCH=named).status_code == 304, named
    assert client.get("/cases/C-1", HTTP_IF_NONE_MATCH='W/"other"').status_code == 200
    # * names no page: an address that is none still says so.
    assert client.get("/cases/NO-SUCH-1", HTTP_IF_NONE_MATCH="*").status_code == 404
    Case.objects.filter(id="C-1").update(title_en="Changed since")
    changed = client.get("/cases/C-1", HTTP_IF_NONE_MATCH=etag)
    assert changed.status_code == 200 and "Changed since" in changed.content.decode()
    assert changed["ETag"] != etag


@pytest.mark.parametrize("url", ["/cases/C-1", "/feed/", "/api/cases.jsonl", "/cases/"])
def test_no_answer_gives_a_date_to_revalidate_with_a_date_cannot_tell_two_writes_apart(
    client, library, url
):
    """A date is to the second: two writes within one second would share it, and a 304 for
    If-Modified-Since (from the app, or from a proxy in front, which answers it itself)
    would give the first write's page after the second. So no Last-Modified, the feed's
    (Django's view sets one) included: clients revalidate with the ETag."""
    first = get(client, url)
    assert first["ETag"] and "Last-Modified" not in first, url
    # Nor to a reviewer (private, never cached: the feed's view sets one of its own).
    reviewer = logged_in(Client(), make_staff("rita", reviewer=True))
    assert "Last-Modified" not in get(reviewer, url), url
    in_the_future = "Fri, 01 Jan 2100 00:00:00 GMT"
    assert client.get(url, HTTP_IF_MODIFIED_SINCE=in_the_future).status_code == 200
    Case.objects.filter(id="C-1").update(title_en="Changed within the second")
    after = client.get(url, HTTP_IF_MODIFIED_SINCE=in_the_future)
    assert after.status_code == 200
    if url == "/cases/C-1":
        assert "Changed within the second" in after.content.decode()


def test_without_the_cache_server_pages_are_made_afresh(client, library, settings, caplog):
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:9/0",  # nothing listens there
            "OPTIONS": {"socket_connect_timeout": 0.2, "socket_timeout": 0.2},
        }
    }
    for url in ["/", "/cases/", "/cases/C-1"]:
        assert get(client, url)["X-Cache"] == "miss"
    assert "cache unavailable" in caplog.text


def test_without_the_cache_server_each_process_keeps_pages_in_its_memory(client, library, settings):
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:9/0",  # nothing listens there
            "OPTIONS": {"socket_connect_timeout": 0.2, "socket_timeout": 0.2},
        },
        "local": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    }
    assert get(client, "/cases/C-1")["X-Cache"] == "miss"
    assert get(client, "/cases/C-1")["X-Cache"] == "hit"
    korean = get(client, "/cases/C-1", HTTP_ACCEPT_LANGUAGE="ko")
    assert korean["X-Cache"] == "miss" and korean["Content-Language"] == "ko"
    Case.objects.filter(id="C-1").update(title_en="Changed while Redis is away")
    changed = get(client, "/cases/C-1")
    assert (
        changed["X-Cache"] == "miss" and "Changed while Redis is away" in changed.content.decode()
    )


def test_the_download_answers_304_until_a_write(client, library):
    first = client.get("/api/cases.jsonl")
    b"".join(first.streaming_content)
    etag = first["ETag"]
    assert client.get("/api/cases.jsonl", HTTP_IF_NONE_MATCH=etag).status_code == 304
    store(library, plain_case("C-4", review=dict(REVIEWED)), name="more.json")
    again = client.get("/api/cases.jsonl", HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 200 and b'"C-4"' in b"".join(again.streaming_content)


def test_a_new_release_of_the_code_makes_every_page_anew(client, library, settings):
    """A deploy changes no case, yet its pages may differ: none is served from before it."""
    etags = {url: get(client, url)["ETag"] for url in ["/cases/", "/cases/C-1", "/feed/"]}
    download = client.get("/api/cases.jsonl")["ETag"]
    settings.INCIDENTLIB_RELEASE = "the-next-release"
    for url, etag in etags.items():
        again = client.get(url, HTTP_IF_NONE_MATCH=etag)
        assert again.status_code == 200 and again["X-Cache"] == "miss", url
        assert again["ETag"] != etag, url
        assert client.get(url, HTTP_IF_NONE_MATCH=again["ETag"]).status_code == 304, url
    assert client.get("/api/cases.jsonl", HTTP_IF_NONE_MATCH=download).status_code == 200


# Invalidation by what changed: a write to one case makes again its own pages and those that
# show its title, and the lists; every other case page stays cached.


def cached_state(url, client=None):
    """X-Cache of the page (a fresh reader each time unless given)."""
    return get(client or Client(), url)["X-Cache"]


@pytest.fixture
def neighbours(library):
    """C-3 relates to C-1, C-4 repeats it (recurrence), C-5 cites the same source; C-2 has
    nothing to do with any of them."""
    source = {"url": "https://example.com/shared", "kind": "blog", "license": None,
              "archived": None}  # fmt: skip
    # C-1 given a source: a later review, so that the import keeps it reviewed.
    later = dict(REVIEWED, reviewed_at="2026-02-02T03:04:05Z")
    store(
        library,
        plain_case("C-1", review=later, sources=[source]),
        plain_case(
            "C-3", review=dict(REVIEWED), related=["C-1"], title={"en": "Third", "ko": "셋"}
        ),
        plain_case("C-4", review=dict(REVIEWED), recurrence_of="C-1", date="2026-02-01"),
        plain_case("C-5", review=dict(REVIEWED), sources=[source], severity="high"),
        name="neighbours.json",
    )
    return library


CASE_PAGES = ["/cases/C-1", "/cases/C-1?lang=ko", "/cases/C-1.json", "/cases/C-1/both",
              "/cases/C-2", "/cases/C-2?lang=ko", "/cases/C-2.json", "/cases/C-3",
              "/cases/C-4", "/cases/C-5"]  # fmt: skip
LISTS = ["/", "/cases/", "/cases/?q=renamed", "/cases/?severity=high", "/taxonomy/",
         "/taxonomy/severity/medium/", "/orgs/example-org/", "/feed/", "/api/cases/",
         "/api/taxonomy/", "/sitemap-cases.xml"]  # fmt: skip


def test_a_write_to_one_case_makes_again_only_the_pages_that_show_it(neighbours):
    before = {url: text(Client(), url) for url in CASE_PAGES + LISTS}
    assert all(cached_state(url) == "hit" for url in CASE_PAGES + LISTS)
    # One UPDATE, as any writer (here SQL through the ORM): the title in both languages and
    # the severity (so the counts change).
    high = Term.objects.get(facet="severity", slug="high")
    Case.objects.filter(id="C-1").update(
        title_en="Renamed outage", title_ko="바뀐 장애", severity=high
    )
    for url in ["/cases/C-1", "/cases/C-1.json", "/cases/C-1/both", "/cases/C-3", "/cases/C-4"]:
        assert "Renamed outage" in text(Client(), url), url
    assert "바뀐 장애" in text(Client(), "/cases/C-1?lang=ko")
    # Every other case page is still served from the cache, unchanged, in both languages.
    for url in ["/cases/C-2", "/cases/C-2?lang=ko", "/cases/C-2.json", "/cases/C-5"]:
        response = get(Client(), url)
        assert response["X-Cache"] == "hit", url
        assert response.content.decode() == before[url], url
    # The lists, searches and counts (one generation of their own) show the change.
    for url in LISTS:
        assert cached_state(url) == "miss", url
    assert "Renamed outage" in text(Client(), "/cases/")
    assert "/cases/C-1" in text(Client(), "/cases/?q=renamed")
    assert "/cases/C-1" in text(Client(), "/cases/?severity=high")
    assert "Renamed outage" in text(Client(), "/feed/")
    assert "Renamed outage" in text(Client(), "/api/cases/")
    assert "3 cases" in text(Client(), "/taxonomy/severity/medium/")
    assert "2 cases" in text(Client(), "/cases/?severity=high")
    # A case citing C-1's source changes the count C-1's page shows beside it.
    assert "cited by 2 cases" in text(Client(), "/cases/C-1")
    source = {"url": "https://example.com/shared", "kind": "blog", "license": None,
              "archived": None}  # fmt: skip
    store(neighbours, plain_case("C-6", sources=[source, source]), name="citing.json")
    assert "cited by 3 cases" in text(Client(), "/cases/C-1")
    assert cached_state("/cases/C-2") == "hit"


def test_a_change_of_a_cases_texts_leaves_the_lists_that_do_not_show_it_cached(neighbours):
    """Lists and counts are kept under the library's shape, which a change of texts does not
    raise, and the versions of the rows they show: a new title makes again the lists showing
    the case, and no other list, count or case page."""
    showing = ["/", "/cases/", "/taxonomy/severity/medium/", "/orgs/example-org/"]
    not_showing = [
        "/cases/?severity=high",
        "/taxonomy/",
        "/orgs/",
        "/taxonomy/severity/high/?sort=date",
    ]
    before = {url: text(Client(), url) for url in showing + not_showing}
    assert all(cached_state(url) == "hit" for url in showing + not_showing)
    Case.objects.filter(id="C-1").update(title_en="Renamed outage")
    for url in showing:
        response = get(Client(), url)
        assert response["X-Cache"] == "miss", url
        assert "Renamed outage" in response.content.decode(), url
    for url in not_showing:
        response = get(Client(), url)
        assert response["X-Cache"] == "hit", url
        assert response.content.decode() == before[url], url
    # A search reads the texts: it is kept under the generation, which every write raises.
    assert cached_state("/cases/?q=renamed") == "miss"
    assert "/cases/C-1" in text(Client(), "/cases/?q=renamed")
    # A change of what a list chooses by (a case's severity) raises the shape: every list
    # and count is made again.
    high = Term.objects.get(facet="severity", slug="high")
    Case.objects.filter(id="C-2").update(severity=high)
    for url in showing + not_showing:
        assert cached_state(url) == "miss", url
    assert "2 cases" in text(Client(), "/cases/?severity=high")


def test_a_list_page_answers_304_until_a_row_it_shows_changes(client, library):
    first = get(client, "/cases/")
    etag = first["ETag"]
    assert client.get("/cases/", HTTP_IF_NONE_MATCH=etag).status_code == 304
    Case.objects.filter(id="C-2").update(summary_en="A new summary.")
    again = client.get("/cases/", HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 200 and again["ETag"] != etag
    assert client.get("/cases/", HTTP_IF_NONE_MATCH=again["ETag"]).status_code == 304


def test_a_new_case_shows_on_the_pages_of_the_cases_it_names_at_once(neighbours, settings):
    """A page shows cases that name it (related, recurrences) and how many cases cite its
    sources: a write to another case that changes these makes it again."""
    settings.INCIDENTLIB_HIDE_DRAFTS = True
    for url in ["/cases/C-1", "/cases/C-2", "/cases/C-3", "/cases/C-5"]:
        assert "C-9" not in text(Client(), url)
    assert "cited by 2 cases" in text(Client(), "/cases/C-5")
    source = {"url": "https://example.com/shared", "kind": "blog", "license": None,
              "archived": None}  # fmt: skip
    new = plain_case("C-9", review=dict(DRAFT), related=["C-2"], recurrence_of="C-1",
                     sources=[source], title={"en": "Ninth", "ko": "아홉"})  # fmt: skip
    store(neighbours, new, name="new.json")
    # A draft shows nowhere, but counts nowhere either: the pages are the same.
    assert "C-9" not in text(Client(), "/cases/C-1")
    assert "C-9" not in text(Client(), "/cases/C-2")
    assert "cited by 2 cases" in text(Client(), "/cases/C-5")
    assert cached_state("/cases/C-3") == "hit"  # an import leaves the others alone
    rita = make_staff("rita", reviewer=True)
    review.approve("C-9", rita, seen_version=str(Case.objects.get(id="C-9").version))
    assert "/cases/C-9" in text(Client(), "/cases/C-1")  # the recurrence chain
    assert "/cases/C-9" in text(Client(), "/cases/C-2")  # related, from C-9
    assert "cited by 3 cases" in text(Client(), "/cases/C-5")
    assert cached_state("/cases/C-3") == "hit"
    # A write to a case a page names (its title) makes that page again.
    Case.objects.filter(id="C-9").update(title_en="Ninth, renamed")
    assert "Ninth, renamed" in text(Client(), "/cases/C-2")
    # Its deletion too.
    Case.objects.filter(id="C-9").delete()
    assert "C-9" not in text(Client(), "/cases/C-1")
    assert "cited by 2 cases" in text(Client(), "/cases/C-1")


def test_similar_cases_say_when_they_were_made_and_the_bound(library):
    from cases.caching import UNKEPT_SIMILAR_MAX_AGE, similar_cases_epoch
    from cases.discover.kept import SIMILAR_CASES_MAX_AGE

    page = text(Client(), "/cases/C-1")
    hours = SIMILAR_CASES_MAX_AGE // 3600
    assert f"within minutes of a change to this case, and at least every {hours} hours" in page
    assert "적어도" in text(Client(), "/cases/C-1?lang=ko")
    # A page that made its similar cases itself (the worker has kept none yet) is kept for
    # one period of its case at most; the periods of cases start apart.
    period = UNKEPT_SIMILAR_MAX_AGE
    for moment in (0, 1_000_000.5, 1_765_000_000):
        epochs = [similar_cases_epoch(case, moment) for case in ("C-1", "C-2")]
        later = [similar_cases_epoch(case, moment + period) for case in ("C-1", "C-2")]
        assert later == [epoch + 1 for epoch in epochs]
    starts = {
        next(
            t
            for t in range(period)
            if similar_cases_epoch(case, t + 1) != similar_cases_epoch(case, t)
        )
        for case in ("C-1", "C-2", "C-3", "IL-0137")
    }
    assert len(starts) > 1


@pytest.fixture
def alike(tmp_path):
    """A-1 to A-4 share a rare symptom; B-1 shares nothing with them."""
    from django.db import connection

    common = {"domain": ["web"], "components": ["database"], "root_cause": "config"}
    store(
        tmp_path,
        *[plain_case(f"A-{n}", review=dict(REVIEWED), symptoms=["rare-a", "common"], **common)
          for n in range(1, 5)],
        *[plain_case(f"C-{n}", review=dict(REVIEWED), symptoms=["common"], **common)
          for n in range(1, 7)],
        plain_case("B-1", review=dict(REVIEWED), symptoms=["other"], domain=["ml"],
                   components=["gpu"], root_cause="bug"),
    )  # fmt: skip
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE cases_case")


def test_the_worker_keeps_similar_cases_and_a_page_shows_their_change_at_once(alike, tmp_path):
    """Kept similar cases (cases/discover/kept.py): a write to a case another page shows as
    similar makes that page again at once; the worker's new list too; nothing else."""
    from cases.models import SimilarCases

    from .conftest import run_worker

    run_worker()  # the import deferred the job: every case's list is kept
    assert SimilarCases.objects.count() == Case.objects.count()
    assert SimilarCases.objects.get(case_id="A-1").similar_ids[:3] == ["A-2", "A-3", "A-4"]
    for url in ["/cases/A-1", "/cases/A-1?lang=ko", "/cases/B-1"]:
        text(Client(), url)
        assert cached_state(url) == "hit", url
    # The ETag, which names the kept list's version, is a valid one (RFC 9110: no spaces).
    assert re.fullmatch(r'"[\x21\x23-\x7e]+"', get(Client(), "/cases/A-1")["ETag"])
    # A-2 renamed (one UPDATE, which no signal sees): A-1's page shows it at once.
    Case.objects.filter(id="A-2").update(title_en="Second, renamed")
    assert "Second, renamed" in text(Client(), "/cases/A-1")
    assert cached_state("/cases/B-1") == "hit"
    # The worker's periodic run makes A-2's list again and those naming it; A-1's page is
    # made again with it, B-1's stays.
    made_before = SimilarCases.objects.get(case_id="A-1").made_at
    from cases.discover.kept import refresh

    refresh()
    assert SimilarCases.objects.get(case_id="A-1").made_at > made_before
    assert cached_state("/cases/A-1") == "miss"
    assert cached_state("/cases/A-1") == "hit"
    assert cached_state("/cases/B-1") == "hit"
    # A new case like them (an import, which defers the job): the worker puts it in their
    # lists, and their pages show it.
    common = {"domain": ["web"], "components": ["database"], "root_cause": "config"}
    store(tmp_path, plain_case("A-5", review=dict(REVIEWED), symptoms=["rare-a", "common"],
                               **common), name="new.json")  # fmt: skip
    assert "/cases/A-5" not in text(Client(), "/cases/A-1").split('id="similar"')[1]
    run_worker()
    assert "A-5" in SimilarCases.objects.get(case_id="A-1").similar_ids
    assert "/cases/A-5" in text(Client(), "/cases/A-1").split('id="similar"')[1]
    assert cached_state("/cases/B-1") == "hit"
