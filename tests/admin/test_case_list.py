"""The admin's case list holds at 100,000 cases: its search box asks the library's search
vector (GIN-indexed) or a case id's start instead of reading every case's texts, its
organisation filter offers the organisations with the most cases (a library has thousands),
and each filter's counts are shown when asked (`_facets`), not on every page."""

import re
import unicodedata
from urllib.parse import urlencode

import pytest
from django.contrib.admin.views.main import ChangeList

from cases.admin.filters import FILTER_ORGANISATIONS

from ..conftest import logged_in
from ..library import REVIEWED, plain_case, store

pytestmark = pytest.mark.django_db

LIST = "/admin/cases/case/"


@pytest.fixture
def library(tmp_path):
    """Three cases of Bigcorp (the most), two of Midcorp, then one each of many more
    organisations than the filter offers."""
    cases = [
        plain_case("BIG-1", org="Bigcorp", org_slug="bigcorp", title={"en": "Storage ran out",
                   "ko": "스토리지가 가득 찼다"}),
        plain_case("BIG-2", org="Bigcorp", org_slug="bigcorp", review=dict(REVIEWED)),
        plain_case("BIG-3", org="Bigcorp", org_slug="bigcorp"),
        plain_case("MID-1", org="Midcorp", org_slug="midcorp"),
        plain_case("MID-2", org="Midcorp", org_slug="midcorp"),
        *(
            plain_case(f"ONE-{n}", org=f"Smallco {n:02}", org_slug=f"smallco-{n:02}")
            for n in range(FILTER_ORGANISATIONS + 5)
        ),
    ]  # fmt: skip
    store(tmp_path, *cases)


def listed(client, query):
    response = client.get(f"{LIST}?{query}")
    assert response.status_code == 200, query
    return sorted(case.id for case in response.context["cl"].result_list)


def test_the_search_box_finds_words_in_either_language_and_ids_by_their_start(
    client, library, reviewer
):
    logged_in(client, reviewer)
    assert listed(client, "q=storage") == ["BIG-1"]
    assert listed(client, "q=스토리지") == ["BIG-1"]  # a Korean word inside 스토리지가
    assert listed(client, "q=Midcorp") == ["MID-1", "MID-2"]  # the organisation's name
    assert listed(client, "q=mid-") == ["MID-1", "MID-2"]  # part of an id, any case
    assert listed(client, "q=BIG-2") == ["BIG-2"]
    assert listed(client, "q=G-2") == ["BIG-2"]
    assert listed(client, "q=nothing+like+it") == []


def test_the_search_box_reads_words_as_a_keyboard_types_them(client, library, reviewer):
    """As the public search does (search.as_searched): decomposed Hangul (macOS), full-width
    letters and digits, a Korean word typed with its particle."""
    logged_in(client, reviewer)
    decomposed = unicodedata.normalize("NFD", "스토리지")
    assert decomposed != "스토리지"
    assert listed(client, urlencode({"q": decomposed})) == ["BIG-1"]
    assert listed(client, urlencode({"q": "ＳＴＯＲＡＧＥ"})) == ["BIG-1"]
    assert listed(client, urlencode({"q": "ＢＩＧ－２"})) == ["BIG-2"]  # an id, full-width
    assert listed(client, urlencode({"q": "스토리지가"})) == ["BIG-1"]


def test_the_organisation_filter_offers_those_with_the_most_cases_and_the_chosen_one(
    client, library, reviewer
):
    logged_in(client, reviewer)

    def offered(query=""):
        response = client.get(f"{LIST}?{query}")
        spec = next(
            spec
            for spec in response.context["cl"].filter_specs
            if getattr(spec, "parameter_name", None) == "organisation"
        )
        return [slug for slug, _name in spec.lookup_choices]

    first = offered()
    assert len(first) == FILTER_ORGANISATIONS
    assert first[:2] == ["bigcorp", "midcorp"]
    # One not offered, once chosen, is offered too and filters the list.
    left_out = next(f"smallco-{n:02}" for n in range(30) if f"smallco-{n:02}" not in first)
    assert left_out in offered(f"organisation={left_out}")
    assert len(listed(client, f"organisation={left_out}")) == 1


def test_filter_counts_are_shown_when_asked(client, library, reviewer):
    logged_in(client, reviewer)
    plain = client.get(LIST).content.decode()
    asked = client.get(f"{LIST}?_facets=1").content.decode()
    assert "Bigcorp (3)" not in plain
    assert "Bigcorp (3)" in asked
    assert isinstance(client.get(LIST).context["cl"], ChangeList)


def test_the_case_list_runs_a_fixed_number_of_queries(
    client, library, reviewer, django_assert_max_num_queries
):
    """The same few queries as tests/admin/test_case_admin.py's list, whatever the size of the
    library and its number of organisations, and one more for a search (the ids that hold
    its text)."""
    logged_in(client, reviewer)
    for query in ["", "q=storage", "organisation=midcorp&status=draft", "domain=web&q=mid-"]:
        with django_assert_max_num_queries(16):
            assert client.get(f"{LIST}?{query}").status_code == 200, query


def test_each_count_asked_for_is_the_number_of_cases_its_choice_lists(client, library, reviewer):
    logged_in(client, reviewer)
    html = client.get(f"{LIST}?_facets=1&status=draft").content.decode()
    sidebar = html.split('id="changelist-filter"')[1]
    choices = re.findall(r'<a href="\?([^"]+)">[^<]*\((\d+)\)</a>', sidebar)
    assert len(choices) > FILTER_ORGANISATIONS  # the status, facets and organisations
    for query, count in choices:
        assert len(listed(client, query.replace("&amp;", "&"))) == int(count), query
