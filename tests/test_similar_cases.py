"""Similar cases on the case page: sharing the most informative terms, then title and summary
words; never the case itself nor a related one; a stable order; one query."""

import re

import pytest

from cases.discover.similar import similar_cases
from cases.models import Case, Term

from .library import plain_case, store

pytestmark = pytest.mark.django_db


@pytest.fixture
def library(tmp_path):
    common = {"domain": ["web"], "components": ["database"], "root_cause": "config"}
    cases = [
        plain_case("S-0", symptoms=["rare-a", "rare-b", "common"], **common,
                   title={"en": "Readahead storm on shards", "ko": "샤드의 리드어헤드 폭주"},
                   related=["S-5"]),
        # Both rare symptoms: the most alike; S-1 also shares title words.
        plain_case("S-1", symptoms=["rare-a", "rare-b"], **common,
                   title={"en": "Readahead storm again", "ko": None}),
        plain_case("S-2", symptoms=["rare-a", "rare-b"], **common),
        plain_case("S-7", symptoms=["rare-a", "rare-b"], **common),
        plain_case("S-3", symptoms=["rare-a", "common"], **common),
        plain_case("S-4", symptoms=["rare-b"], **common),
        # Would be the most alike, but is already related (either way).
        plain_case("S-5", symptoms=["rare-a", "rare-b", "common"], **common),
        plain_case("S-6", symptoms=["rare-a", "rare-b", "common"], **common, related=["S-0"]),
        *[plain_case(f"C-{n}", symptoms=["common"], **common) for n in range(8)],
        plain_case("X-1", symptoms=["other"], domain=["ml"], components=["gpu"], root_cause="bug"),
    ]  # fmt: skip
    store(tmp_path, *cases)
    from django.db import connection

    with connection.cursor() as cursor:
        # The terms' weights come from PostgreSQL's statistics, which autovacuum or an import
        # refreshes; a test takes them at once.
        cursor.execute("ANALYZE cases_case")


def shown_similar(html):
    section = html[html.index('id="similar"') :]
    section = section[: section.index("</section>")]
    return re.findall(r'<a href="/cases/([^"]+)">', section), section


def test_the_most_alike_come_first_never_itself_nor_related(client, library):
    ids, section = shown_similar(client.get("/cases/S-0").content.decode())
    # S-2 and S-7 are alike in every way: by id. The cases sharing only common terms (C-*)
    # are never candidates: a candidate has one of the case's two most informative terms.
    assert ids == ["S-1", "S-2", "S-7", "S-3", "S-4"]
    assert not {"S-0", "S-5", "S-6"} & set(ids)
    assert "same symptoms:" in section
    assert re.search(r"same symptoms: <span>Rare a</span>, <span>Rare b</span>", section) or (
        "Rare a" in section and "Rare b" in section
    )


def test_the_order_is_stable(library):
    case = Case.objects.for_page().get(id="S-0")
    first = [found.case.id for found in similar_cases(case, exclude_ids=["S-5", "S-6"])]
    for _ in range(3):
        again = [found.case.id for found in similar_cases(case, exclude_ids=["S-5", "S-6"])]
        assert again == first
    assert first == ["S-1", "S-2", "S-7", "S-3", "S-4"]


def test_a_case_sharing_nothing_informative_has_no_similar_cases(client, library):
    html = client.get("/cases/X-1").content.decode()
    assert 'id="similar"' in html  # it still links to cases with the same symptoms
    ids, section = shown_similar(html)
    assert ids == []
    assert "No other case shares enough with this one to be shown as similar." in section
    assert 'href="/diagnose/?symptoms=other"' in html


def test_hidden_drafts_are_never_similar(client, library, settings):
    settings.INCIDENTLIB_HIDE_DRAFTS = True
    Case.objects.filter(id="S-0").update(reviewed_at="2026-01-01T00:00:00Z", reviewed_by="r")
    ids, _ = shown_similar(client.get("/cases/S-0").content.decode())
    assert ids == []


def test_similar_cases_in_korean(client, library):
    html = client.get("/cases/S-0?lang=ko").content.decode()
    assert "비슷한 사례" in html and "같은 증상:" in html


def test_the_case_page_with_similar_cases_runs_ten_queries(
    client, library, django_assert_max_num_queries
):
    """Queries: the library's state; the case with organisation, terms and reviewer; sources;
    remediation; action items; tags; related links; the recurrence chain; cases relating to
    it; its similar cases (one query): as the worker kept them, with their titles, or, before
    the worker has kept them, the search for them (term weights, candidates, scores and
    titles), the case's own query having said that none is kept."""
    from cases.discover import kept

    for url in ["/cases/S-0", "/cases/S-1?lang=ko", "/cases/X-1"]:
        with django_assert_max_num_queries(10):
            assert client.get(url).status_code == 200
    kept.refresh()
    for url in ["/cases/S-0", "/cases/S-1?lang=ko", "/cases/X-1"]:
        with django_assert_max_num_queries(10):
            assert client.get(url).status_code == 200


