"""The facet counts over the whole library and within each term, kept by the database at
every write (FacetCount, cases/migrations/), are always those a count of the cases gives:
after an import, an edit of a case, its review, its tags, its remediation steps' kinds, its
organisation, a deletion, in both review states, and with drafts hidden. A list of one or two
terms, organisations or a review state counted from them, or from its own cases, gives the
counts a count of every case gives.

Each write commits (transaction=True), so that the fold at commit runs as it does in use.
"""

import pytest
from django.db import connection, transaction
from django.http import QueryDict

from cases.listing.facet_counts import count_facets, kept_counts, library_counts
from cases.listing.query import ListingQuery
from cases.models import Case, CaseTerm, FacetCount, Organisation, RemediationStep, Term

from .library import REVIEWED, plain_case, six_cases, store

pytestmark = pytest.mark.django_db(transaction=True)


def counted_afresh(term=None):
    """The facet counts of the public cases (having `term`), as a count of them gives them."""
    cases = Case.objects.published()
    if term is not None:
        cases = cases.filter(term_ids__contains=[term.id])
    counts = count_facets(cases, Term.objects.index())
    return counts.total, counts.rows


def kept(term=None):
    counts = library_counts() if term is None else kept_counts(Term.objects.index(), term.id)
    return counts.total, counts.rows


def assert_kept_counts_are_fresh():
    assert kept() == counted_afresh()
    for term in Term.objects.all():
        assert kept(term) == counted_afresh(term), term
    # Folded at each commit: one row per count (within, key, review state), none unfolded.
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) = count(DISTINCT (within, key, reviewed)), count(txid) = 0"
            " FROM cases_facetcount"
        )
        assert cursor.fetchone() == (True, True)


@pytest.fixture
def library(tmp_path):
    store(tmp_path, *six_cases())
    return tmp_path


@pytest.mark.parametrize("hide_drafts", [False, True])
def test_after_an_import_the_kept_counts_are_a_count_of_the_library(library, settings, hide_drafts):
    settings.INCIDENTLIB_HIDE_DRAFTS = hide_drafts
    assert FacetCount.objects.exists()
    total, rows = kept()
    assert total == (3 if hide_drafts else 6)
    assert rows[("domain", "web")][0] == (1 if hide_drafts else 2)
    assert_kept_counts_are_fresh()


@pytest.mark.parametrize("hide_drafts", [False, True])
def test_after_each_kind_of_write_the_kept_counts_are_a_count_of_the_library(
    library, settings, hide_drafts
):
    settings.INCIDENTLIB_HIDE_DRAFTS = hide_drafts
    writes = [
        # an edit that changes no key, then the review both ways
        lambda: Case.objects.filter(id="A-1").update(title_en="Another title"),
        lambda: Case.objects.filter(id="A-2").update(
            reviewed_at="2026-01-01T00:00:00Z", reviewed_by="mina"
        ),
        lambda: Case.objects.filter(id="A-1").update(reviewed_at=None, reviewed_by=None),
        # a tag removed, a tag added
        lambda: CaseTerm.objects.filter(case_id="A-3", term__slug="gpu").delete(),
        lambda: CaseTerm.objects.create(
            case_id="A-4", term=Term.objects.get(facet="domain", slug="web"), position=9
        ),
        # a remediation step with a kind of fix, then its kind changed
        lambda: RemediationStep.objects.create(
            case_id="A-5",
            position=0,
            text_en="Rolled back.",
            kind=Term.objects.get_or_create(
                facet="fix", slug="rollback", defaults={"label_en": "Rollback"}
            )[0],
        ),
        lambda: RemediationStep.objects.filter(case_id="A-5").update(
            kind=Term.objects.get_or_create(
                facet="fix", slug="config-change", defaults={"label_en": "Config change"}
            )[0]
        ),
        # a case moved to another organisation, one deleted, several written in one
        # transaction
        lambda: Case.objects.filter(id="A-6").update(
            organisation=Organisation.objects.get(slug="acme")
        ),
        lambda: Case.objects.filter(id="A-2").delete(),
        several_in_one_transaction,
    ]
    for write in writes:
        write()
        assert_kept_counts_are_fresh()


def several_in_one_transaction():
    with transaction.atomic():
        Case.objects.filter(id="A-3").update(reviewed_at=None, reviewed_by=None)
        with transaction.atomic():  # a savepoint, as the admin's saves make
            Case.objects.filter(id="A-4").delete()
        CaseTerm.objects.filter(case_id="A-5").delete()


def test_a_re_import_counts_the_library_again(library, tmp_path):
    Case.objects.filter(id="A-1").update(reviewed_at=None, reviewed_by=None)
    store(
        tmp_path,
        plain_case("A-1", domain=["storage"], review=dict(REVIEWED)),
        plain_case("B-1", org="Newco", org_slug="newco"),
        name="again.json",
    )
    total, rows = kept()
    assert total == 7
    assert rows[("org", "newco")] == (1, 0)
    assert_kept_counts_are_fresh()


def test_emptying_the_case_table_empties_the_counts(library):
    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE cases_case CASCADE")
    assert not FacetCount.objects.exists()
    assert kept() == (0, {})


@pytest.mark.parametrize("hide_drafts", [False, True])
@pytest.mark.parametrize(
    "query, fixed",
    [
        ("", ("domain", "web")),  # a term's page
        ("severity=high", None),  # one term chosen
        ("domain=ml&symptoms=latency", None),  # two terms of two facets
        ("symptoms=errors", ("domain", "web")),  # a term's page with one chosen
        ("symptoms=errors", ("symptoms", "latency")),  # ... of its own facet
        ("org=acme", None),  # organisations chosen
        ("org=acme&org=globex", None),
        ("org=globex&severity=critical", None),
        ("org=acme", ("domain", "web")),
        ("", ("org", "acme")),  # an organisation's page
        ("severity=critical", ("org", "globex")),
        ("org=globex", ("org", "acme")),
        ("reviewed=yes", None),  # a review state chosen
        ("reviewed=no", None),
        ("reviewed=no&severity=critical", None),
        ("reviewed=yes&org=acme", None),
        ("reviewed=yes", ("domain", "ml")),
        ("reviewed=no", ("org", "globex")),
    ],
)
def test_a_list_of_one_or_two_parts_counts_as_a_count_of_its_cases(
    library, settings, hide_drafts, query, fixed
):
    settings.INCIDENTLIB_HIDE_DRAFTS = hide_drafts
    CaseTerm.objects.filter(case_id="A-6", term__slug="errors").delete()  # kept counts changed

    def counts(kept):
        organisation = None
        if fixed and fixed[0] == "org":
            organisation = Organisation.objects.get(slug=fixed[1])
        listing = ListingQuery(
            QueryDict(query), terms=Term.objects.index(), fixed=fixed, organisation=organisation
        )
        assert listing.is_valid(), listing.errors
        if kept:
            assert listing._parts()
        else:
            listing._parts = lambda: None
        facets = listing.load("en").facets
        return facets.total, facets.rows, facets.without, facets.org_names

    from_kept_counts = counts(kept=True)
    assert from_kept_counts == counts(kept=False)
    empty = query == "org=globex" or hide_drafts and "reviewed=no" in query
    assert (from_kept_counts[0] > 0) is not empty
