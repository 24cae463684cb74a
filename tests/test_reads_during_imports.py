"""Exports and the download read one snapshot: an import running meanwhile never mixes
two versions of a case, and the export is written a chunk at a time."""

import json
import threading
import time
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection
from django.test import Client

from cases.exchange import export
from cases.exchange.format import cases_json, same_case

from .conftest import write_json
from .library import plain_case

IDS = [f"C-{number:02}" for number in range(1, 13)]


def version(case_id, letter, steps):
    """One version of a case: its row and each of its lists say which version it is."""
    return plain_case(
        case_id,
        title={"en": f"Version {letter} of {case_id}", "ko": None},
        summary={"en": f"Summary {letter}.", "ko": f"요약 {letter}."},
        updated_at=f"2026-0{1 if letter == 'A' else 2}-01T00:00:00Z",
        sources=[
            {
                "url": f"https://{letter.lower()}.example.com/{case_id}/{n}",
                "kind": "postmortem",
                "license": None,
                "archived": None,
            }
            for n in range(steps)
        ],
        remediation=[{"text": {"en": f"Step {letter}{n}", "ko": None}} for n in range(steps)],
        action_items=[{"text": {"en": f"Action {letter}", "ko": None}}],
        domain=["web"] if letter == "A" else ["ml", "web"],
    )


@pytest.fixture
def versions(tmp_path):
    """Two files of the same cases, A and B, whose every part differs; A is stored."""
    files = {
        "A": write_json(tmp_path / "a.json", [version(i, "A", 2) for i in IDS]),
        "B": write_json(tmp_path / "b.json", [version(i, "B", 3) for i in IDS]),
    }
    call_command("import_cases", str(files["A"]), verbosity=0)
    return files


def in_thread(work):
    """Run `work` in another thread, with its own database connection; wait for it."""
    failures = []

    def run():
        try:
            work()
        except BaseException as error:  # pragma: no cover - reported below
            failures.append(error)
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(60)
    assert not thread.is_alive() and not failures, failures


def import_file(path):
    # The files go back and forth between two versions: the older one replaces the newer too.
    return lambda: call_command("import_cases", str(path), verbosity=0, replace_newer=True)


def whole_version(case, versions_by_letter):
    """Which version the exported case is, exactly; None for a mix."""
    for letter, cases in versions_by_letter.items():
        if same_case(case, cases[case["id"]]):
            return letter
    return None


def by_id(path):
    return {case["id"]: case for case in json.loads(path.read_text(encoding="utf-8"))}


def import_after_first_case_query(import_work):
    """An execute wrapper: right after the first query of case rows (not a count), an
    import commits."""
    state = {"done": False}

    def wrapper(execute, sql, params, many, context):
        result = execute(sql, params, many, context)
        if (
            not state["done"]
            and sql.lstrip().upper().startswith("SELECT")
            and 'FROM "cases_case"' in sql
            and "COUNT(" not in sql.upper()
        ):
            state["done"] = True
            in_thread(import_work)
        return result

    return wrapper, state


@pytest.mark.django_db(transaction=True)
def test_an_import_committing_while_export_cases_reads_leaves_every_case_as_before(
    versions, tmp_path
):
    wrapper, state = import_after_first_case_query(import_file(versions["B"]))
    target = tmp_path / "export.json"
    with connection.execute_wrapper(wrapper):
        call_command("export_cases", output=str(target), stderr=StringIO())
    assert state["done"]
    exported, before = by_id(target), by_id(versions["A"])
    assert sorted(exported) == IDS
    assert [i for i in IDS if not same_case(exported[i], before[i])] == []
    # The import did commit: the next export gives the new versions.
    call_command("export_cases", output=str(target), stderr=StringIO())
    after = by_id(versions["B"])
    assert all(same_case(case, after[case_id]) for case_id, case in by_id(target).items())


