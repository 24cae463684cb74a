"""The case admin: a list to work through drafts, and a form that reads like the case page."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from cases.models import Case, Facet, Term

from ..conftest import (
    change_url,
    exported,
    import_cases,
    logged_in,
    make_case,
    open_case,
    write_json,
)

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/cases/case/"


@pytest.fixture
def library(db, tmp_path):
    """IL-0137, a draft of 2026-06-15; T-1, reviewed, 2026-09-01; T-2, another organisation's."""
    t1 = make_case("T-1", date="2026-09-01", severity="high", domain=["databases"])
    t1["title"] = {"en": "Replica lag", "ko": "복제 지연"}
    t1["review"] = {
        "written_by": None,
        "reviewed_by": "olga",
        "reviewed_at": "2026-10-01T00:00:00Z",
    }
    t2 = make_case("T-2", date="2025-01-01", org="Example Ltd", org_slug="example")
    import_cases(write_json(tmp_path / "library.json", [make_case("IL-0137"), t1, t2]))


def listed(client, query=""):
    response = client.get(CHANGELIST + query)
    assert response.status_code == 200
    return [case.pk for case in response.context["cl"].result_list]


# The list ------------------------------------------------------------------------------


def test_the_list_shows_id_title_organisation_date_status_writer_reviewer_and_last_update(
    client, library, reviewer
):
    logged_in(client, reviewer)
    html = client.get(CHANGELIST).content.decode()
    columns = re.findall(r'<th scope="col" class="[^"]*column-(\w+)', html)
    assert columns == [
        "id",
        "title_en",
        "organisation",
        "date",
        "status",
        "written_by",
        "reviewed_by",
        "updated_at",
        "translation",
    ]
    first_row = html.split('<tr><td class="action-checkbox">')[1].split("</tr>")[0]
    for shown in ("T-1", "Replica lag", "Lablup Inc", "Sept. 1, 2026", "Reviewed", "olga"):
        assert shown in first_row


def test_the_list_puts_the_newest_cases_first(client, library, reviewer):
    logged_in(client, reviewer)
    assert listed(client) == ["T-1", "IL-0137", "T-2"]


def test_the_list_counts_the_drafts_at_a_glance(client, library, reviewer):
    logged_in(client, reviewer)
    html = client.get(CHANGELIST).content.decode()
    assert '<a href="?status=draft">2 drafts waiting for review</a>' in html
    # Each filter's counts when asked ("Show counts"): they count the selection once per
    # value, too long at 100,000 cases for every page (tests/admin/test_case_list.py).
    html = client.get(f"{CHANGELIST}?_facets=1").content.decode()
    assert '<a href="?_facets=1&amp;status=draft">Draft (2)</a>' in html
    assert '<a href="?_facets=1&amp;status=reviewed">Reviewed (1)</a>' in html


@pytest.mark.parametrize(
    "query, cases",
    [
        ("?status=draft", ["IL-0137", "T-2"]),
        ("?status=reviewed", ["T-1"]),
        ("?severity=high", ["T-1"]),
        ("?root_cause=capacity", ["T-1", "IL-0137", "T-2"]),
        ("?domain=databases", ["T-1"]),
        ("?symptoms=throughput-degraded", ["T-1", "IL-0137", "T-2"]),
        ("?components=shared-filesystem", ["T-1", "IL-0137", "T-2"]),
        ("?contributing=monitoring-blind-spot", ["T-1", "IL-0137", "T-2"]),
        ("?domain=ai-infra&status=draft", ["IL-0137", "T-2"]),
    ],
)
def test_the_list_filters_on_status_and_every_facet(client, library, reviewer, query, cases):
    logged_in(client, reviewer)
    assert listed(client, query) == cases


def test_the_list_has_a_filter_for_each_facet_and_the_organisation(client, library, reviewer):
    logged_in(client, reviewer)
    html = client.get(CHANGELIST).content.decode()
    titles = re.findall(r'<details data-filter-title="([^"]+)"', html)
    assert titles == [
        "status",
        "translation",
        "domain",
        "symptoms",
        "components",
        "root cause",
        "contributing factors",
        "severity",
        "organisation",
    ]
    assert listed(client, "?organisation=example") == ["T-2"]
    assert listed(client, "?organisation=lablup-inc") == ["T-1", "IL-0137"]


@pytest.mark.parametrize(
    "search, cases",
    [
        ("T-1", ["T-1"]),
        ("0137", ["IL-0137"]),
        ("replica", ["T-1"]),
        ("복제", ["T-1"]),
        ("Example Ltd", ["T-2"]),
    ],
)
def test_the_list_searches_ids_titles_in_both_languages_and_organisations(
    client, library, reviewer, search, cases
):
    logged_in(client, reviewer)
    assert listed(client, f"?q={search}") == cases


