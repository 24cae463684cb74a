"""The import's files and folders: what it reads (folders without their hidden ones, any
suffix's case, an export) and how it names what it cannot read (a locked folder, a link loop,
a pipe, text not in UTF-8, an empty file, a taxonomy given as cases), never by a traceback."""

import json
import os
import stat
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from cases.models import Case

from .conftest import ROOT, import_cases, library_state, make_case, seed_case, write_json

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


def test_directories_are_searched_but_hidden_folders_are_not(tmp_path):
    (tmp_path / ".git").mkdir()
    write_json(tmp_path / ".git" / "old.json", make_case("H-1"))
    write_json(tmp_path / "visible.json", make_case("V-1"))
    import_cases(tmp_path)
    assert list(Case.objects.values_list("id", flat=True)) == ["V-1"]


def test_an_exported_file_is_readable_like_any_file_written(seeded, tmp_path):
    target = tmp_path / "library.json"
    call_command("export_cases", output=str(target), stderr=StringIO())
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask


def test_an_export_over_a_private_file_leaves_it_private(seeded, tmp_path):
    target = tmp_path / "drafts.json"
    target.write_text("[]")
    target.chmod(0o600)
    call_command("export_cases", output=str(target), stderr=StringIO())
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert json.loads(target.read_text())[0]["id"] == "IL-0137"


def test_file_suffixes_are_read_whatever_their_case(seeded, tmp_path):
    """export_cases writes JSON Lines to `library.JSONL`; a folder's import reads it back."""
    folder = tmp_path / "folder"
    folder.mkdir()
    call_command("export_cases", output=str(folder / "library.JSONL"), stderr=StringIO())
    assert (folder / "library.JSONL").read_text().count("\n") == 1  # one case, one line
    write_json(folder / "ANOTHER.JSON", make_case("A-1"))
    Case.objects.all().delete()
    import_cases(folder)
    assert sorted(Case.objects.values_list("id", flat=True)) == ["A-1", "IL-0137"]


def test_a_folder_that_cannot_be_read_is_named(tmp_path, library):
    if os.geteuid() == 0:
        pytest.skip("root reads every folder")
    (tmp_path / "locked").mkdir()
    write_json(tmp_path / "locked" / "a.json", make_case("A-1"))
    write_json(tmp_path / "b.json", make_case("B-1"))
    (tmp_path / "locked").chmod(0)
    try:
        errors = refused(tmp_path)
    finally:
        (tmp_path / "locked").chmod(0o755)
    assert f"{tmp_path / 'locked'}: cannot be read: Permission denied" in errors
    assert library_state() == library


def test_a_symbolic_link_loop_is_named(tmp_path, library):
    (tmp_path / "cases" / "sub").mkdir(parents=True)
    write_json(tmp_path / "cases" / "sub" / "a.json", make_case("A-1"))
    (tmp_path / "cases" / "sub" / "back").symlink_to(tmp_path / "cases")
    errors = refused(tmp_path / "cases")
    assert (
        f"{tmp_path / 'cases' / 'sub' / 'back'}: a symbolic link leads back to a folder "
        "already searched" in errors
    )
    assert library_state() == library


def test_an_unreadable_folder_is_reported_by_the_walk(tmp_path, monkeypatch):
    """As root (CI), no folder is unreadable: the walk's error is given to it instead."""
    from cases.exchange import file_search as files

    write_json(tmp_path / "a.json", make_case("A-1"))
    real_walk = os.walk

    def walk(top, onerror=None, followlinks=False):
        onerror(PermissionError(13, "Permission denied", str(tmp_path / "locked")))
        yield from real_walk(top, onerror=onerror, followlinks=followlinks)

    monkeypatch.setattr(files.os, "walk", walk)
    found, problems = files.collect_files([tmp_path])
    assert found == [tmp_path / "a.json"]
    assert [str(p) for p in problems] == [
        f"{tmp_path / 'locked'}: cannot be read: Permission denied"
    ]


def test_a_pipe_is_named_as_not_a_file(tmp_path, library):
    os.mkfifo(tmp_path / "pipe")
    err = refused(tmp_path / "pipe")
    assert f"{tmp_path / 'pipe'}: not a regular file (a pipe or a device)" in err
    assert "save it to a file first" in err and library_state() == library


def test_a_file_named_twice_is_read_once(tmp_path, library):
    (tmp_path / "cases").mkdir()
    path = write_json(tmp_path / "cases" / "a.json", make_case("A-1"))
    # Not "the id is defined twice in this run (first at a.json:1)".
    import_cases(tmp_path / "cases", path, tmp_path / "cases" / ".." / "cases" / "a.json")
    assert Case.objects.filter(id="A-1").exists()


def test_text_that_is_not_utf8_is_named_with_its_line_and_column(tmp_path, library):
    text = json.dumps(make_case("A-1"), indent=2).replace('"Lablup Inc"', '"Lablup \udce9"', 1)
    path = tmp_path / "latin1.json"
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    line = text[: text.index("\udce9")].count("\n") + 1
    column = len(text[: text.index("\udce9")].rsplit("\n", 1)[-1].encode()) + 1
    err = refused(path)
    offset = len(text[: text.index("\udce9")].encode()) + 1
    assert f"{path}:{line}:{column}: not UTF-8 text (byte {offset} of the file)" in err
    utf16 = tmp_path / "utf16.json"
    utf16.write_bytes(json.dumps(make_case("A-2")).encode("utf-16"))
    assert f"{utf16}: UTF-16 text, not UTF-8: save the file as UTF-8" in refused(utf16)
    assert library_state() == library


@pytest.mark.parametrize("name", ["empty.json", "blank.jsonl"])
def test_an_empty_file_is_said_to_be_empty(tmp_path, library, name):
    path = write_raw(tmp_path / name, "" if name.endswith(".json") else "\n  \n")
    err = refused(path)
    assert err.strip() == f"{path}: the file is empty: it holds no case"


def test_a_taxonomy_given_as_cases_is_one_line_that_says_what_to_do(tmp_path, library):
    err = refused(ROOT / "fixtures" / "taxonomy.json")
    assert err.strip().splitlines() == [
        f"{ROOT / 'fixtures' / 'taxonomy.json'}:2: a taxonomy term, not a case: this file "
        "looks like a taxonomy; load it with load_taxonomy"
    ]
    page = write_json(tmp_path / "page.json", {"total": 1, "results": [make_case("A-1")]})
    assert "a page of /api/cases/, not a case" in refused(page)
