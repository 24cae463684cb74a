"""import_cases at scale: streamed reading, batches in one transaction, one generation per
run, short warnings, a progress bar only on a terminal."""

import json
import re
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import DatabaseError, models

from cases.exchange import files, importer, writer
from cases.exchange.files import iter_case_file
from cases.exchange.importer import CaseImport
from cases.models import Case, Library, RelatedCase, RemediationStep

from .conftest import exported, import_cases, library_state, make_case, seed_case, write_json
from .library import listed_ids, plain_case

pytestmark = pytest.mark.django_db


def write_lines(path, cases):
    path.write_text(
        "".join(json.dumps(case, ensure_ascii=False) + "\n" for case in cases), encoding="utf-8"
    )
    return path


def refused(*paths, **options):
    stderr = StringIO()
    with pytest.raises(CommandError) as error:
        call_command("import_cases", *map(str, paths), stderr=stderr, verbosity=0, **options)
    return stderr.getvalue(), str(error.value)


@pytest.fixture
def library(tmp_path):
    import_cases(write_json(tmp_path / "seed.json", seed_case()))
    return library_state()


def test_one_bad_case_among_many_writes_nothing_and_is_named(tmp_path, library):
    cases = [plain_case(f"S-{n}") for n in range(1, 2501)]
    cases[2299]["sources"] = [
        {"url": "javascript:alert(1)", "kind": "blog", "license": None, "archived": None}
    ]
    path = write_lines(tmp_path / "many.jsonl", cases)
    errors, final = refused(path)
    assert errors.strip() == (
        f"{path}:2300: S-2300: sources[0].url: 'javascript:alert(1)' is not an http:// or "
        "https:// address without spaces"
    )
    assert "1 problem found; nothing was imported." in final
    assert library_state() == library


def test_a_case_with_a_problem_is_still_checked_against_the_others(tmp_path, library):
    """The checks that span cases (references, loops, the library's newer copy, unknown
    terms) skipped a case with any other problem: a second attempt brought new ones."""
    stored = make_case("IL-0137", date="2026-02-30", updated_at="2001-01-01T00:00:00Z")
    stored["related"] = ["ZZ-404"]
    loop_1 = plain_case("X-1", recurrence_of="X-2")
    loop_2 = plain_case("X-2", recurrence_of="X-1", date="bad")
    path = write_lines(tmp_path / "run.jsonl", [stored, loop_1, loop_2])
    errors, final = refused(path, strict_taxonomy=True)
    found = errors.strip().splitlines()
    assert f"{path}:1: IL-0137: date: '2026-02-30' is not a valid date (YYYY-MM-DD)" in found
    assert f"{path}:1: IL-0137: related[0]: ZZ-404 is neither in this run nor in the library" in (
        found
    )
    assert any(
        line.startswith(f"{path}:1: IL-0137: updated_at: the library's copy is newer")
        for line in found
    ), found
    assert any(line.startswith(f"{path}:2: X-1: recurrence_of:") for line in found), found
    assert any(line.startswith(f"{path}:3: X-2: date:") for line in found), found
    assert library_state() == library


def test_a_reference_to_a_case_whose_json_is_malformed_gets_no_second_problem(tmp_path):
    lines = [
        json.dumps(plain_case("M-1", related=["M-2"], recurrence_of="M-2")),
        json.dumps(plain_case("M-2")).replace('"date":', '"date"', 1),
    ]
    path = tmp_path / "run.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    errors, _final = refused(path)
    found = errors.strip().splitlines()
    assert len(found) == 1 and "M-2: malformed JSON" in found[0], found


