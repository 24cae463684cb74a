"""Input that JSON allows but the library cannot keep is refused by name, never by a traceback."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from cases.models import Case, Organisation, Term

from .conftest import import_cases, library_state, make_case, seed_case, write_json

pytestmark = pytest.mark.django_db


@pytest.fixture
def library(tmp_path):
    import_cases(write_json(tmp_path / "seed.json", seed_case()))
    return library_state()


def refused(*paths, **options):
    stderr = StringIO()
    with pytest.raises(CommandError):
        call_command("import_cases", *map(str, paths), stderr=stderr, verbosity=0, **options)
    return stderr.getvalue()


def write_raw(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def test_a_number_beyond_a_double_is_said_to_be_so(tmp_path, library):
    text = json.dumps(make_case("A-1", docs=[{"measure": 0}])).replace(
        '"measure": 0', '"measure": 1e400'
    )
    path = write_raw(tmp_path / "a.json", text)
    assert (
        f"{path}:1: A-1: docs[0].measure: inf is not a finite number (NaN and Infinity are not "
        "JSON, and a number beyond a double's range such as 1e400 cannot be stored)"
    ) in refused(path)


def test_a_long_refused_value_is_quoted_by_its_start_and_length(tmp_path, library):
    case = make_case("A-1", date_kind="x" * 200_000)
    case["sources"][0]["url"] = "https://example.com/ " + "y" * 1_900
    err = refused(write_json(tmp_path / "a.json", case))
    assert f"date_kind: {'x' * 60!r}… (200,000 characters) is not one of: " in err
    assert "sources[0].url: 'https://example.com/ yyy" in err and "(1,921 characters)" in err
    assert max(map(len, err.splitlines())) < 400


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda c: c["summary"].update(en="a\x00b"), "A-1: summary.en: contains a NUL character"),
        (
            lambda c: c["docs"].append({"n": float("nan")}),
            "A-1: docs[0].n: nan is not a finite number",
        ),
        (lambda c: c["docs"].append(float("inf")), "A-1: docs[0]: inf is not a finite number"),
        (lambda c: c.update(severity="high\n"), "A-1: severity: 'high\\n' is not a slug"),
        (
            lambda c: c["sources"][0].update(url="https://example.com/\n"),
            "A-1: sources[0].url: 'https://example.com/\\n' is not an http:// or https:// address",
        ),
        (
            lambda c: c["timeline"].update(detected_after="PT" + "1" * 40 + "H"),
            "A-1: timeline.detected_after: is too long: at most 32 characters",
        ),
        (
            lambda c: c.update(updated_at="0001-01-01T00:30:00+01:00"),
            "A-1: updated_at: '0001-01-01T00:30:00+01:00' is not a valid date-time",
        ),
        (
            lambda c: c.update(updated_at="2026-11-09T11:55:50.123456789Z"),
            "A-1: updated_at: '2026-11-09T11:55:50.123456789Z' is not a valid date-time",
        ),
    ],
    ids=[
        "nul",
        "nan",
        "infinity",
        "newline-slug",
        "newline-url",
        "long-duration",
        "year-0",
        "nanoseconds",
    ],
)
def test_values_the_database_cannot_keep_are_refused_by_name(tmp_path, library, change, expected):
    case = make_case("A-1")
    change(case)
    # allow_nan: json.dumps writes NaN/Infinity as the non-standard tokens json.loads accepts.
    path = write_raw(tmp_path / "a.json", json.dumps(case, ensure_ascii=False))
    assert f"{path}:1: {expected}" in refused(path)
    assert library_state() == library


@pytest.mark.parametrize(
    "updated_at",
    ["2026-01-01T00:00:00+16:00", "2026-01-01T00:00:00-15:30", "2026-01-01T00:00:00+14:01"],
)
@pytest.mark.parametrize("dry_run", [False, True], ids=["import", "dry-run"])
def test_an_offset_beyond_fourteen_hours_is_refused_by_name(tmp_path, library, updated_at, dry_run):
    """PostgreSQL refuses offsets beyond ±15:59 (a traceback, in the dry run too); places use
    -12:00 to +14:00."""
    path = write_raw(
        tmp_path / "a.json", json.dumps(make_case("A-1", updated_at=updated_at), indent=None)
    )
    err = refused(path, dry_run=dry_run)
    assert (
        f"{path}:1: A-1: updated_at: {updated_at!r} is not a valid date-time (like "
        f"2026-11-09T11:55:50Z): its offset from UTC, {updated_at[-6:]}, is beyond ±14:00"
    ) in err
    assert "Traceback" not in err
    assert library_state() == library


def test_offsets_of_fourteen_hours_are_places_and_accepted(tmp_path, library):
    import_cases(
        write_json(tmp_path / "a.json", make_case("A-1", updated_at="2026-01-01T00:00:00+14:00")),
        write_json(tmp_path / "b.json", make_case("A-2", updated_at="2026-01-01T00:00:00-12:00")),
    )
    assert Case.objects.filter(id__in=["A-1", "A-2"]).count() == 2


def test_an_unpaired_surrogate_is_refused_by_name(tmp_path, library):
    text = json.dumps(make_case("A-1")).replace('"Training', '"\\ud800Training', 1)
    path = write_raw(tmp_path / "a.json", text)
    assert "contains an unpaired surrogate" in refused(path)
    assert library_state() == library


def test_an_unpaired_surrogate_in_an_id_is_named_escaped_on_a_strict_stream(
    tmp_path, library, capsys
):
    """The id a problem names is the file's: a lone surrogate there is written as its escape,
    which any terminal or log takes (capsys's stream, like a pipe's, refuses to encode it)."""
    path = write_raw(tmp_path / "a.json", json.dumps(make_case("\ud800")))
    with pytest.raises(CommandError):
        import_cases(path)
    assert f"{path}:1: \\ud800: id: " in capsys.readouterr().err
    assert library_state() == library


def test_a_trailing_newline_in_an_id_is_refused(tmp_path, library):
    path = write_json(tmp_path / "a.json", make_case("NL-2\n"))
    assert "id: 'NL-2\\n' is not a case id" in refused(path)


def test_a_stray_character_after_a_case_is_reported_where_it_is(tmp_path, library):
    text = json.dumps(make_case("A-1"), indent=2) + "\n}\n"
    path = write_raw(tmp_path / "a.json", text)
    errors = refused(path)
    last_line = text.count("\n")
    assert errors.strip() == f"{path}:{last_line}:1: malformed JSON: Extra data"


def test_json_lines_keep_line_separators_inside_strings(tmp_path):
    case = make_case("A-1")
    case["summary"]["en"] = "one\u2028two"
    path = write_raw(tmp_path / "a.jsonl", json.dumps(case, ensure_ascii=False) + "\n")
    import_cases(path)
    assert Case.objects.get(id="A-1").summary_en == "one\u2028two"


def test_a_reference_to_an_invalid_case_of_the_run_gives_no_second_error(tmp_path, library):
    broken = make_case("S-1")
    broken["sources"][0]["url"] = "javascript:x"
    write_json(tmp_path / "run.json", [broken, make_case("S-2", related=["S-1"])])
    errors = refused(tmp_path / "run.json")
    assert "S-1: sources[0].url" in errors
    assert "S-2" not in errors


def test_renaming_an_organisation_other_stored_cases_use_is_refused(tmp_path, library):
    case = make_case("X-10", org="Lablup (renamed)")
    errors = refused(write_json(tmp_path / "a.json", case))
    assert "X-10: org: 'Lablup (renamed)' differs from 'Lablup Inc', the name of org_slug" in errors
    assert library_state() == library


def test_renaming_the_organisation_of_the_only_case_that_uses_it_is_an_update(tmp_path, library):
    import_cases(write_json(tmp_path / "a.json", make_case("IL-0137", org="Lablup")))
    assert Organisation.objects.get(slug="lablup-inc").name == "Lablup"


def test_keep_existing_creates_and_reports_terms_only_for_the_cases_it_adds(tmp_path, library):
    kept = make_case("IL-0137", components=["object-storage"])
    added = make_case("A-1", domain=["hpc"])
    write_json(tmp_path / "run.json", [kept, added])
    out, err = StringIO(), StringIO()
    call_command(
        "import_cases",
        str(tmp_path / "run.json"),
        keep_existing=True,
        stdout=out,
        stderr=err,
        verbosity=2,
    )
    assert "terms created: 1." in out.getvalue()
    assert "A-1: created\nIL-0137: already in the library, left as it is" in out.getvalue()
    assert "domain:hpc (A-1)" in err.getvalue() and "object-storage" not in err.getvalue()
    assert Term.objects.filter(slug="hpc").exists()
    assert not Term.objects.filter(slug="object-storage").exists()


def test_keep_existing_leaves_a_stored_case_alone_whatever_its_file_says(tmp_path, library):
    """The demo library loads with --keep-existing: an organisation renamed in the admin, or
    a term the file names that the library lacks, must not stop the cases it leaves alone."""
    Organisation.objects.filter(slug="lablup-inc").update(name="Lablup, Inc.")
    kept = make_case("IL-0137", components=["object-storage"], related=["NOWHERE-1"])
    added = make_case("A-1", org="Lablup, Inc.")
    write_json(tmp_path / "run.json", [kept, added])
    call_command(
        "import_cases",
        str(tmp_path / "run.json"),
        keep_existing=True,
        strict_taxonomy=True,
        verbosity=0,
    )
    assert Case.objects.get(id="A-1").organisation.name == "Lablup, Inc."
    assert not Term.objects.filter(slug="object-storage").exists()
    # Without --keep-existing the same file is refused on all three counts.
    err = refused(tmp_path / "run.json", strict_taxonomy=True)
    for where in ("A-1: org:", "IL-0137: components:", "IL-0137: related[0]:"):
        assert where in err


# What only the database refused before: checked first, so that a dry run says it too.


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            lambda c: c["review"].update(reviewed_at="2026-01-02T03:04:05Z", reviewed_by=None),
            "A-1: review: reviewed_at and reviewed_by go together",
        ),
        (
            lambda c: c["review"].update(reviewed_at=None, reviewed_by="mina"),
            "A-1: review: reviewed_at and reviewed_by go together",
        ),
        (
            lambda c: c.update(severity="bogus"),
            "A-1: severity: 'bogus' is not one of: unknown, low, medium, high, critical",
        ),
        (
            lambda c: c["timeline"].update(detected_after="P\u0663D"),
            "A-1: timeline.detected_after: 'P\u0663D' is not an ISO 8601 duration",
        ),
        (
            lambda c: c.update(
                sources=[c["sources"][0]] * 33_000,
            ),
            "A-1: sources: has 33000 items, at most 32767 allowed",
        ),
    ],
    ids=["reviewed-at-alone", "reviewed-by-alone", "unknown-severity", "arabic-digit", "33k"],
)
@pytest.mark.parametrize("dry_run", [False, True], ids=["real", "dry-run"])
def test_what_the_database_would_refuse_is_refused_first(
    tmp_path, library, change, expected, dry_run
):
    case = make_case("A-1")
    change(case)
    path = write_raw(tmp_path / "a.json", json.dumps(case, ensure_ascii=False))
    assert f"{path}:1: {expected}" in refused(path, dry_run=dry_run)
    assert library_state() == library


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[" * 5000 + "]" * 5000, "malformed JSON: nested too deeply to be read"),
        ("1" * 5000, "malformed JSON: a number has too many digits to be read (at most 4300)"),
    ],
    ids=["deep", "long-number"],
)
@pytest.mark.parametrize("suffix", [".json", ".jsonl", "-array.json"])
def test_json_python_cannot_read_is_refused_by_its_line(tmp_path, library, text, expected, suffix):
    case = json.dumps(make_case("A-1"), ensure_ascii=False).replace(
        '"docs": []', f'"docs": [{text}]'
    )
    assert text in case
    if suffix == "-array.json":
        content = "[\n" + json.dumps(make_case("A-0")) + ",\n" + case + "\n]\n"
        line = 3
    else:
        content = json.dumps(make_case("A-0")) + "\n" + case + "\n"
        line = 2
    path = write_raw(tmp_path / f"a{suffix}", content)
    assert f"{path}:{line}: A-1: {expected}" in refused(path)
    assert library_state() == library


def test_json_python_cannot_read_names_its_case_wherever_its_id_is(tmp_path, library):
    """Read whole (too deep), a case is named by its own id, even written after the depth;
    not by a nested object's."""
    case = make_case("A-1")
    del case["id"]
    text = json.dumps(case).replace(
        '"docs": []', '"docs": [{"id": "X-1", "d": ' + "[" * 5000 + "]" * 5000 + "}]"
    )
    path = write_raw(tmp_path / "a.jsonl", text[:-1] + ', "id": "A-1"}\n')
    assert f"{path}:1: A-1: malformed JSON: nested too deeply to be read" in refused(path)
    assert library_state() == library


