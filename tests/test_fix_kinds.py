"""Fixes as data (issue 10): each remediation step may have a kind of fix, a term of the
`fix` facet, which the exchange format carries, the list and the API filter and count by,
the term pages list, the case page shows and the admin edits."""

import json
import re
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from cases.models import Case, RemediationStep, Term

from .conftest import (
    change_url,
    exported,
    import_cases,
    library_state,
    logged_in,
    make_case,
    open_case,
    write_json,
)
from .library import facet_counts, listed_ids, plain_case, store

pytestmark = pytest.mark.django_db


def step(text, kind=None, ko=None):
    item = {"text": {"en": text, "ko": ko}}
    if kind is not None:
        item["kind"] = kind
    return item


def exported_all():
    out = StringIO()
    call_command("export_cases", stdout=out)
    return {value["id"]: value for value in json.loads(out.getvalue())}


def fix_terms():
    """The kinds these tests use, with labels in both languages (as load_taxonomy gives)."""
    for slug, en, ko in (
        ("roll-back", "Roll back", "롤백"),
        ("add-capacity", "Add capacity", "용량 증설"),
        ("rate-limit", "Rate-limit", "요청 속도 제한"),
    ):
        Term.objects.create(facet="fix", slug=slug, label_en=en, label_ko=ko, needs_label=False)


def term_ids(case_id):
    return set(Case.objects.get(id=case_id).term_ids)


def kind_id(slug):
    return Term.objects.get(facet="fix", slug=slug).id


# The exchange format ------------------------------------------------------------------------


def test_a_steps_kind_is_imported_and_exported(tmp_path):
    fix_terms()
    case = make_case(
        "K-1",
        remediation=[
            step("Rolled back the release", "roll-back", ko="릴리스를 되돌렸다"),
            step("Added two nodes", "add-capacity"),
        ],
    )
    import_cases(write_json(tmp_path / "k.json", case))
    steps = list(RemediationStep.objects.filter(case_id="K-1").select_related("kind"))
    assert [s.kind.slug for s in steps] == ["roll-back", "add-capacity"]
    assert exported("K-1")["remediation"] == case["remediation"]
    assert exported_all()["K-1"] == case


def test_a_file_without_kinds_round_trips_exactly_and_exports_no_kind(tmp_path):
    case = make_case("K-1", remediation=[step("Restarted it"), step("Waited")])
    import_cases(write_json(tmp_path / "k.json", case))
    assert RemediationStep.objects.filter(kind__isnull=False).count() == 0
    assert exported_all()["K-1"] == case
    assert all(item.keys() == {"text"} for item in exported("K-1")["remediation"])


def test_steps_with_and_without_a_kind_round_trip_exactly(tmp_path):
    fix_terms()
    case = make_case(
        "K-1",
        remediation=[step("Looked around"), step("Rolled back", "roll-back"), step("Waited")],
    )
    path = write_json(tmp_path / "k.json", case)
    import_cases(path)
    assert exported_all()["K-1"] == case
    # Imported again as exported: nothing changes.
    before = library_state()
    out = StringIO()
    call_command("import_cases", str(path), stdout=out)
    assert "0 created, 0 updated, 1 unchanged" in out.getvalue()
    assert library_state() == before


def test_changing_only_a_kind_updates_the_case(tmp_path):
    fix_terms()
    case = make_case("K-1", remediation=[step("Rolled back", "roll-back")])
    import_cases(write_json(tmp_path / "k.json", case))
    case["remediation"][0]["kind"] = "add-capacity"
    out = StringIO()
    call_command("import_cases", str(write_json(tmp_path / "k.json", case)), stdout=out)
    assert "0 created, 1 updated" in out.getvalue()
    assert exported("K-1")["remediation"] == case["remediation"]
    del case["remediation"][0]["kind"]
    import_cases(write_json(tmp_path / "k.json", case))
    assert exported("K-1")["remediation"] == [step("Rolled back")]
    assert kind_id("add-capacity") not in term_ids("K-1")