def test_the_list_runs_as_many_queries_for_many_cases_as_for_few(
    client, library, reviewer, tmp_path
):
    logged_in(client, reviewer)
    with CaptureQueriesContext(connection) as few:
        listed(client)
    import_cases(write_json(tmp_path / "more.json", [make_case(f"M-{n}") for n in range(15)]))
    with CaptureQueriesContext(connection) as many:
        assert len(listed(client)) == 18
    # 1-2 the session and the user, 3 the draft counts above the list, 4-5 the user's and
    # the groups' permissions, 6 the terms and 7-8 the organisations the filters offer (the
    # most cases, then their names), 9-10 the number of cases (all, and filtered), 11 the
    # page of cases with their organisations, 12-13 the remediation steps and action items
    # of the page (its translation column), 14-15 the date hierarchy (first and last date,
    # the years). The counts beside the filters' choices only when asked (`_facets`).
    assert len(few) == len(many) == 15


# The change form -----------------------------------------------------------------------


def test_the_form_reads_like_the_case_page(client, library, reviewer):
    logged_in(client, reviewer)
    html = client.get(change_url("IL-0137")).content.decode()
    headings = [
        re.sub(r"<[^>]+>|\s+", " ", heading).strip()
        for heading in re.findall(r"<h2[^>]*>(.*?)</h2>", html, re.S)
    ]
    assert headings[headings.index("Summary") : headings.index("Review") + 1] == [
        "Summary",
        "What happened",
        "Why",
        "Tags: domain, symptoms, components, contributing factors",
        "Fix and lessons",
        "Remediation",
        "Action items",
        "Sources",
        "Cited sources",
        "Related cases",
        "Review",
    ]


def test_the_form_puts_both_languages_side_by_side(client, library, reviewer):
    logged_in(client, reviewer)
    html = client.get(change_url("IL-0137")).content.decode()
    for name in ("title", "summary", "trigger", "symptoms_text", "detection", "lessons"):
        assert f"form-row field-{name}_en field-{name}_ko" in html
    assert 'name="remediation_steps-0-text_en"' in html
    assert 'name="remediation_steps-0-text_ko"' in html


def test_the_form_links_to_the_case_page(client, library, reviewer):
    logged_in(client, reviewer)
    html = client.get(change_url("IL-0137")).content.decode()
    assert '<a href="/cases/IL-0137" class="viewsitelink">' in html


def test_the_form_has_no_view_on_site_link_for_a_hidden_draft(client, library, reviewer, settings):
    settings.INCIDENTLIB_HIDE_DRAFTS = True
    logged_in(client, reviewer)
    assert "viewsitelink" not in client.get(change_url("IL-0137")).content.decode()
    assert (
        '<a href="/cases/T-1" class="viewsitelink">'
        in client.get(change_url("T-1")).content.decode()
    )


def test_the_form_offers_autocomplete_for_terms_related_cases_and_recurrence(
    client, library, reviewer
):
    logged_in(client, reviewer)
    html = client.get(change_url("IL-0137")).content.decode()
    for name in (
        "severity",
        "root_cause",
        "recurrence_of",
        "case_terms-0-term",
        "related_links-0-to_case",
    ):
        assert re.search(rf'<select name="{name}"[^>]*class="admin-autocomplete', html), name


def autocomplete(client, model_name, field_name, term=""):
    response = client.get(
        "/admin/autocomplete/",
        {"app_label": "cases", "model_name": model_name, "field_name": field_name, "term": term},
    )
    assert response.status_code == 200
    return [result["text"] for result in response.json()["results"]]


def test_tag_autocomplete_offers_only_the_facets_a_case_has_several_of(client, library, reviewer):
    logged_in(client, reviewer)
    offered = autocomplete(client, "caseterm", "term")
    listed_facets = {Facet.DOMAIN, Facet.SYMPTOMS, Facet.COMPONENTS, Facet.CONTRIBUTING}
    assert sorted(offered) == sorted(str(t) for t in Term.objects.filter(facet__in=listed_facets))
    assert autocomplete(client, "case", "severity") == [
        str(t) for t in Term.objects.filter(facet=Facet.SEVERITY).order_by("facet", "slug")
    ]


def test_case_autocomplete_finds_cases_by_id_and_title(client, library, reviewer):
    logged_in(client, reviewer)
    assert autocomplete(client, "case", "recurrence_of", "복제") == ["T-1: Replica lag"]
    assert autocomplete(client, "relatedcase", "to_case", "T-2") == [
        str(Case.objects.get(pk="T-2"))
    ]


# Ordered lists -------------------------------------------------------------------------


def test_typing_an_order_moves_a_step_and_the_others_keep_theirs(client, library, reviewer):
    logged_in(client, reviewer)
    steps = [step["text"]["en"] for step in exported("IL-0137")["remediation"]]
    data = open_case(client, "IL-0137")
    data["remediation_steps-2-order"] = "2"
    assert client.post(change_url("IL-0137"), data).status_code == 302
    moved = [step["text"]["en"] for step in exported("IL-0137")["remediation"]]
    assert moved == [steps[0], steps[2], steps[1]]