def test_a_deeply_nested_document_is_kept(tmp_path):
    docs = [{"a": [[[{"b": "c"}]]]}]
    for _ in range(200):
        docs = [docs]
    import_cases(write_raw(tmp_path / "a.json", json.dumps(make_case("A-1", docs=docs))))
    assert Case.objects.get(id="A-1").docs == docs


TRICKY_STRINGS = [
    "high\n",
    "IL-0137\n",
    "https://example.com/\x85",
    "https://example.com/\x1c",
    "https://example.com/\ufeff",
    "https://example.com/\u00a0",
    "P\u0663D",
    "PT\uff11H",
    "2026-02-30",
    "2026-1-01",
    "2026-11-09T11:55:50z",
    "2026-11-09t11:55:50Z",
    "2026-11-09T11:55:50.1234567Z",
    "0001-01-01T00:30:00+01:00",
    "9999-12-31T23:59:59-01:00",
    "2026-01-01T00:00:00+16:00",
    "2026-01-01T00:00:00-14:01",
    "",
    "x" * 65,
]


@pytest.mark.parametrize(
    "field",
    [
        ("id",),
        ("org_slug",),
        ("severity",),
        ("domain", 0),
        ("related", 0),
        ("recurrence_of",),
        ("sources", 0, "url"),
        ("sources", 0, "archived"),
        ("sources", 0, "kind"),
        ("timeline", "detected_after"),
        ("date",),
        ("updated_at",),
        ("review", "reviewed_at"),
        ("url",),
    ],
    ids=lambda f: ".".join(map(str, f)),
)
def test_the_fast_validator_agrees_with_the_full_one(field):
    """jsonschema-rs only tells valid from invalid; the full validator's messages are used
    for whatever it refuses. The two must never differ on a case."""
    from cases.exchange.checks import case_validator, fast_case_validator

    for value in TRICKY_STRINGS:
        case = make_case("A-1", related=["IL-0137"])
        target = case
        for part in field[:-1]:
            target = target[part]
        target[field[-1]] = value
        full = not any(case_validator().iter_errors(case))
        assert fast_case_validator().is_valid(case) == full, (field, value)