def test_an_unknown_kind_becomes_a_term_with_a_warning(tmp_path):
    stderr = StringIO()
    steps = [step("Drained the queue", "drain-queue"), step("Drained it again", "drain-queue")]
    case = make_case("K-1", remediation=steps)
    call_command("import_cases", str(write_json(tmp_path / "k.json", case)), stderr=stderr)
    assert "fix:drain-queue (K-1)" in stderr.getvalue()  # the case once, for its two steps
    term = Term.objects.get(facet="fix", slug="drain-queue")
    assert (term.label_en, term.needs_label) == ("Drain queue", True)
    assert exported("K-1")["remediation"] == case["remediation"]


def test_an_unknown_kind_is_refused_under_strict_taxonomy(tmp_path):
    fix_terms()
    before = library_state()
    case = make_case(
        "K-1",
        remediation=[
            step("Rolled back", "roll-back"),
            step("Drained", "drain-queue"),
            step("Drained again", "drain-queue"),
        ],
    )
    stderr = StringIO()
    path = write_json(tmp_path / "k.json", case)
    with pytest.raises(CommandError):
        call_command("import_cases", str(path), strict_taxonomy=True, stderr=stderr, verbosity=0)
    line = path.read_text().splitlines().index('  "remediation": [') + 1  # the field's own
    assert (
        stderr.getvalue().count(
            f"k.json:{line}: K-1: remediation: 'drain-queue' is not a term of the fix facet "
            "(--strict-taxonomy)"
        )
        == 1  # once, for its two steps
    )
    assert not Term.objects.filter(slug="drain-queue").exists()
    assert library_state() == before


@pytest.mark.parametrize("kind", ["Roll back", "", 3, None])
def test_a_kind_that_is_not_a_slug_is_refused_naming_the_step(tmp_path, kind):
    case = make_case("K-1", remediation=[step("Fine"), {"text": {"en": "Bad"}, "kind": kind}])
    stderr = StringIO()
    with pytest.raises(CommandError):
        call_command(
            "import_cases", str(write_json(tmp_path / "k.json", case)), stderr=stderr, verbosity=0
        )
    assert "K-1: remediation[1].kind:" in stderr.getvalue()
    assert not Case.objects.exists()


# The database: a step's kind is one of the case's terms ---------------------------------------


def test_the_kinds_of_the_steps_are_among_the_cases_term_ids_and_follow_every_write(tmp_path):
    fix_terms()
    store(tmp_path, plain_case("K-1", remediation=[step("Rolled back", "roll-back")]))
    roll_back, add_capacity, rate_limit = map(kind_id, ("roll-back", "add-capacity", "rate-limit"))
    assert roll_back in term_ids("K-1")
    # Outside an import (the admin, plain SQL): insert, update and delete derive them again.
    RemediationStep.objects.create(case_id="K-1", position=1, text_en="More", kind_id=rate_limit)
    assert {roll_back, rate_limit} <= term_ids("K-1")
    RemediationStep.objects.filter(case_id="K-1", position=0).update(kind_id=add_capacity)
    assert add_capacity in term_ids("K-1") and roll_back not in term_ids("K-1")
    RemediationStep.objects.filter(case_id="K-1", position=1).delete()
    assert rate_limit not in term_ids("K-1")
    RemediationStep.objects.filter(case_id="K-1").update(kind=None)
    assert not {roll_back, add_capacity, rate_limit} & term_ids("K-1")
    with connection.cursor() as cursor:
        cursor.execute("SELECT term_ids = cases_case_term_ids(c) FROM cases_case c")
        assert cursor.fetchall() == [(True,)]


def test_a_kind_in_use_cannot_be_deleted(tmp_path):
    from django.db.models import ProtectedError

    fix_terms()
    store(tmp_path, plain_case("K-1", remediation=[step("Rolled back", "roll-back")]))
    with pytest.raises(ProtectedError):
        Term.objects.get(facet="fix", slug="roll-back").delete()