@pytest.fixture
def fix_library(tmp_path):
    """Every case alike in its tags; F-0 and F-2 alone tuned readahead, F-1 rolled back."""
    from django.db import connection

    Term.objects.create(facet="fix", slug="tune-readahead", label_en="Tune readahead",
                        label_ko="리드어헤드 조정", needs_label=False)  # fmt: skip

    def steps(kind):
        return [{"text": {"en": "Fixed it", "ko": None}, "kind": kind}]

    store(
        tmp_path,
        plain_case("F-0", symptoms=["common"], remediation=steps("tune-readahead")),
        plain_case("F-1", symptoms=["common"], remediation=steps("roll-back")),
        plain_case("F-2", symptoms=["common"], remediation=steps("tune-readahead")),
        *[plain_case(f"C-{n}", symptoms=["common"]) for n in range(8)],
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE cases_case")


def test_the_kind_of_fix_counts_among_what_makes_cases_similar(client, fix_library):
    # Without its kind of fix, F-2 would be one of eleven alike cases, after C-0 to C-7 by id.
    ids, section = shown_similar(client.get("/cases/F-0").content.decode())
    assert ids[0] == "F-2"
    assert (
        "same symptoms:" in section and "same kind of fix: <span>Tune readahead</span>" in section
    )
    korean = client.get("/cases/F-0?lang=ko").content.decode()
    assert "같은 조치 유형: <span>리드어헤드 조정</span>" in korean
    case = Case.objects.for_page().get(id="F-0")
    assert [found.case.id for found in similar_cases(case)][0] == "F-2"


@pytest.mark.parametrize("holding_three", [40, 39])
def test_when_forty_cases_hold_the_three_most_informative_terms_they_are_the_candidates(
    tmp_path, holding_three
):
    """T-0's three most informative terms are its symptoms (the rarest of its terms; sym-c,
    which ten more cases have, the third). Y-1 has the two most informative and four more
    components, less informative each but more in all: it would score highest. With SHORTLIST
    (40) cases holding all three, only those are read; with fewer, the cases holding the two
    most informative are read too, and Y-1 comes first."""
    parts = ["part-1", "part-2", "part-3", "part-4"]
    store(
        tmp_path,
        plain_case("T-0", symptoms=["sym-a", "sym-b", "sym-c"], components=parts),
        plain_case("Y-1", symptoms=["sym-a", "sym-b"], components=parts),
        *[
            plain_case(f"H-{n}", symptoms=["sym-a", "sym-b", "sym-c"], components=["other"])
            for n in range(holding_three)
        ],
        *[plain_case(f"F-{n}", symptoms=["filler"], components=parts) for n in range(60)],
        *[plain_case(f"G-{n}", symptoms=["sym-c"], components=["other"]) for n in range(10)],
    )
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE cases_case")
    found = [similar.case.id for similar in similar_cases(Case.objects.for_page().get(id="T-0"))]
    assert len(found) == 5
    if holding_three >= 40:
        assert all(case_id.startswith("H-") for case_id in found)
    else:
        assert found[0] == "Y-1" and all(case_id.startswith("H-") for case_id in found[1:])


@pytest.fixture
def own_terms_library(tmp_path):
    """Z-0's two rarest symptoms are its own; W-* share its next three terms (a symptom, a
    component, a root cause); N-* and M-* share one of them each."""
    from django.db import connection

    alike = {"symptoms": ["shared-s"], "components": ["shared-c"], "root_cause": "shared-r"}
    store(
        tmp_path,
        plain_case("Z-0", **{**alike, "symptoms": ["only-z1", "only-z2", "shared-s"]}),
        *[plain_case(f"W-{n}", **alike) for n in range(1, 7)],
        *[
            plain_case(f"N-{n}", symptoms=["shared-s"], components=["other-c"], root_cause="x")
            for n in range(10)
        ],
        *[
            plain_case(f"M-{n}", symptoms=["other-s"], components=["shared-c"], root_cause="x")
            for n in range(10)
        ],
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE cases_case")


def test_a_case_whose_rarest_terms_are_its_own_is_like_those_sharing_the_next(
    client, own_terms_library
):
    ids, section = shown_similar(client.get("/cases/Z-0").content.decode())
    assert ids == ["W-1", "W-2", "W-3", "W-4", "W-5"]
    assert "same symptoms: <span>Shared s</span>" in section


def test_a_case_of_four_terms_is_like_those_sharing_its_next_two_not_one(client, tmp_path):
    """Z-0's four terms: two of its own, a root cause W-* share, and the domain everyone has.
    With two terms after its rarest, "two of the next three" is those two together."""
    from django.db import connection

    store(
        tmp_path,
        plain_case("Z-0", symptoms=["only-z1"], components=["only-zc"], root_cause="shared-r"),
        *[
            plain_case(f"W-{n}", symptoms=["s"], components=["c"], root_cause="shared-r")
            for n in range(1, 7)
        ],
        *[
            plain_case(f"N-{n}", symptoms=["s"], components=["c"], root_cause="x")
            for n in range(10)
        ],
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE cases_case")
    ids, _section = shown_similar(client.get("/cases/Z-0").content.decode())
    assert ids == ["W-1", "W-2", "W-3", "W-4", "W-5"]


# Kept by the worker (cases/discover/kept.py) ---------------------------------------------------


def test_the_worker_keeps_each_cases_similar_cases_and_the_page_reads_them(
    client, library, tmp_path, django_assert_max_num_queries
):
    from cases.discover import kept
    from cases.models import SimilarCases

    made_by_page, section = shown_similar(client.get("/cases/S-0").content.decode())
    assert kept.refresh() == Case.objects.count()
    assert set(SimilarCases.objects.values_list("case_id", flat=True)) == set(
        Case.objects.values_list("id", flat=True)
    )
    row = SimilarCases.objects.get(case_id="S-0")
    assert row.similar_ids == ["S-1", "S-2", "S-7", "S-3", "S-4"] == made_by_page
    # A new case, as alike as can be: the page shows the kept list until the worker runs,
    # and says when it was made; the titles are read at each request.
    common = {"domain": ["web"], "components": ["database"], "root_cause": "config"}
    store(tmp_path, plain_case("S-9", symptoms=["rare-a", "rare-b", "common"], **common),
          name="more.json")  # fmt: skip
    Case.objects.filter(id="S-4").update(title_en="Fourth, renamed")
    ids, section = shown_similar(client.get("/cases/S-0").content.decode())
    assert ids == row.similar_ids
    assert "Fourth, renamed" in section
    assert f"Found as the library was at {row.made_at:%Y-%m-%d %H:%M}" in section
    assert "looked for again within minutes of a change to this case" in section
    # The worker makes the new case's list, and those of the cases in it: S-9 is now the
    # most like S-0.
    kept.refresh()
    ids, _ = shown_similar(client.get("/cases/S-0").content.decode())
    assert ids == ["S-9", "S-1", "S-2", "S-7", "S-3"]
    for url in ["/cases/S-0", "/cases/S-1?lang=ko", "/cases/X-1"]:
        with django_assert_max_num_queries(10):
            assert client.get(url).status_code == 200


def test_a_kept_list_shows_neither_hidden_drafts_nor_deleted_cases(client, library, settings):
    from cases.discover import kept

    kept.refresh()
    settings.INCIDENTLIB_HIDE_DRAFTS = True
    Case.objects.filter(id="S-0").update(reviewed_at="2026-01-01T00:00:00Z", reviewed_by="r")
    Case.objects.filter(id="S-2").update(reviewed_at="2026-01-01T00:00:00Z", reviewed_by="r")
    ids, _ = shown_similar(client.get("/cases/S-0").content.decode())
    assert ids == ["S-2"]
    settings.INCIDENTLIB_HIDE_DRAFTS = False
    Case.objects.filter(id="S-1").delete()
    ids, _ = shown_similar(client.get("/cases/S-0").content.decode())
    assert ids == ["S-2", "S-7", "S-3", "S-4"]


def test_the_lists_naming_a_deleted_case_are_made_again_at_the_workers_next_run(client, library):
    """A case deleted is left out of the kept lists at once (the page reads the cases as they
    are); the worker's next run makes again the lists that named it, as it does those that
    name a case written, so that a page shows its five again within minutes, not a day."""
    from cases.discover import kept
    from cases.models import SimilarCases

    kept.refresh()
    assert "S-1" in SimilarCases.objects.get(case_id="S-0").similar_ids
    Case.objects.filter(id="S-1").delete()
    kept.refresh()
    assert "S-1" not in SimilarCases.objects.get(case_id="S-0").similar_ids
    ids, _ = shown_similar(client.get("/cases/S-0").content.decode())
    assert ids == SimilarCases.objects.get(case_id="S-0").similar_ids
