"""Every browsing page runs a fixed number of SQL queries, however many cases match."""

import pytest

from cases.models import Term

from .library import DRAFT, REVIEWED, SEARCH_QUERIES, plain_case, store

pytestmark = pytest.mark.django_db


@pytest.fixture(params=[6, 60], ids=["small", "large"])
def library(request, tmp_path, settings):
    """A library of 6 or 60 cases with many tags, organisations and shared sources."""
    settings.INCIDENTLIB_PAGE_SIZE = 20
    size = request.param
    cases = [
        plain_case(
            f"Q-{n}",
            date=f"{2000 + n % 25}-01-01",
            title={"en": f"Outage number {n} of the relay", "ko": f"중계기 장애 {n}"},
            domain=[f"domain-{n % 5}", "web"],
            symptoms=[f"symptom-{n % 7}", "errors"],
            components=[f"component-{k}" for k in range(n % 9)],
            contributing=[f"factor-{n % 4}"],
            severity=["low", "medium", "high", "critical"][n % 4],
            root_cause=f"cause-{n % 6}",
            org=f"Org {n % 15}",
            org_slug=f"org-{n % 15}",
            remediation=[
                {"text": {"en": f"Fix {k}", "ko": None}, "kind": f"fix-{(n + k) % 5}"}
                for k in range(3)
            ],
            sources=[
                {
                    "url": "https://example.com/shared",
                    "kind": "blog",
                    "license": None,
                    "archived": None,
                }
            ],
            review=REVIEWED if n % 2 else DRAFT,
        )  # fmt: skip
        for n in range(size)
    ]
    store(tmp_path, *cases)
    Term.objects.update(label_ko="한국어 이름")


def test_the_case_list_runs_six_queries(client, library, django_assert_max_num_queries):
    """Queries: the library's state (its generation, for the cache); the taxonomy terms; the
    facet counts, which give the number of matching cases too; one page of them with
    organisation, severity and root cause; their tags; when searching, the snippets of the
    page's cases."""
    for url in [
        "/cases/",
        "/cases/?components=component-1&year_from=2003&page=1&lang=ko",
        "/taxonomy/components/component-2/",
        "/cases/?fix=fix-1&fix=fix-3&severity=high",
        "/cases/?detected_after=1h-4h&resolved_after=unknown&severity=high",
        "/taxonomy/fix/fix-2/",
    ]:
        with django_assert_max_num_queries(6):
            assert client.get(url).status_code == 200, url


def test_a_search_adds_a_fixed_number_of_queries(client, library, django_assert_max_num_queries):
    for url in [
        "/cases/?q=relay&sort=relevance",
        "/cases/?q=중계기&domain=web&severity=high&severity=low&reviewed=yes",
        # A Latin word with a particle, cut or, as a stopword, not: decided in the query.
        "/cases/?q=relay의 IT의&sort=relevance",
        "/cases/?q=relay broke after the change and nothing answered for hours&sort=relevance",
    ]:
        with django_assert_max_num_queries(6 + SEARCH_QUERIES):
            assert client.get(url).status_code == 200, url


def test_an_empty_case_list_runs_five_queries(client, library, django_assert_max_num_queries):
    """Queries: the library's state; the taxonomy terms; the facet counts (no matching case);
    how many cases removing the search, a year or the page's own term would
    give; whether the search holds a word at all (only words too common to search for); and
    what a search adds (SEARCH_QUERIES)."""
    for url in [
        "/cases/?q=nowhere&domain=web&year_from=2001",
        "/taxonomy/components/component-2/?q=nowhere&year_to=2030",
        "/cases/?q=the&domain=web",
        "/cases/?q=NFS의 nowhere",
        "/cases/?q=IT의",
    ]:
        with django_assert_max_num_queries(5 + SEARCH_QUERIES):
            assert client.get(url).status_code == 200, url