def test_a_refusal_in_a_late_batch_undoes_the_batches_written_before(
    tmp_path, library, monkeypatch
):
    """The batches share one transaction: the database refusing the fourth undoes the three
    written before it, and the message names the cases of that batch."""
    monkeypatch.setattr(importer, "BATCH_SIZE", 100)
    copy_lists = writer.Writer.copy_lists
    calls = []

    def refusing(self, cases):
        calls.append(len(cases))
        if len(calls) == 4:
            raise DatabaseError("boom\nDETAIL: the failing row, with the whole case")
        return copy_lists(self, cases)

    monkeypatch.setattr(writer.Writer, "copy_lists", refusing)
    path = write_lines(tmp_path / "many.jsonl", [plain_case(f"S-{n}") for n in range(1, 351)])
    errors, _final = refused(path)
    assert calls == [100, 100, 100, 50]
    assert f"{path}:301: the database refused the cases from line 301 to {path}:350: boom" in errors
    assert "DETAIL" not in errors
    assert library_state() == library


def test_batches_may_refer_to_cases_of_later_batches(tmp_path, monkeypatch):
    monkeypatch.setattr(importer, "BATCH_SIZE", 4)
    cases = [plain_case(f"B-{n}") for n in range(1, 11)]
    cases[0].update(related=["B-10", "B-5"], recurrence_of="B-9")
    cases[0]["remediation"] = [{"text": {"en": "Step one", "ko": "첫 단계"}}]
    import_cases(write_lines(tmp_path / "run.jsonl", cases))
    assert Case.objects.count() == 10
    assert exported("B-1")["related"] == ["B-10", "B-5"]
    assert exported("B-1")["recurrence_of"] == "B-9"
    assert RelatedCase.objects.count() == 2 and RemediationStep.objects.count() == 1
    # The search vector was derived from the lists written before the row.
    assert Case.objects.filter(id="B-1", search_vector="첫").exists()


def array_text(cases):
    return json.dumps(cases, ensure_ascii=False, indent=2)


def element_lines(text):
    return [n for n, line in enumerate(text.splitlines(), 1) if line == "  {"]


def test_a_json_array_read_in_blocks_gives_each_case_its_line(tmp_path, monkeypatch):
    monkeypatch.setattr(files, "BLOCK_SIZE", 1000)  # a case is about 9 kB: many blocks
    cases = [make_case(f"A-{n}") for n in range(1, 31)]
    text = array_text(cases)
    assert len(text) > 30 * files.BLOCK_SIZE
    path = tmp_path / "array.json"
    path.write_text(text, encoding="utf-8")
    records = list(iter_case_file(path))
    assert [r.case_id for r in records] == [c["id"] for c in cases]
    assert [r.line for r in records] == element_lines(text)
    assert [r.data for r in records] == cases


def test_a_minified_array_on_one_line_is_read_in_blocks_too(tmp_path, monkeypatch):
    """jq -c and json.dumps without indent write an array on one line: it was read whole."""
    monkeypatch.setattr(files, "BLOCK_SIZE", 1000)
    cases = [make_case(f"M-{n}") for n in range(1, 11)]
    path = tmp_path / "minified.json"
    path.write_text(json.dumps(cases, ensure_ascii=False, separators=(",", ":")), "utf-8")
    reads = []
    records = list(iter_case_file(path, progress=reads.append))
    assert [r.case_id for r in records] == [c["id"] for c in cases]
    assert sum(reads) == path.stat().st_size and len(reads) > 10
    assert max(reads) <= 1000, max(reads)  # never more than a block at a time


