"""import_cases: what it accepts, what it refuses (naming the place); a refusal writes nothing."""

import json
import os
import subprocess
import sys
import unicodedata

import pytest
from django.core.management import CommandError, call_command

from cases.models import Case, Source, Term

from .conftest import (
    ROOT,
    exported,
    import_cases,
    library_state,
    make_case,
    seed_case,
    url_of_test_database,
    write_json,
)

pytestmark = pytest.mark.django_db


def refused(*paths, **options):
    """Run the import expecting a refusal; return its error lines (stderr) and the final error."""
    from io import StringIO

    stderr = StringIO()
    with pytest.raises(CommandError) as error:
        call_command("import_cases", *map(str, paths), stderr=stderr, verbosity=0, **options)
    return stderr.getvalue(), str(error.value)


def test_import_one_case_file_stores_the_case(tmp_path):
    import_cases(write_json(tmp_path / "c.json", seed_case()))
    assert exported("IL-0137")["title"] == seed_case()["title"]


def test_import_reads_arrays_json_lines_and_directories_recursively(tmp_path):
    (tmp_path / "deep" / "er").mkdir(parents=True)
    write_json(tmp_path / "array.json", [make_case("A-1"), make_case("A-2")])
    (tmp_path / "deep" / "lines.jsonl").write_text(
        "\n".join(json.dumps(make_case(f"L-{n}")) for n in (1, 2)) + "\n", encoding="utf-8"
    )
    write_json(tmp_path / "deep" / "er" / "one.json", make_case("O-1"))
    (tmp_path / "notes.txt").write_text("not a case")
    import_cases(tmp_path)
    assert sorted(Case.objects.values_list("id", flat=True)) == ["A-1", "A-2", "L-1", "L-2", "O-1"]


def test_summary_counts_created_updated_and_unchanged(tmp_path, capsys):
    write_json(tmp_path / "a.json", [make_case("A-1"), make_case("A-2")])
    call_command("import_cases", str(tmp_path))
    assert "2 created, 0 updated, 0 unchanged; terms created: 7." in capsys.readouterr().out
    changed = make_case("A-2", org="Lablup Inc", date="2026-06-16")
    write_json(tmp_path / "a.json", [make_case("A-1"), changed])
    call_command("import_cases", str(tmp_path))
    assert "0 created, 1 updated, 1 unchanged; terms created: 0." in capsys.readouterr().out


@pytest.mark.parametrize("dry_run", [False, True], ids=["import", "dry-run"])
def test_verbosity_2_lists_the_fields_each_updated_case_changes(tmp_path, capsys, dry_run):
    import_cases(write_json(tmp_path / "a.json", [make_case("A-1"), make_case("A-2")]))
    changed = make_case("A-2", date="2026-06-16", updated_at="2026-12-01T00:00:00Z")
    changed["lessons"]["ko"] = "고쳐 쓴 교훈."
    changed["sources"][0]["license"] = "CC-BY-4.0"
    changed["impact"]["users"] = "all"
    write_json(tmp_path / "a.json", [make_case("A-1"), changed])
    call_command("import_cases", str(tmp_path / "a.json"), verbosity=2, dry_run=dry_run)
    out = capsys.readouterr().out
    assert "A-1: unchanged\n" in out
    assert "A-2: updated: date, impact.users, lessons.ko, sources, updated_at\n" in out


@pytest.mark.parametrize("whole", [False, True], ids=["array", "one-case-file"])
def test_a_problem_in_a_pretty_printed_file_names_its_fields_own_line(tmp_path, whole):
    """Not the case's first line: in a file written by json.dumps(indent=2), a case spans
    some 90 lines. The rules of one case and those spanning cases alike."""
    bad = make_case("A-2", related=["IL-9999"], updated_at="2026-01-01T00:00:00+16:00")
    bad["sources"][0]["url"] = "javascript:alert(1)"
    bad["title"]["en"] = "\u200b"
    path = write_json(tmp_path / "cases.json", bad if whole else [make_case("A-1"), bad])
    lines = path.read_text().splitlines()

    def line_of(text, after=0):
        return next(n for n, line in enumerate(lines, 1) if n > after and text in line)

    start = line_of('"id": "A-2"') - 1
    err, _final = refused(path)
    for field, text in (
        ("sources[0].url", '"url": "javascript:alert(1)"'),
        ("updated_at", '"updated_at":'),
        ("related[0]", '"IL-9999"'),
        ("title.en", '"en": "\u200b"'),
    ):
        assert f"{path}:{line_of(text, start)}: A-2: {field}: " in err, (field, err)


