"""The code's release (incidentlib/release.py): the same on every app server running the same
code, another after any change to what pages are made from, or the one RELEASE names."""

import os
import shutil
import subprocess
import sys

from incidentlib.release import PARTS, code_digest

from .conftest import ROOT


def a_copy_of_the_code(tmp_path):
    for part in PARTS:
        shutil.copytree(ROOT / part, tmp_path / part, ignore=shutil.ignore_patterns("*.pyc"))
    return tmp_path


def test_the_same_code_elsewhere_is_the_same_release(tmp_path):
    copy = a_copy_of_the_code(tmp_path)
    os.utime(copy / "templates" / "base.html", (0, 0))
    (copy / "cases" / "__pycache__").mkdir(exist_ok=True)
    (copy / "cases" / "__pycache__" / "models.cpython-311.pyc").write_bytes(b"compiled")
    assert code_digest(copy) == code_digest(ROOT)


def test_a_change_to_a_template_translation_style_or_module_is_another_release(tmp_path):
    copy = a_copy_of_the_code(tmp_path)
    before = code_digest(copy)
    changed = []
    for path in [
        "templates/base.html",
        "locale/ko/LC_MESSAGES/django.mo",
        "static/css/site.css",
        "cases/views.py",
    ]:
        with open(copy / path, "ab") as file:
            file.write(b"\n")
        changed.append(code_digest(copy))
    assert len({before, *changed}) == 5


def release_from(**env):
    result = subprocess.run(
        [sys.executable, "-c", "import incidentlib.settings as s; print(s.INCIDENTLIB_RELEASE)"],
        cwd=ROOT,
        env={k: v for k, v in os.environ.items() if k != "RELEASE"} | env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_release_names_it_else_the_code_does():
    assert release_from(RELEASE="2026.12.04-abc123") == "2026.12.04-abc123"
    assert release_from() == code_digest(ROOT)