@pytest.mark.parametrize("suffix", [".jsonl", ".json"])
def test_a_case_file_is_told_by_its_first_line_whatever_its_name(tmp_path, suffix):
    """A pretty-printed array or case named .jsonl is read as such (it gave some hundred
    'malformed JSON' problems, a line each); JSON Lines whose first line is malformed, in a
    .json file, goes on to the next lines (it was read as one document: one problem)."""
    cases = [make_case("J-1"), make_case("J-2")]
    for text in (array_text(cases), json.dumps(cases[0], indent=2)):
        path = tmp_path / f"pretty{suffix}"
        path.write_text(text, encoding="utf-8")
        records = list(iter_case_file(path))
        assert all(r.case_id for r in records), records
    lines = [json.dumps(case, ensure_ascii=False) for case in cases + [make_case("J-3")]]
    lines[0] = lines[0].replace('"date":', '"date"', 1)
    lines[2] = lines[2].replace('"date":', '"date"', 1)
    path = tmp_path / f"lines{suffix}"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    problems = [str(item) for item in iter_case_file(path) if isinstance(item, files.Problem)]
    assert len(problems) == 2 and ":1:" in problems[0] and ":3:" in problems[1], problems
    # A first line cut off mid-case is a malformed line too, in a .jsonl file: the next
    # lines are read on.
    lines[0] = json.dumps(cases[0], ensure_ascii=False)[:40]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    problems = [item for item in iter_case_file(path) if isinstance(item, files.Problem)]
    if suffix == ".jsonl":
        assert [problem.line for problem in problems] == [1, 3], problems


def test_a_bad_case_late_in_a_json_array_read_in_blocks_is_named_by_its_line(
    tmp_path, library, monkeypatch
):
    monkeypatch.setattr(files, "BLOCK_SIZE", 1000)
    cases = [make_case(f"A-{n}") for n in range(1, 21)]
    cases[17]["date"] = "2026-02-30"
    text = array_text(cases)
    path = tmp_path / "array.json"
    path.write_text(text, encoding="utf-8")
    errors, _final = refused(path)
    start = element_lines(text)[17]
    assert start > 100
    # The field's own line, in the element's text read across blocks.
    line = text.splitlines().index('    "date": "2026-02-30",', start) + 1
    assert (
        errors.strip()
        == f"{path}:{line}: A-18: date: '2026-02-30' is not a valid date (YYYY-MM-DD)"
    )
    assert library_state() == library


def test_malformed_json_late_in_an_array_is_named_by_line_and_column(
    tmp_path, library, monkeypatch
):
    monkeypatch.setattr(files, "BLOCK_SIZE", 1000)
    text = array_text([make_case(f"A-{n}") for n in range(1, 11)])
    lines = text.splitlines()
    broken = element_lines(text)[8] + 1  # the `"id": ...` line of the ninth case
    lines[broken - 1] = '    "id": "A-9",,'
    path = tmp_path / "array.json"
    path.write_text("\n".join(lines), encoding="utf-8")
    errors, _final = refused(path)
    assert f"{path}:{broken}:17: A-9: malformed JSON: Expecting property name" in errors
    assert library_state() == library


def test_new_terms_are_listed_with_a_few_cases_each(tmp_path):
    cases = [make_case(f"A-{n}", components=["object-storage"]) for n in range(1, 8)]
    cases[0]["domain"] = ["hpc"]
    stderr = StringIO()
    call_command(
        "import_cases", str(write_lines(tmp_path / "a.jsonl", cases)), stderr=stderr, verbosity=0
    )
    warning = stderr.getvalue()
    assert "components:object-storage (A-1, A-2, A-3 and 4 more)" in warning
    assert "domain:hpc (A-1)" in warning
    assert "A-7" not in warning


def test_many_new_terms_are_listed_up_to_a_number(tmp_path):
    """A file of 204 new slugs gave a warning of 5,850 characters on one line."""
    cases = [make_case(f"B-{n}", components=[f"new-part-{n}"]) for n in range(1, 26)]
    stderr = StringIO()
    call_command(
        "import_cases", str(write_lines(tmp_path / "b.jsonl", cases)), stderr=stderr, verbosity=0
    )
    warning = stderr.getvalue().strip()
    created = int(re.match(r"Warning: (\d+) taxonomy terms created", warning)[1])
    assert created >= 25  # the new parts, and the seed case's terms (no taxonomy loaded)
    assert len(re.findall(r"\w+:[a-z0-9-]+ \(", warning)) == 20
    assert warning.endswith(f"and {created - 20} more terms"), warning


class Terminal(StringIO):
    def isatty(self):
        return True