def test_reimport_replaces_sources_and_lists_in_place(tmp_path):
    case = make_case("A-1")
    case["sources"] = [
        {"url": f"https://example.com/{n}", "kind": "blog", "license": None, "archived": None}
        for n in range(3)
    ]
    import_cases(write_json(tmp_path / "a.json", case))
    assert Source.objects.filter(case_id="A-1").count() == 3
    case["sources"] = case["sources"][2:]
    case["remediation"] = case["remediation"][:1]
    case["contributing"] = ["monitoring-blind-spot"]
    import_cases(write_json(tmp_path / "a.json", case))
    assert Case.objects.count() == 1
    assert Source.objects.count() == 1
    assert exported("A-1")["sources"] == case["sources"]
    assert exported("A-1")["remediation"] == case["remediation"]
    assert exported("A-1")["contributing"] == ["monitoring-blind-spot"]


def test_reimport_under_another_organisation_leaves_no_empty_organisation(tmp_path):
    from cases.models import Organisation

    import_cases(write_json(tmp_path / "a.json", make_case("A-1")))
    import_cases(write_json(tmp_path / "a.json", make_case("A-1", org="Lablup", org_slug="lablup")))
    assert list(Organisation.objects.values_list("slug", "name")) == [("lablup", "Lablup")]


def test_lists_keep_their_order(tmp_path):
    case = make_case("A-1", contributing=["staging-not-representative", "monitoring-blind-spot"])
    import_cases(write_json(tmp_path / "a.json", case))
    case["contributing"].reverse()
    case["remediation"].reverse()
    import_cases(write_json(tmp_path / "a.json", case))
    assert exported("A-1")["contributing"] == [
        "monitoring-blind-spot",
        "staging-not-representative",
    ]
    assert exported("A-1")["remediation"] == case["remediation"]


def test_references_may_point_to_cases_in_the_same_run_or_already_stored(tmp_path):
    import_cases(write_json(tmp_path / "first.json", make_case("A-1")))
    write_json(
        tmp_path / "first.json",
        [make_case("B-1", related=["A-1", "B-2"], recurrence_of="B-2"), make_case("B-2")],
    )
    import_cases(tmp_path / "first.json")
    assert exported("B-1")["related"] == ["A-1", "B-2"]
    assert exported("B-1")["recurrence_of"] == "B-2"


def test_new_taxonomy_slugs_become_terms_with_a_warning(tmp_path):
    from io import StringIO

    stderr = StringIO()
    case = make_case("A-1", components=["shared-filesystem", "object-storage"])
    call_command("import_cases", str(write_json(tmp_path / "a.json", case)), stderr=stderr)
    assert "components:object-storage (A-1)" in stderr.getvalue()
    assert Term.objects.get(facet="components", slug="object-storage").label_en == "Object storage"


def test_strict_taxonomy_refuses_unknown_slugs(tmp_path):
    import_cases(write_json(tmp_path / "seed.json", seed_case()))
    before = library_state()
    case = make_case("A-1", components=["object-storage"])
    path = write_json(tmp_path / "a.json", case)
    errors, final = refused(path, strict_taxonomy=True)
    line = path.read_text().splitlines().index('  "components": [') + 1  # the field's own
    assert (
        f"a.json:{line}: A-1: components: 'object-storage' is not a term of the components "
        "facet" in errors
    )
    assert library_state() == before


def test_dry_run_reports_without_writing(tmp_path, capsys):
    call_command("import_cases", str(write_json(tmp_path / "a.json", seed_case())), dry_run=True)
    out = capsys.readouterr().out
    assert "Dry run, nothing written. Cases: 1 created, 0 updated, 0 unchanged" in out
    assert "; terms that would be created: 7." in out
    assert Case.objects.count() == 0 and Term.objects.count() == 0