def test_the_case_list_with_organisations_runs_seven_queries(
    client, library, django_assert_max_num_queries
):
    """Queries: the organisations `org` names (are they public? their names); then those of
    the case list."""
    for url in [
        "/cases/?org=org-1&org=org-3",
        "/cases/?q=중계기&domain=web&severity=high&severity=low&org=org-1&org=org-3&reviewed=yes",
    ]:
        with django_assert_max_num_queries(7 + (SEARCH_QUERIES if "q=" in url else 0)):
            assert client.get(url).status_code == 200, url


def test_an_organisation_page_runs_six_queries(client, library, django_assert_max_num_queries):
    """Queries: the organisation; then those of the case list."""
    with django_assert_max_num_queries(6):
        assert client.get("/orgs/org-1/").status_code == 200


def test_the_home_page_runs_five_queries(client, library, django_assert_max_num_queries):
    """Queries: the library's state; the taxonomy terms; the facet counts over the library;
    the recent cases with organisation, severity and root cause; their tags."""
    with django_assert_max_num_queries(5):
        assert client.get("/").status_code == 200


def test_the_taxonomy_pages_run_few_queries(client, library, django_assert_max_num_queries):
    # The library's state; the taxonomy terms; the facet counts over the library.
    with django_assert_max_num_queries(3):
        assert client.get("/taxonomy/").status_code == 200
    # The same: the organisations and their numbers of cases are among the facet counts.
    with django_assert_max_num_queries(3):
        assert client.get("/orgs/").status_code == 200


def test_the_api_runs_a_fixed_number_of_queries(client, library, django_assert_max_num_queries):
    """/api/cases/: the library's state; the time it is complete up to (synced_at); the
    taxonomy terms; the number of matching cases; one page of them with organisation,
    severity, root cause, recurrence and reviewer; their sources (with how many cases cite
    each); remediation; action items; tags; related cases."""
    for url in [
        "/api/cases/",
        "/api/cases/?per_page=100",
        "/api/cases/?q=relay&domain=web",
        "/api/cases/?q=relay의&per_page=100",
    ]:
        with django_assert_max_num_queries(10 + (SEARCH_QUERIES if "q=" in url else 0)):
            assert client.get(url).status_code == 200, url
    # /api/taxonomy/: the library's state; the terms; the facet counts.
    with django_assert_max_num_queries(3):
        assert client.get("/api/taxonomy/").status_code == 200


def test_the_feed_sources_and_sitemap_run_few_queries(
    client, library, django_assert_max_num_queries
):
    # Each page also reads the library's state first.
    # The taxonomy terms; the newest reviewed cases; their tags.
    with django_assert_max_num_queries(4):
        assert client.get("/feed/?domain=web").status_code == 200
    # The number of cases citing the address; one page of them; their tags.
    with django_assert_max_num_queries(4):
        assert client.get("/sources/?url=https://example.com/shared").status_code == 200
    # The index: a count for each of cases, terms and organisations; the cases' latest update.
    with django_assert_max_num_queries(5):
        assert client.get("/sitemap.xml").status_code == 200
    # A section: its count and its page of addresses.
    for section in ("cases", "taxonomy", "organisations"):
        with django_assert_max_num_queries(3):
            assert client.get(f"/sitemap-{section}.xml").status_code == 200


def test_the_bulk_download_runs_its_queries_per_chunk_of_cases(
    client, library, django_assert_max_num_queries
):
    # The time it is complete up to (its Incidentlib-Synced-At); then one chunk (up to 200
    # cases): the cases; sources; remediation; action items; tags; related cases.
    with django_assert_max_num_queries(8):
        response = client.get("/api/cases.jsonl")
        assert len(b"".join(response.streaming_content).splitlines()) in (6, 60)


def test_the_citations_run_few_queries(client, library, django_assert_max_num_queries):
    # The library's state; the case with what a citation carries (one query, the same for a
    # case of any size in a library of any size).
    for suffix in (".bib", ".ris", ".csl.json"):
        for language in ("en", "ko"):
            with django_assert_max_num_queries(2):
                response = client.get(f"/cases/Q-1{suffix}?lang={language}")
                assert response.status_code == 200
