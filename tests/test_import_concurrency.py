"""Two imports at once, as two curators would run them: one waits for the other (the
importer's advisory lock, from its checks to its commit), so that the second updates what the
first created instead of creating it again (issue 12, point 5), and is checked against what
the first stored."""

import os
import subprocess
import sys
import time

import pytest
from django.db import connection, transaction

from cases.exchange.format import same_case
from cases.exchange.importer import IMPORT_LOCK
from cases.models import Case

from .conftest import ROOT, exported, url_of_test_database, write_json
from .library import plain_case, store

pytestmark = pytest.mark.django_db(transaction=True)

IDS = [f"N-{number:03}" for number in range(120)]


def version(case_id, letter):
    return plain_case(
        case_id,
        title={"en": f"Version {letter} of {case_id}", "ko": None},
        summary={"en": f"Summary {letter}.", "ko": f"요약 {letter}."},
        remediation=[{"text": {"en": f"Step {letter}{n}", "ko": None}} for n in range(2)],
        domain=["web"] if letter == "A" else ["ml", "web"],
    )


def waiting_for_the_import_lock():
    """How many sessions wait for the importer's advisory lock."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted "
            "AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
            "AND classid = 0 AND objid = %s AND objsubid = 1",
            [IMPORT_LOCK],
        )
        return cursor.fetchone()[0]


def test_two_imports_of_the_same_new_ids_at_once_create_then_update(tmp_path):
    files = {
        letter: write_json(tmp_path / f"{letter}.json", [version(i, letter) for i in IDS])
        for letter in "AB"
    }
    env = dict(os.environ, DATABASE_URL=url_of_test_database())
    with connection.cursor() as cursor:
        # Held here until both runs wait for it: then they race for it as two curators'
        # runs would.
        cursor.execute("SELECT pg_advisory_lock(%s)", [IMPORT_LOCK])
        runs = {
            letter: subprocess.Popen(
                [sys.executable, "manage.py", "import_cases", str(path)],
                cwd=ROOT,
                env=env,
                text=True,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )  # fmt: skip
            for letter, path in files.items()
        }
        try:
            deadline = time.monotonic() + 120
            while waiting_for_the_import_lock() < 2:
                assert time.monotonic() < deadline, "the imports never waited for the lock"
                assert all(run.poll() is None for run in runs.values()), {
                    letter: run.communicate() for letter, run in runs.items()
                }
                time.sleep(0.1)
        finally:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [IMPORT_LOCK])
    outputs = {letter: run.communicate(timeout=120) for letter, run in runs.items()}

    for letter, run in runs.items():
        stdout, stderr = outputs[letter]
        assert run.returncode == 0, stderr
        assert "Traceback" not in stderr and "IntegrityError" not in stderr, stderr
    said = {letter: stdout for letter, (stdout, _stderr) in outputs.items()}
    created = [letter for letter in "AB" if f"{len(IDS)} created, 0 updated" in said[letter]]
    updated = [letter for letter in "AB" if f"0 created, {len(IDS)} updated" in said[letter]]
    assert len(created) == len(updated) == 1 and created != updated, said

    # The library holds the later run's file exactly, each case at its second version.
    later = {case["id"]: case for case in (version(i, updated[0]) for i in IDS)}
    assert sorted(Case.objects.values_list("id", flat=True)) == IDS
    assert set(Case.objects.values_list("version", flat=True)) == {2}
    assert all(same_case(exported(case_id), later[case_id]) for case_id in IDS)


def import_in_a_process(path):
    return subprocess.Popen(
        [sys.executable, "manage.py", "import_cases", str(path)],
        cwd=ROOT,
        env=dict(os.environ, DATABASE_URL=url_of_test_database()),
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def test_a_run_started_while_another_writes_is_checked_against_what_that_one_stores(tmp_path):
    """Run 1 (this test's transaction, holding the importer's lock) makes RC-1 a recurrence
    of RC-2; run 2, started meanwhile, makes RC-2 a recurrence of RC-1. Checked before run 1
    committed, run 2 would pass, and the library would hold a loop that its own export could
    not be imported from."""
    store(tmp_path, plain_case("RC-1"), plain_case("RC-2"))
    run_2 = write_json(tmp_path / "run2.json", plain_case("RC-2", recurrence_of="RC-1"))
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [IMPORT_LOCK])
        Case.objects.filter(id="RC-1").update(recurrence_of="RC-2")
        run = import_in_a_process(run_2)
        deadline = time.monotonic() + 120
        while not waiting_for_the_import_lock():
            assert time.monotonic() < deadline, "the import never waited for the lock"
            assert run.poll() is None, run.communicate()
            time.sleep(0.1)
    stdout, stderr = run.communicate(timeout=120)

    assert run.returncode == 1, stdout + stderr
    assert "RC-2: recurrence_of: The recurrence chain would loop back" in stderr, stderr
    assert dict(Case.objects.values_list("id", "recurrence_of")) == {"RC-1": "RC-2", "RC-2": None}