def test_counts_of_one_are_singular(tmp_path, capsys):
    """ "1 taxonomy terms created", "Exported 1 cases" read wrong."""
    from io import StringIO

    from cases.exchange.checks_across_cases import term_slugs

    case = make_case("A-1", domain=["cloud"], symptoms=["data-loss"], components=["bgp"],
                     contributing=[], severity="high", root_cause="brand-new-cause")  # fmt: skip
    case["remediation"] = []
    call_command("load_taxonomy", "fixtures/taxonomy.json", stdout=StringIO())
    known = set(Term.objects.values_list("facet", "slug"))
    assert len({(f, s) for f, s in term_slugs(case)} - known) == 1, "one new term"
    stderr = StringIO()
    call_command("import_cases", str(write_json(tmp_path / "a.json", case)), stderr=stderr)
    assert stderr.getvalue().startswith("Warning: 1 taxonomy term created with labels")
    call_command("export_cases", output=str(tmp_path / "out.json"), stderr=(said := StringIO()))
    assert f"Exported 1 case to {tmp_path / 'out.json'}." in said.getvalue()


# Bad input: every case names its place and leaves the library as it was.


@pytest.fixture
def library(tmp_path):
    import_cases(write_json(tmp_path / "seed.json", seed_case()))
    return library_state()


def test_malformed_json_names_file_line_column_and_case(tmp_path, library):
    bad = tmp_path / "bad.json"
    bad.write_text('[\n  {"id": "A-1",\n   "org": }\n]\n', encoding="utf-8")
    errors, final = refused(bad)
    assert f"{bad}:3:11: A-1: malformed JSON: Expecting value" in errors
    assert "nothing was imported" in final
    assert library_state() == library


def test_a_file_cut_short_is_said_to_be(tmp_path, library):
    whole = json.dumps(make_case("A-1"))
    cut_in_a_string = tmp_path / "a.jsonl"
    cut_in_a_string.write_text(whole[: whole.index('"org": "') + 10], encoding="utf-8")
    cut_after_a_value = tmp_path / "b.json"
    cut_after_a_value.write_text('[{"id": "B-1", "org": "x"', encoding="utf-8")
    errors, _final = refused(cut_in_a_string, cut_after_a_value)
    assert (
        "A-1: malformed JSON: a string begins here and is never closed before its line ends"
    ) in errors  # JSON Lines: the next lines are read on, the file is not said to be cut
    assert (
        f"{cut_after_a_value}:1:26: B-1: malformed JSON: Expecting ',' delimiter, but the file "
        "ends here (is the file cut short?)"
    ) in errors
    assert library_state() == library


@pytest.mark.parametrize(
    ("text", "named"),
    [
        # JSON Lines: the case of the broken line.
        ('{"id": "A-2", "org": "Acme", "title": {"en": "x",}}\n', "A-2"),
        # Its own id, not a nested object's (docs may hold anything), whichever comes first.
        ('{"docs": {"id": "NOT-1"}, "id": "A-3", "org": }\n', "A-3"),
        ('{"docs": {"id": "NOT-1"}, "org": }\n', None),
        # Broken before the id is whole: no id to name.
        ('{"id": "A-4\n', None),
        # After a whole case: the case is not what is broken.
        ('[{"id": "A-5"} {"id": "A-6"}]\n', None),
        ('[{"id": "A-5"}, {"id": "A-6" "org": 1}]\n', "A-6"),
    ],
)
def test_malformed_json_names_the_case_it_is_in_when_its_id_came_first(
    tmp_path, library, text, named
):
    bad = tmp_path / ("bad.json" if text.startswith("[") else "bad.jsonl")
    bad.write_text(text, encoding="utf-8")
    errors, _final = refused(bad)
    problem = next(line for line in errors.splitlines() if "malformed JSON" in line)
    place, rest = problem.split(": ", 1)
    assert place.startswith(str(bad))
    if named:
        assert rest.startswith(f"{named}: malformed JSON"), problem
    else:
        assert rest.startswith("malformed JSON"), problem
    assert library_state() == library