@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
def test_a_key_given_twice_in_one_object_is_refused_by_name(tmp_path, library, suffix):
    text = json.dumps(make_case("A-1"), ensure_ascii=False)
    text = text.replace('"id": "A-1"', '"id": "A-1", "id": "A-2"', 1)
    text = text.replace('"kind": "', '"kind": "blog", "kind": "', 1)
    errors = refused(write_raw(tmp_path / f"a{suffix}", text + "\n"))
    assert "A-2: id: the key 'id' is given twice; give it once" in errors
    assert "A-2: sources[0].kind: the key 'kind' is given twice; give it once" in errors
    assert library_state() == library


@pytest.mark.parametrize("flaw", ["unknown field", "key given twice"])
def test_a_case_with_a_flaw_of_its_own_is_still_checked_against_the_others(tmp_path, library, flaw):
    """Such a flaw hid every problem the case has with other cases: a curator fixed it and
    met them on a second run."""
    case = make_case("A-1", related=["NOWHERE-1"], recurrence_of="NOWHERE-2")
    text = json.dumps({**case, "notes": "a curator's"} if flaw == "unknown field" else case)
    if flaw == "key given twice":
        text = text.replace('"summary": {"en": ', '"summary": {"en": "x", "en": ', 1)
    errors = refused(write_raw(tmp_path / "a.json", text))
    flaw_said = {
        "unknown field": "A-1: notes: is not a field of the exchange format",
        "key given twice": "A-1: summary.en: the key 'en' is given twice; give it once",
    }[flaw]
    assert flaw_said in errors
    assert "A-1: related[0]: NOWHERE-1 is neither in this run nor in the library" in errors
    assert "A-1: recurrence_of: NOWHERE-2 is neither in this run nor in the library" in errors
    assert library_state() == library


