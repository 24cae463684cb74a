"""The lists and counts kept under the library's shape (cases/caching.py): after any write,
what the cache serves is what a fresh page says."""

import pytest
from django.db import connection
from django.test import Client

from cases.models import Case, CaseTerm, Organisation, Term

from .library import REVIEWED, plain_case, store

pytestmark = pytest.mark.django_db(transaction=True)

LISTS = [
    "/", "/cases/", "/cases/?page=2", "/cases/?severity=medium", "/cases/?domain=web",
    "/cases/?detected_after=unknown", "/cases/?year_from=2021", "/taxonomy/",
    "/taxonomy/severity/medium/", "/taxonomy/domain/web/", "/orgs/", "/orgs/example-org/",
    "/cases/?lang=ko", "/taxonomy/?lang=ko",
]  # fmt: skip


@pytest.fixture
def library(tmp_path, settings):
    settings.INCIDENTLIB_PAGE_SIZE = 1  # a case on each page: a change of order shows
    same_day = dict(review=dict(REVIEWED), date="2021-01-01")
    store(
        tmp_path,
        plain_case("C-1", review=dict(REVIEWED)),
        plain_case("C-2", **same_day),
        # No tags: its id can change (the tags' rows name it).
        plain_case("C-3", **same_day, domain=[], symptoms=[], components=[]),
    )


def fresh(url):
    """The page made anew: a reader with a session is never served from the cache."""
    reader = Client()
    reader.cookies["sessionid"] = "anyone"
    response = reader.get(url)
    return response.status_code, response.content.decode()


def cached():
    for url in LISTS:
        Client().get(url)
        assert Client().get(url)["X-Cache"] == "hit", url


def stale_after(write):
    """The lists the cache serves otherwise than a fresh page, after the write."""
    cached()
    write()
    stale = []
    for url in LISTS:
        response = Client().get(url)
        if (response.status_code, response.content.decode()) != fresh(url):
            stale.append(url)
    return stale


def sql(statement):
    with connection.cursor() as cursor:
        cursor.execute(statement)


def reordered_tags():
    sql("UPDATE cases_caseterm SET position = 100 - position WHERE case_id = 'C-1'")


@pytest.mark.parametrize(
    "write",
    [
        pytest.param(lambda: Case.objects.filter(id="C-3").update(title_en="New"), id="title"),
        pytest.param(lambda: Case.objects.filter(id="C-3").update(detected_after="PT2H"),
                     id="a duration"),
        pytest.param(lambda: sql("UPDATE cases_case SET id = 'C-0' WHERE id = 'C-3'"),
                     id="an id, which orders cases of one day"),
        pytest.param(lambda: Term.objects.filter(slug="web").update(label_en="The Web"),
                     id="a term's label"),
        pytest.param(lambda: Organisation.objects.update(name="Renamed Org"), id="a name"),
        pytest.param(reordered_tags, id="the order of a case's tags"),
        pytest.param(lambda: CaseTerm.objects.filter(case_id="C-2").delete(), id="tags"),
        pytest.param(lambda: sql("TRUNCATE cases_caseterm"), id="every tag, truncated"),
    ],
)  # fmt: skip
def test_a_list_served_from_the_cache_is_the_fresh_list_after_any_write(library, write):
    assert stale_after(write) == []


def test_a_title_write_makes_again_only_the_lists_showing_the_case(library):
    cached()
    Case.objects.filter(id="C-3").update(title_en="New")
    made_again = [url for url in LISTS if Client().get(url)["X-Cache"] == "miss"]
    assert made_again and len(made_again) < len(LISTS)
    assert "/taxonomy/" not in made_again and "/orgs/" not in made_again