def test_malformed_json_lines_names_the_line(tmp_path, library):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(make_case("A-1")) + "\n{oops\n", encoding="utf-8")
    errors, _ = refused(bad)
    assert f"{bad}:2:2: malformed JSON" in errors
    assert library_state() == library


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda c: c.pop("summary"), "A-1: summary: is missing (a required field)"),
        (lambda c: c.update(date=20260615), "A-1: date: must be string, not a number"),
        (
            lambda c: c.update(severity_level="high"),
            "A-1: severity_level: is not a field of the exchange format",
        ),
        (
            lambda c: c.update(date="2026-02-30"),
            "A-1: date: '2026-02-30' is not a valid date (YYYY-MM-DD)",
        ),
        (
            lambda c: c["sources"][0].update(url="javascript:alert(1)"),
            "A-1: sources[0].url: 'javascript:alert(1)' is not an http:// or https:// address",
        ),
        (
            lambda c: c["sources"][0].update(archived="ftp://example.com/x"),
            "A-1: sources[0].archived: 'ftp://example.com/x' is not an http:// or https:// address",
        ),
        (lambda c: c.update(org="x" * 201), "A-1: org: is too long: 201 characters, at most 200"),
        (
            lambda c: c["title"].update(en="x" * 100_001),
            "A-1: title.en: is too long: 100001 characters, at most 100000",
        ),
        (lambda c: c["title"].update(en=""), "A-1: title.en: must not be empty or only spaces"),
        (lambda c: c["title"].update(en=" \n\t "), "A-1: title.en: must not be empty or only"),
        (lambda c: c["summary"].update(en="\u3000"), "A-1: summary.en: must not be empty or"),
        (lambda c: c.update(org="   "), "A-1: org: must not be empty or only spaces"),
        (
            lambda c: c["remediation"][0].update(text={"en": " ", "ko": None}),
            "A-1: remediation[0].text.en: must not be empty or only spaces",
        ),
        (
            lambda c: c.update(recurrence_of="A-1"),
            "A-1: recurrence_of: A case cannot be a recurrence of itself.",
        ),
        (
            lambda c: c.update(related=["ZZ-9"]),
            "A-1: related[0]: ZZ-9 is neither in this run nor in the library",
        ),
        (
            lambda c: c.update(recurrence_of="ZZ-9"),
            "A-1: recurrence_of: ZZ-9 is neither in this run nor in the library",
        ),
        (
            lambda c: c["review"].update(reviewed_at="yesterday"),
            "A-1: review.reviewed_at: 'yesterday' is not a valid date-time",
        ),
        (
            lambda c: c["timeline"].update(detected_after="45 minutes"),
            "A-1: timeline.detected_after: '45 minutes' is not an ISO 8601 duration",
        ),
        (lambda c: c.update(severity="Very Bad"), "A-1: severity: 'Very Bad' is not a slug"),
        # One message a field, the narrower of the two types the schema checks it for.
        (lambda c: c["title"].update(en=5), "A-1: title.en: must be string, not a number"),
        # A value that may be null says so.
        (
            lambda c: c["sources"][0].update(archived=5),
            "A-1: sources[0].archived: must be string or null, not a number",
        ),
    ],
    ids=[
        "missing-field",
        "wrong-type",
        "unknown-field",
        "bad-date",
        "javascript-url",
        "bad-archived-url",
        "over-long-org",
        "over-long-text",
        "empty-title",
        "blank-title",
        "blank-summary",
        "blank-org",
        "blank-step",
        "self-recurrence",
        "dangling-related",
        "dangling-recurrence",
        "bad-timestamp",
        "bad-duration",
        "bad-slug",
        "english-title-not-a-string",
        "nullable-not-a-string",
    ],
)
def test_bad_case_is_refused_naming_its_place(tmp_path, library, change, expected):
    case = make_case("A-1")
    change(case)
    path = tmp_path / "a.json"  # on one line: each problem on the case's line
    path.write_text(json.dumps(case, ensure_ascii=False), encoding="utf-8")
    errors, final = refused(path)
    assert f"{path}:1: {expected}" in errors
    assert "1 problem found; nothing was imported." in final
    assert library_state() == library


def test_duplicate_id_in_one_run_names_both_places(tmp_path, library):
    write_json(tmp_path / "one.json", make_case("A-1"))
    write_json(tmp_path / "two.json", [make_case("A-2"), make_case("A-1")])
    errors, _ = refused(tmp_path)
    assert f"{tmp_path / 'two.json'}:" in errors
    assert (
        f"A-1: id: the id is defined twice in this run (first at {tmp_path / 'one.json'}:1)"
        in errors
    )
    assert library_state() == library


def test_array_elements_are_named_by_their_line(tmp_path, library):
    path = write_json(tmp_path / "a.json", [make_case("A-1"), make_case("A-2", docs="x")])
    errors, _ = refused(path)
    element_lines = [n for n, text in enumerate(path.read_text().splitlines(), 1) if text == "  {"]
    line = element_lines[1]  # where the second element of the array starts
    assert line > 2
    docs = path.read_text().splitlines().index('    "docs": "x",', line) + 1  # its field's
    assert f"{path}:{docs}: A-2: docs: must be array, not a string" in errors
    assert library_state() == library