def test_every_problem_of_a_case_is_reported_in_one_run(tmp_path, library):
    case = make_case("A-1", date="2026-02-30", recurrence_of="A-1", severity="bogus")
    case["review"].update(reviewed_at="2026-01-02T03:04:05Z", reviewed_by=None)
    errors = refused(write_json(tmp_path / "a.json", case))
    assert "A-1: date: '2026-02-30' is not a valid date" in errors
    assert "A-1: recurrence_of: A case cannot be a recurrence of itself." in errors
    assert "A-1: severity: 'bogus' is not one of" in errors
    assert "A-1: review: reviewed_at and reviewed_by go together" in errors
    assert len(errors.strip().splitlines()) == 4
    assert library_state() == library


# What a curator gives by mistake: named for what it is, in one line -------------------------


def test_a_translation_record_of_an_item_that_is_not_there_is_refused(tmp_path, library):
    case = make_case("A-1")
    steps = len(case["remediation"])
    case["translations"] = {
        f"remediation[{steps}]": {"source": "0123456789abcdef"},
        "summary": {"source": "0123456789ABCDEF"},
    }
    err = refused(write_json(tmp_path / "a.json", case))
    assert (
        f"A-1: translations.remediation[{steps}]: names remediation[{steps}], but the case has "
        f"{steps} remediation item(s)"
    ) in err
    assert (
        "A-1: translations.summary.source: '0123456789ABCDEF' is not 16 lowercase hexadecimal"
        in err
    )
    case["translations"] = {"remedy[0]": {"source": "0123456789abcdef"}}
    err = refused(write_json(tmp_path / "b.json", case))
    assert "A-1: translations: 'remedy[0]' is not the name of a text: title, summary" in err