def test_a_progress_bar_shows_on_a_terminal_only(tmp_path):
    path = write_lines(tmp_path / "a.jsonl", [plain_case("P-1"), plain_case("P-2")])
    terminal = Terminal()
    call_command("import_cases", str(path), stdout=StringIO(), stderr=terminal)
    assert "Checking" in terminal.getvalue() and "Writing" in terminal.getvalue()
    # Writing counts the cases written (the second reading runs ahead of the writes, and
    # a bar of its bytes sat at 0% while they were written, then vanished).
    assert "0/2 [" in terminal.getvalue() and "cases/s]" in terminal.getvalue()

    not_a_terminal = StringIO()
    call_command("import_cases", str(path), stdout=StringIO(), stderr=not_a_terminal)
    assert not_a_terminal.getvalue() == ""

    quiet = Terminal()
    call_command("import_cases", str(path), stdout=StringIO(), stderr=quiet, verbosity=0)
    assert quiet.getvalue() == ""


def test_a_dry_run_agrees_with_the_real_run_and_writes_nothing(tmp_path, library):
    changed = make_case("IL-0137", date="2026-06-16")
    path = write_json(tmp_path / "run.json", [changed, make_case("A-1"), make_case("A-2")])
    dry = CaseImport([path]).run(dry_run=True)
    assert library_state() == library
    real = CaseImport([path]).run()
    assert (dry.created, dry.updated, dry.unchanged) == (real.created, real.updated, real.unchanged)
    assert (dry.created, dry.updated) == (["A-1", "A-2"], ["IL-0137"])
    assert dry.new_terms == real.new_terms


def generations_given():
    """How many numbers the database has given so far to the generation and the shape (one
    sequence: never rolled back, so that a number is never given twice)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT last_value + is_called::int FROM cases_library_generation")
        return cursor.fetchone()[0]


@pytest.mark.django_db(transaction=True)
def test_an_import_raises_the_generation_once_and_a_refused_or_unchanged_one_not_at_all(tmp_path):
    given = generations_given()
    cases = [plain_case(f"G-{n}") for n in range(1, 6)]
    cases[0]["related"] = ["G-2"]
    path = write_lines(tmp_path / "run.jsonl", cases)
    import_cases(path)
    after = Library.objects.state()
    assert generations_given() == given + 2  # the generation and the shape, once each
    assert not after.writing

    # Unchanged: nothing written, not even a new version.
    import_cases(path)
    assert Library.objects.state() == after
    assert set(Case.objects.values_list("version", flat=True)) == {1}

    # Refused: nothing written.
    cases[3]["date"] = "never"
    with pytest.raises(CommandError):
        import_cases(write_lines(tmp_path / "bad.jsonl", cases))
    assert Library.objects.state() == after

    # A dry run changes nothing either.
    cases[3]["date"] = "2026-01-01"
    cases[3]["title"] = {"en": "Changed", "ko": None}
    path = write_lines(tmp_path / "run.jsonl", cases)
    call_command("import_cases", str(path), dry_run=True, verbosity=0)
    assert Library.objects.state() == after

    # One case changed among them: one new generation (and shape), one new version.
    given = generations_given()
    import_cases(path)
    assert generations_given() == given + 2
    assert Library.objects.state().generation > after.generation
    assert dict(Case.objects.values_list("id", "version")) == {
        "G-1": 1,
        "G-2": 1,
        "G-3": 1,
        "G-4": 2,
        "G-5": 1,
    }


def test_after_an_import_the_transaction_writes_as_any_other(tmp_path):
    """bulk_write is set for the import only: a write after it, in the same transaction,
    has its lists derive the case again."""
    from django.db import connection

    import_cases(write_lines(tmp_path / "a.jsonl", [plain_case("W-1")]))
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('incidentlib.bulk_write', true)")
        assert cursor.fetchone()[0] in (None, "")
    RemediationStep.objects.create(case_id="W-1", position=0, text_en="Rebooted", text_ko=None)
    assert Case.objects.filter(id="W-1", search_vector="rebooted").exists()


def test_a_file_changed_between_checking_and_writing_writes_nothing(tmp_path, library, monkeypatch):
    path = write_lines(tmp_path / "a.jsonl", [plain_case("C-1"), plain_case("C-2")])
    check = CaseImport.check

    def check_then_change(self):
        check(self)
        write_lines(path, [plain_case("C-1"), plain_case("C-2", date="not a date")])

    monkeypatch.setattr(CaseImport, "check", check_then_change)
    result = CaseImport([path]).run()
    assert [str(p) for p in result.problems] == [
        f"{path}:2: changed while it was being imported; nothing was written, import it again"
    ]
    assert library_state() == library


def pending_pages(index):
    """Pages of a GIN index's pending list (gin_clean_pending_list merges them and says
    how many there were)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT gin_clean_pending_list(%s::regclass)", [index])
        return cursor.fetchone()[0]