@pytest.mark.django_db(transaction=True)
def test_a_download_read_slowly_during_an_import_gives_the_library_as_it_was(tmp_path):
    # More cases than a chunk: the rest are read after the first lines are sent.
    many = [f"D-{number:03}" for number in range(export.CHUNK_SIZE + 5)]
    files = {
        letter: write_json(tmp_path / f"{letter}.json", [version(i, letter, 1) for i in many])
        for letter in "AB"
    }
    call_command("import_cases", str(files["A"]), verbosity=0)
    response = Client().get("/api/cases.jsonl")
    lines = iter(response.streaming_content)
    first = next(lines)
    # The reader is slow: a whole import commits before it reads on.
    in_thread(import_file(files["B"]))
    downloaded = [json.loads(line) for line in [first, *lines]]
    response.close()
    before = by_id(files["A"])
    assert [case["id"] for case in downloaded] == many
    assert [c["id"] for c in downloaded if not same_case(c, before[c["id"]])] == []
    later = [json.loads(line) for line in Client().get("/api/cases.jsonl").streaming_content]
    assert {c["title"]["en"] for c in later} == {f"Version B of {i}" for i in many}


@pytest.mark.django_db(transaction=True)
def test_exports_looped_during_reimports_give_every_case_whole_in_one_version(versions):
    monkeypatch_chunk = export.CHUNK_SIZE
    export.CHUNK_SIZE = 3  # more queries per export: more chances to mix, were it possible
    files = {letter: by_id(path) for letter, path in versions.items()}
    stop = threading.Event()
    exports = []

    def export_in_a_loop():
        try:
            while not stop.is_set():
                out = StringIO()
                call_command("export_cases", stdout=out, stderr=StringIO())
                exports.append(json.loads(out.getvalue()))
        finally:
            connection.close()

    exporter = threading.Thread(target=export_in_a_loop)
    exporter.start()
    try:
        deadline = time.monotonic() + 20
        rounds = 0
        while rounds < 6 or (len(exports) < 10 and time.monotonic() < deadline):
            in_thread(import_file(versions["B" if rounds % 2 == 0 else "A"]))
            rounds += 1
    finally:
        stop.set()
        exporter.join(60)
        export.CHUNK_SIZE = monkeypatch_chunk
    assert exports
    mixed = [
        (number, case["id"])
        for number, values in enumerate(exports)
        for case in values
        if whole_version(case, files) is None
    ]
    assert mixed == []
    assert all(len(values) == len(IDS) for values in exports)


def test_the_streamed_array_is_the_text_of_one_json_dump():
    odd = {"text": "line\u2028separator\x85next\u2029and\nnewline", "list": [1, {"a": []}]}
    for values in ([], [odd], [odd, {"b": "가나다"}, [], {}]):
        assert "".join(export.json_array_pieces(iter(values))) == cases_json(values)


@pytest.mark.django_db
def test_export_cases_writes_a_chunk_before_reading_the_next(versions, monkeypatch):
    monkeypatch.setattr(export, "CHUNK_SIZE", 2)
    queries_at_writes = []

    class Recorder(StringIO):
        def write(self, text):
            queries_at_writes.append(len(connection.queries))
            return super().write(text)

    out = Recorder()
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        call_command("export_cases", stdout=out, stderr=StringIO())
    assert [case["id"] for case in json.loads(out.getvalue())] == IDS
    # The first case is written after the first chunk's queries, long before the last.
    assert queries_at_writes[0] < len(queries) / 2


@pytest.mark.django_db(transaction=True)
def test_a_case_page_read_during_an_import_shows_one_version(versions):
    wrapper, state = import_after_first_case_query(import_file(versions["B"]))
    with connection.execute_wrapper(wrapper):
        html = Client().get("/cases/C-01").content.decode()
    assert state["done"]
    assert "Version A of C-01" in html and "Step A1" in html and "Step B" not in html


@pytest.mark.django_db(transaction=True)
def test_an_api_page_read_during_an_import_gives_whole_cases_of_one_version(versions):
    wrapper, state = import_after_first_case_query(import_file(versions["B"]))
    with connection.execute_wrapper(wrapper):
        body = Client().get("/api/cases/?per_page=100").json()
    assert state["done"]
    before = by_id(versions["A"])
    assert sorted(case["id"] for case in body["results"]) == IDS
    assert [c["id"] for c in body["results"] if not same_case(c, before[c["id"]])] == []