def test_a_case_kept_when_checked_but_deleted_before_the_writing_refuses_the_run(tmp_path, library):
    """--keep-existing leaves a stored case unchecked; deleted in the admin meanwhile, it
    would be created from the file without its rules spanning cases."""
    from cases.exchange import importer, writer

    case = make_case("IL-0137", org="Renamed", components=["unknown-part"])
    path = write_json(tmp_path / "run.json", [case, make_case("A-1")])
    run = importer.CaseImport([path], keep_existing=True)
    run.check()
    assert run.result.ok
    Case.objects.filter(id="IL-0137").delete()
    with pytest.raises(writer.Refused) as refusal:
        run.write()
    assert "IL-0137 left the library while the run was checked" in str(refusal.value.problems[0])
    assert not Case.objects.filter(id__in=["IL-0137", "A-1"]).exists()


def _distinct_korean_words(characters, seed, length=31):
    """Text of distinct Korean words of `length` syllables: each word's endings are indexed
    too (in a text of at most 20,000 characters), so that the search index grows fast."""
    import random

    rnd = random.Random(seed)
    count = characters // (length + 1)
    return " ".join(
        "".join(chr(rnd.randrange(0xAC00, 0xD7A4)) for _ in range(length)) for _ in range(count)
    )


@pytest.mark.parametrize("dry_run", [False, True], ids=["import", "dry-run"])
def test_a_case_whose_search_index_passes_postgresqls_limit_is_refused_by_name(
    tmp_path, library, dry_run
):
    """A tsvector holds at most 1 MB: the database refused the case with a traceback."""
    big = make_case("A-2")
    big["summary"]["ko"] = _distinct_korean_words(20_000, 1)
    big["trigger"]["ko"] = _distinct_korean_words(20_000, 2)
    path = write_json(tmp_path / "a.json", [make_case("A-1"), big])
    err = refused(path, dry_run=dry_run)
    line = path.read_text().splitlines().index("  {", 2) + 1
    assert (
        f"{path}:{line}: A-2: its search index would be larger than PostgreSQL can hold "
        "(string is too long for tsvector ("
    ) in err
    assert "A-1" not in err and "Traceback" not in err
    assert library_state() == library