# The list, the API and the term pages ---------------------------------------------------------


@pytest.fixture
def fixes(tmp_path):
    """K-1 rolled back twice; K-2 rolled back and added capacity; K-3 added capacity;
    K-4 has a step without a kind; K-5 no steps."""
    fix_terms()
    store(
        tmp_path,
        plain_case(
            "K-1",
            date="2021-01-01",
            remediation=[step("Rolled back", "roll-back"), step("Again", "roll-back")],
        ),
        plain_case(
            "K-2",
            date="2022-01-01",
            severity="high",
            remediation=[step("Rolled back", "roll-back"), step("Grew", "add-capacity")],
        ),
        plain_case("K-3", date="2023-01-01", remediation=[step("Grew", "add-capacity")]),
        plain_case("K-4", date="2024-01-01", remediation=[step("Waited")]),
        plain_case("K-5", date="2025-01-01"),
    )


def fix_counts(html):
    return {key: n for key, n in facet_counts(html).items() if key.startswith("fix=")}


def test_the_case_list_filters_by_kind_of_fix(client, fixes):
    assert listed_ids(client.get("/cases/?fix=roll-back").content.decode()) == ["K-2", "K-1"]
    html = client.get("/cases/?fix=roll-back&fix=add-capacity").content.decode()
    assert listed_ids(html) == ["K-3", "K-2", "K-1"]
    html = client.get("/cases/?fix=add-capacity&severity=high").content.decode()
    assert listed_ids(html) == ["K-2"]
    assert client.get("/cases/?fix=no-such-kind").status_code == 400


def test_the_case_list_counts_each_kind_of_fix_once_a_case(client, fixes):
    assert fix_counts(client.get("/cases/").content.decode()) == {
        "fix=roll-back": 2,
        "fix=add-capacity": 2,
        "fix=rate-limit": 0,
    }
    # fix in use: roll-back chosen (2); adding add-capacity brings in K-3.
    html = client.get("/cases/?fix=roll-back").content.decode()
    assert fix_counts(html) == {"fix=roll-back": 2, "fix=add-capacity": 3, "fix=rate-limit": 2}
    html = client.get("/cases/?severity=high").content.decode()
    assert fix_counts(html) == {"fix=roll-back": 1, "fix=add-capacity": 1, "fix=rate-limit": 0}


def test_the_sidebar_names_the_facet_and_its_kinds_in_both_languages(client, fixes):
    english = client.get("/cases/?lang=en").content.decode()
    assert "Kind of fix" in english and "Roll back" in english
    korean = client.get("/cases/?lang=ko").content.decode()
    assert "조치 유형" in korean and "롤백" in korean and "용량 증설" in korean


def test_the_api_filters_and_counts_by_kind_of_fix(client, fixes):
    body = client.get("/api/cases/?fix=roll-back").json()
    assert body["total"] == 2
    assert sorted(case["id"] for case in body["results"]) == ["K-1", "K-2"]
    assert [item.get("kind") for item in body["results"][0]["remediation"]] == [
        "roll-back",
        "add-capacity",
    ]
    taxonomy = client.get("/api/taxonomy/").json()
    fix = [facet for facet in taxonomy["facets"] if facet["facet"] == "fix"][0]
    assert fix["label"] == {"en": "Kind of fix", "ko": "조치 유형"}
    counts = {term["slug"]: term["cases"] for term in fix["terms"]}
    assert counts == {"roll-back": 2, "add-capacity": 2, "rate-limit": 0}
    roll_back = [term for term in fix["terms"] if term["slug"] == "roll-back"][0]
    assert roll_back["cases_url"] == "http://testserver/api/cases/?fix=roll-back"
    assert client.get(roll_back["cases_url"]).json()["total"] == 2


