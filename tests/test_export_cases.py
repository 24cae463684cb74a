"""export_cases: the exchange format, for every case or those named, written whole or not at all."""

import json
import os
import subprocess
import sys
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from .conftest import ROOT, import_cases, make_case, seed_case, url_of_test_database, write_json

pytestmark = pytest.mark.django_db


def export(*ids, **options):
    out = StringIO()
    call_command("export_cases", *ids, stdout=out, stderr=StringIO(), **options)
    return out.getvalue()


def test_export_writes_every_case_as_a_json_array_sorted_by_id(tmp_path):
    write_json(tmp_path / "run.json", [make_case("B-1"), make_case("A-1")])
    import_cases(tmp_path / "run.json")
    values = json.loads(export())
    assert [v["id"] for v in values] == ["A-1", "B-1"]
    assert list(values[0]) == list(seed_case())  # the format's own key order


def test_export_of_named_cases_only(tmp_path):
    write_json(tmp_path / "run.json", [make_case("B-1"), make_case("A-1")])
    import_cases(tmp_path / "run.json")
    assert [v["id"] for v in json.loads(export("B-1"))] == ["B-1"]


def test_export_keeps_korean_text_readable(seeded):
    assert seed_case()["title"]["ko"] in export("IL-0137")


def test_export_to_a_file(seeded, tmp_path):
    target = tmp_path / "library.json"
    export(output=str(target))
    assert json.loads(target.read_text(encoding="utf-8")) == [seed_case()]


def test_an_export_named_jsonl_is_json_lines_and_imports_unchanged(tmp_path, capsys):
    write_json(tmp_path / "run.json", [make_case("B-1"), make_case("A-1")])
    import_cases(tmp_path / "run.json")
    target = tmp_path / "library.jsonl"
    export(output=str(target))
    lines = target.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["id"] for line in lines] == ["A-1", "B-1"]
    out = StringIO()
    call_command("import_cases", str(target), stdout=out, stderr=StringIO())
    assert "2 unchanged" in out.getvalue(), out.getvalue()
    # Either format, whatever the name, on request.
    assert json.loads(export(format="json")) == [json.loads(line) for line in lines]
    assert export(format="jsonl").splitlines() == lines


def test_an_export_through_a_symbolic_link_writes_the_file_it_names(seeded, tmp_path):
    target = tmp_path / "real.json"
    target.write_text("old", encoding="utf-8")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    export(output=str(link))
    assert link.is_symlink()
    assert json.loads(target.read_text(encoding="utf-8")) == [seed_case()]


def test_a_quiet_export_says_nothing(seeded, tmp_path):
    err = StringIO()
    call_command(
        "export_cases", output=str(tmp_path / "a.json"), verbosity=0, stdout=StringIO(), stderr=err
    )
    assert err.getvalue() == ""


def test_unknown_id_is_an_error_and_writes_no_file(seeded, tmp_path):
    target = tmp_path / "library.json"
    with pytest.raises(CommandError, match="No case with id NOPE-1; nothing was written"):
        export("IL-0137", "NOPE-1", output=str(target))
    assert not target.exists()


def test_export_into_a_missing_folder_is_an_error(seeded, tmp_path):
    with pytest.raises(CommandError, match="does not exist"):
        export(output=str(tmp_path / "no" / "such" / "library.json"))


def test_timestamps_keep_their_instant(tmp_path):
    case = make_case("A-1", updated_at="2026-11-20T18:30:00+09:00")
    case["review"] = {
        "written_by": None,
        "reviewed_by": "mina",
        "reviewed_at": "2026-11-21T00:00:00.5+02:00",
    }
    import_cases(write_json(tmp_path / "a.json", case))
    value = json.loads(export("A-1"))[0]
    assert value["updated_at"] == "2026-11-20T09:30:00Z"
    assert value["review"]["reviewed_at"] == "2026-11-20T22:00:00.500000Z"


def test_reviewer_without_an_account_keeps_the_name(tmp_path, django_user_model):
    django_user_model.objects.create_user("mina")
    with_account = make_case("A-1")
    with_account["review"] = {
        "written_by": None,
        "reviewed_by": "mina",
        "reviewed_at": "2026-11-21T00:00:00Z",
    }
    without = make_case("A-2")
    without["review"] = {
        "written_by": None,
        "reviewed_by": "Ghost Reviewer",
        "reviewed_at": "2026-11-21T00:00:00Z",
    }
    write_json(tmp_path / "run.json", [with_account, without])
    import_cases(tmp_path / "run.json")
    values = {v["id"]: v for v in json.loads(export())}
    assert values["A-1"]["review"]["reviewed_by"] == "mina"
    assert values["A-2"]["review"]["reviewed_by"] == "Ghost Reviewer"
    from cases.models import Case

    assert Case.objects.get(id="A-1").reviewer.username == "mina"
    assert Case.objects.get(id="A-2").reviewer is None


def test_an_output_that_cannot_be_written_is_named_without_a_traceback(seeded, tmp_path):
    with pytest.raises(CommandError, match=f"^{tmp_path} is a folder: give the name of a file"):
        export(output=str(tmp_path))
    # A name the file system refuses (as a folder without write access refuses it).
    target = tmp_path / ("x" * 300 + ".json")
    with pytest.raises(CommandError, match="cannot be written: File name too long; nothing was"):
        export(output=str(target))
    assert [path.name for path in tmp_path.iterdir()] == ["seed.json"]


@pytest.mark.django_db(transaction=True)
def test_export_into_a_pipe_that_closes_early_ends_quietly(tmp_path):
    """`export_cases | head -c 100`: no BrokenPipeError traceback on the terminal."""
    import_cases(write_json(tmp_path / "run.json", [make_case(f"A-{n}") for n in range(300)]))
    env = dict(os.environ, DATABASE_URL=url_of_test_database())
    export_process = subprocess.Popen(
        [sys.executable, "manage.py", "export_cases"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert len(export_process.stdout.read(100)) == 100
    export_process.stdout.close()
    stderr = export_process.stderr.read().decode()
    assert export_process.wait(timeout=120) == 0
    assert stderr == ""
