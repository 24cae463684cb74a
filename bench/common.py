"""What the benchmarks share: their own database, Django set up on it, and a best-of timer."""

import json
import os
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def use_bench_database(suffix):
    """DATABASE_URL to <its database>_<suffix>, dropped and created anew; Django set up on it."""
    import psycopg

    url = urlsplit(os.environ["DATABASE_URL"])
    name = f"{url.path.lstrip('/') or 'incidentlib'}_{suffix}"
    admin = urlunsplit(url._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    os.environ["DATABASE_URL"] = urlunsplit(url._replace(path="/" + name))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "incidentlib.settings")
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


def seed_case():
    return json.loads((ROOT / "fixtures" / "cases" / "IL-0137.json").read_text(encoding="utf-8"))


def timed(function, repeat):
    """The best of `repeat` runs, in seconds: the least disturbed by a noisy machine."""
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - started)
    return best


def fresh_database(suffix):
    """The URL of <DATABASE_URL's name>_<suffix>, dropped and created anew (empty, unmigrated);
    for benchmarks that run Django in subprocesses instead of in their own process."""
    import psycopg

    url = urlsplit(os.environ["DATABASE_URL"])
    name = f"{url.path.lstrip('/') or 'incidentlib'}_{suffix}"
    admin = urlunsplit(url._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return urlunsplit(url._replace(path="/" + name))


def manage_env(database_url):
    """The environment of a manage.py subprocess on `database_url`, without DEBUG (whose
    query log would grow with every query of a long command)."""
    return {**os.environ, "DATABASE_URL": database_url, "DEBUG": "0"}


def manage(database_url, *args, quiet=True):
    """Run `manage.py ARGS` on `database_url` in a subprocess (its stdout dropped when
    `quiet`, its stderr shown); raise if it fails."""
    import subprocess

    command = [sys.executable, str(ROOT / "manage.py"), *args]
    stdout = subprocess.DEVNULL if quiet else None
    subprocess.run(command, env=manage_env(database_url), cwd=ROOT, check=True, stdout=stdout)