def test_a_kind_of_fix_has_a_term_page_listing_its_cases(client, fixes):
    response = client.get("/taxonomy/fix/add-capacity/")
    assert response.status_code == 200
    html = response.content.decode()
    assert listed_ids(html) == ["K-3", "K-2"]
    assert "Add capacity" in html
    assert "용량 증설" in client.get("/taxonomy/fix/add-capacity/?lang=ko").content.decode()
    assert client.get("/taxonomy/fix/no-such-kind/").status_code == 404
    taxonomy = client.get("/taxonomy/").content.decode()
    assert "/taxonomy/fix/roll-back/" in taxonomy


# The case page and the admin --------------------------------------------------------------------


def remediation_section(html):
    return re.search(r'<section id="remediation">(.*?)</section>', html, re.S).group(1)


def test_the_case_page_shows_each_steps_kind_in_both_languages(client, fixes):
    section = remediation_section(client.get("/cases/K-2?lang=en").content.decode())
    items = re.findall(r"<li>(.*?)</li>", section, re.S)
    assert len(items) == 2
    assert 'href="/cases/?fix=roll-back"' in items[0] and ">Roll back</a>" in items[0]
    assert 'href="/cases/?fix=add-capacity"' in items[1] and ">Add capacity</a>" in items[1]
    assert "Kind of fix" in items[0]  # for screen readers
    korean = remediation_section(client.get("/cases/K-2?lang=ko").content.decode())
    assert ">롤백</a>" in korean and ">용량 증설</a>" in korean and "조치 유형" in korean
    # A step without a kind shows its text alone.
    section = remediation_section(client.get("/cases/K-4").content.decode())
    assert "fix-kind" not in section and "Waited" in section


def test_the_admin_remediation_inline_saves_the_kind(client, fixes, reviewer):
    logged_in(client, reviewer)
    html = client.get(change_url("K-4")).content.decode()
    select = re.search(r'<select name="remediation_steps-0-kind".*?</select>', html, re.S).group(0)
    # Only the fix facet's terms are offered.
    offered = re.findall(r'<option value="(\d+)"', select)
    assert sorted(map(int, offered)) == sorted(
        Term.objects.filter(facet="fix").values_list("id", flat=True)
    )
    data = open_case(client, "K-4")
    data["remediation_steps-0-kind"] = str(kind_id("rate-limit"))
    assert client.post(change_url("K-4"), data).status_code == 302
    [saved] = exported("K-4")["remediation"]
    assert (saved["text"]["en"], saved["kind"]) == ("Waited", "rate-limit")
    assert kind_id("rate-limit") in term_ids("K-4")
    assert listed_ids(client.get("/cases/?fix=rate-limit").content.decode()) == ["K-4"]
    # And taken away again.
    data = open_case(client, "K-4")
    data["remediation_steps-0-kind"] = ""
    assert client.post(change_url("K-4"), data).status_code == 302
    [saved] = exported("K-4")["remediation"]
    assert "kind" not in saved and kind_id("rate-limit") not in term_ids("K-4")


def test_the_admin_refuses_a_term_of_another_facet_as_a_kind(client, fixes, reviewer):
    logged_in(client, reviewer)
    data = open_case(client, "K-4")
    data["remediation_steps-0-kind"] = str(Term.objects.get(facet="severity", slug="high").id)
    response = client.post(change_url("K-4"), data)
    assert response.status_code == 200
    assert exported("K-4")["remediation"] == [step("Waited")]


def test_the_admin_case_list_filters_by_kind_of_fix(client, fixes, reviewer):
    logged_in(client, reviewer)
    for url in ["/admin/cases/case/?fix=roll-back", "/admin/cases/case/?fix=roll-back&_facets=1"]:
        response = client.get(url)
        assert response.status_code == 200, url
        assert sorted(case.id for case in response.context["cl"].result_list) == ["K-1", "K-2"]
    html = client.get("/admin/cases/case/?_facets=1").content.decode()
    # The "kind of fix" filter offers each kind, with its count of cases.
    assert re.search(r'fix=add-capacity"[^>]*>\s*Add capacity \(2\)', html)