def test_an_import_leaves_its_gin_indexes_merged_and_searchable(tmp_path, client):
    """The import appends to the GIN indexes' pending lists and a second connection merges
    them (gin_lists.Merger): none is left to slow the searches after it. Its search vectors,
    written in binary, are the ones the database derives itself."""
    from cases.exchange.gin_lists import gin_indexes

    cases = [plain_case(f"M-{n}") for n in range(1, 301)]
    cases[120]["title"]["en"] = "Quorum lost after a zebrafish migration"
    import_cases(write_lines(tmp_path / "many.jsonl", cases))
    assert sorted(gin_indexes()) == [
        "case_search_idx",
        "case_term_ids_idx",
        "case_title_search_idx",
    ]
    assert {index: pending_pages(index) for index in gin_indexes()} == dict.fromkeys(
        gin_indexes(), 0
    )
    # A write of the database's own (an update of every case, the trigger deriving its
    # vectors) leaves them as the import wrote them.
    given = dict(Case.objects.values_list("id", "search_vector"))
    Case.objects.update(title_en=models.F("title_en"))
    assert dict(Case.objects.values_list("id", "search_vector")) == given
    page = client.get("/cases/", {"q": "zebrafish"}, secure=True)
    assert listed_ids(page.content.decode()) == ["M-121"]


@pytest.mark.django_db(transaction=True)
def test_a_role_without_the_indexes_rights_imports_without_the_merger(tmp_path, monkeypatch):
    """gin_clean_pending_list() needs the rights of the indexes' owner (as VACUUM does): an
    import by a role without them, every connection of it, does without the Merger (its
    writes merge the pending lists, as any write does) instead of failing."""
    from django.db import connection, connections

    from cases.exchange import gin_lists

    role = "incidentlib_test_importer"
    with connection.cursor() as cursor:
        cursor.execute(f"DROP ROLE IF EXISTS {role}")
        cursor.execute(f"CREATE ROLE {role} LOGIN")
        cursor.execute(
            f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {role}"
        )
        cursor.execute(f"GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO {role}")
        assert gin_lists.may_merge(cursor)
    try:
        # Every connection opened from now on (the import's, its threads') is the role's.
        connection.close()
        monkeypatch.setitem(connections.settings["default"], "USER", role)
        with connection.cursor() as cursor:
            cursor.execute("SELECT current_user")
            assert cursor.fetchone()[0] == role
            assert not gin_lists.may_merge(cursor)
        cases = [plain_case(f"R-{n}") for n in (1, 2)]
        import_cases(write_lines(tmp_path / "run.jsonl", cases))
        assert sorted(Case.objects.values_list("id", flat=True)) == ["R-1", "R-2"]
    finally:
        connection.close()
        monkeypatch.undo()
        with connection.cursor() as cursor:
            cursor.execute(f"DROP OWNED BY {role}")
            cursor.execute(f"DROP ROLE {role}")