def test_a_new_source_without_an_order_goes_last(client, library, reviewer):
    logged_in(client, reviewer)
    data = open_case(client, "IL-0137")
    data["sources-1-url"] = "https://example.org/another-postmortem"
    data["sources-1-kind"] = "postmortem"
    data["sources-TOTAL_FORMS"] = "2"
    assert client.post(change_url("IL-0137"), data).status_code == 302
    urls = [source["url"] for source in exported("IL-0137")["sources"]]
    assert urls[-1] == "https://example.org/another-postmortem" and len(urls) == 2


def test_a_new_source_with_order_one_goes_first(client, library, reviewer):
    logged_in(client, reviewer)
    data = open_case(client, "IL-0137")
    data.update(
        {
            "sources-1-url": "https://example.org/first",
            "sources-1-kind": "postmortem",
            "sources-1-order": "1",
            "sources-TOTAL_FORMS": "2",
        }
    )
    client.post(change_url("IL-0137"), data)
    assert exported("IL-0137")["sources"][0]["url"] == "https://example.org/first"


def test_deleting_a_step_keeps_the_order_of_the_rest(client, library, reviewer):
    logged_in(client, reviewer)
    steps = [step["text"]["en"] for step in exported("IL-0137")["remediation"]]
    data = open_case(client, "IL-0137")
    data["remediation_steps-0-DELETE"] = "on"
    client.post(change_url("IL-0137"), data)
    assert [step["text"]["en"] for step in exported("IL-0137")["remediation"]] == steps[1:]


def test_text_from_a_browser_keeps_plain_line_breaks(client, library, reviewer):
    logged_in(client, reviewer)
    data = open_case(client, "IL-0137")
    data["lessons_ko"] = "첫 문단.\r\n\r\n둘째 문단."
    client.post(change_url("IL-0137"), data)
    assert Case.objects.get(pk="IL-0137").lessons_ko == "첫 문단.\n\n둘째 문단."


def test_a_new_case_from_the_admin_gets_its_updated_at(client, library, django_user_model):
    logged_in(client, django_user_model.objects.create_superuser("root"))
    # IL-0137's form, as a new case: no version, and its lists' items new too.
    data = {
        key: value
        for key, value in open_case(client, "IL-0137").items()
        if key != "seen_version" and not re.search(r"-\d+-(id|case|from_case)$", key)
    }
    data.update({key: "0" for key in data if key.endswith("-INITIAL_FORMS")})
    data["id"] = "T-9"
    response = client.post("/admin/cases/case/add/", data)
    assert response.status_code == 302
    case = exported("T-9")
    assert case["updated_at"] and case["review"]["reviewed_by"] is None
    assert len(case["sources"]) == 1 and len(case["remediation"]) == 3


def test_the_keys_import_files_name_rows_by_are_read_only_once_stored(client, library):
    from django.contrib.auth.models import User

    logged_in(client, User.objects.create_superuser("root"))
    term = Term.objects.get(facet="severity", slug="high")
    term_form = client.get(f"/admin/cases/term/{term.pk}/change/").context["adminform"].form
    assert "slug" not in term_form.fields and "facet" not in term_form.fields
    organisation = Case.objects.get(pk="T-2").organisation
    org_form = client.get(f"/admin/cases/organisation/{organisation.pk}/change/")
    assert "slug" not in org_form.context["adminform"].form.fields
    assert "id" not in client.get(change_url("T-2")).context["adminform"].form.fields
    assert "id" in client.get("/admin/cases/case/add/").context["adminform"].form.fields


# In Korean ---------------------------------------------------------------------------


def test_the_inline_columns_are_headed_in_korean_on_a_korean_admin(client, library, reviewer):
    logged_in(client, reviewer)
    html = client.get(change_url("IL-0137"), HTTP_ACCEPT_LANGUAGE="ko").content.decode()
    headers = dict(re.findall(r'<th class="column-(term|to_case)[^"]*">\s*([^<]*?)\s*<', html))
    assert headers == {"term": "분류 용어", "to_case": "관련 사례"}


def test_terms_are_named_in_the_admins_language(client, library, reviewer):
    Term.objects.filter(facet="severity", slug="high").update(label_en="High", label_ko="높음")
    logged_in(client, reviewer)
    korean = autocomplete_in(client, "ko", "case", "severity", "high")
    assert korean == ["심각도: 높음"]
    assert autocomplete_in(client, "en", "case", "severity", "high") == ["Severity: High"]
    # A term without a Korean label keeps its English one.
    assert autocomplete_in(client, "ko", "case", "root_cause", "capacity") == [
        "근본 원인: Capacity"
    ]


def autocomplete_in(client, language, model_name, field_name, term):
    response = client.get(
        "/admin/autocomplete/",
        {"app_label": "cases", "model_name": model_name, "field_name": field_name, "term": term},
        HTTP_ACCEPT_LANGUAGE=language,
    )
    return [result["text"] for result in response.json()["results"]]