def test_every_error_of_the_run_is_reported_and_nothing_is_written(tmp_path, library):
    good = make_case("A-0")
    bad_url = make_case("A-1")
    bad_url["sources"][0]["url"] = "javascript:alert(1)"
    missing = make_case("A-2")
    del missing["lessons"]
    write_json(tmp_path / "run.json", [good, bad_url, missing])
    errors, final = refused(tmp_path / "run.json")
    assert "A-1: sources[0].url" in errors
    assert "A-2: lessons: is missing" in errors
    assert "2 problems found" in final
    assert library_state() == library
    assert not Case.objects.filter(id="A-0").exists()


def test_recurrence_cycles_are_refused(tmp_path, library):
    write_json(
        tmp_path / "run.json",
        [make_case("A-1", recurrence_of="A-2"), make_case("A-2", recurrence_of="A-1")],
    )
    errors, _ = refused(tmp_path / "run.json")
    assert "A-1: recurrence_of: The recurrence chain would loop back to this case." in errors
    assert library_state() == library


def test_one_org_slug_with_two_names_is_refused(tmp_path, library):
    write_json(tmp_path / "run.json", [make_case("A-1"), make_case("A-2", org="Lablup")])
    errors, _ = refused(tmp_path / "run.json")
    assert (
        "A-2: org: 'Lablup' differs from 'Lablup Inc', the name given for org_slug 'lablup-inc'"
        in errors
    )


def test_two_names_that_look_the_same_are_written_out(tmp_path, library):
    """카카오 composed and decomposed (as macOS may write it) look alike on any screen."""
    composed, decomposed = "카카오", unicodedata.normalize("NFD", "카카오")
    cases = [
        make_case("A-1", org=composed, org_slug="kakao"),
        make_case("A-2", org=decomposed, org_slug="kakao"),
    ]
    errors, _ = refused(write_json(tmp_path / "run.json", cases))
    assert (
        f"A-2: org: {ascii(decomposed)} differs from '\\uce74\\uce74\\uc624' only in how its "
        "letters are encoded (composed or decomposed Unicode), the name given for org_slug 'kakao'"
    ) in errors
    assert library_state() == library


def test_a_missing_path_is_named(tmp_path, library):
    errors, _ = refused(tmp_path / "nowhere.json")
    assert f"{tmp_path / 'nowhere.json'}: no such file or directory" in errors


@pytest.mark.django_db(transaction=True)
def test_the_command_exits_non_zero_and_writes_nothing_when_refusing(tmp_path):
    """As a curator runs it: a real process, its exit code and its stderr."""
    case = make_case("A-1")
    case["sources"][0]["url"] = "javascript:alert(1)"
    path = write_json(tmp_path / "a.json", [make_case("A-0"), case])
    env = dict(os.environ, DATABASE_URL=url_of_test_database())
    process = subprocess.run(
        [sys.executable, "manage.py", "import_cases", str(path)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert process.returncode == 1, process.stderr
    assert f"{path}:" in process.stderr and "A-1: sources[0].url" in process.stderr
    assert Case.objects.count() == 0
    ok = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "import_cases",
            str(write_json(tmp_path / "a.json", make_case("A-0"))),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ok.returncode == 0, ok.stderr
    assert "1 created" in ok.stdout
    assert Case.objects.filter(id="A-0").exists()


def test_a_reference_to_a_case_that_may_be_in_an_unread_part_says_so(tmp_path, library):
    """An array's reading stops at its first malformed place: a case after it is not
    missing, only unread."""
    folder = tmp_path / "run"
    folder.mkdir()
    cases = [json.dumps(make_case(case_id)) for case_id in ("U-1", "U-2")]
    broken = cases[0].replace('"org":', '"org": ,', 1)  # a stray comma
    (folder / "a.json").write_text(f"[\n{broken},\n{cases[1]}\n]\n", encoding="utf-8")
    write_json(folder / "b.json", make_case("B-1", related=["U-2"]))
    errors, _final = refused(folder)
    assert "U-1: malformed JSON: Expecting value" in errors
    assert (
        f"B-1: related[0]: U-2 is neither in this run nor in the library; it may be in "
        f"{folder / 'a.json'} after line 2, which could not be read"
    ) in errors
    assert library_state() == library
