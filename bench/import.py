"""Benchmark: import_cases against a bare COPY of the same file, at growing sizes.

    .venv/bin/python -m incidentlib.localdb .venv/bin/python bench/import.py
    .venv/bin/python -m incidentlib.localdb .venv/bin/python bench/import.py --sizes 300 2000

For each size (default 10000 and 100000): the cases of bench/generate.py in
/tmp/bench-<size>.jsonl (generated anew, or reused when it is there and --reuse-files is
given), a fresh database <DATABASE_URL's name>_import_<size> (dropped, created, migrated,
the taxonomy of fixtures/taxonomy.json loaded), then, in that database,

- copy: `COPY tmp_jsonb(doc) FROM STDIN` of the file streamed in blocks, one row a line, into
  a one-column jsonb table (what psql's \\copy does; the floor of any import), then dropped;
- import: `manage.py import_cases FILE -v 0` as a subprocess, with its wall time and peak RSS.

Prints a table: seconds of each, import/copy, the import's peak RSS and cases per second. The
databases are kept (bench/pages.py --database-url can use them); compare the ratios of one
run, not seconds across runs or machines.
"""

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import psycopg
from common import ROOT, fresh_database, manage, manage_env

GENERATE = Path(__file__).resolve().parent / "generate.py"
TAXONOMY = ROOT / "fixtures" / "taxonomy.json"
BLOCK = 1 << 20
# CSV with a quote and a delimiter that JSON text never holds unescaped (json escapes control
# characters as \u0001), so each line goes in verbatim: text format would read backslashes.
COPY = "COPY tmp_jsonb(doc) FROM STDIN WITH (FORMAT csv, QUOTE e'\\x01', DELIMITER e'\\x02')"


def cases_file(size, reuse):
    path = Path(f"/tmp/bench-{size}.jsonl")
    if size % 1000 == 0:
        short = Path(f"/tmp/bench-{size // 1000}k.jsonl")
        if reuse and short.exists() and not path.exists():
            path = short
    if reuse and path.exists():
        print(f"reusing {path}", flush=True)
    else:
        subprocess.run([sys.executable, str(GENERATE), str(size), str(path)], check=True)
    return path


def bare_copy(database_url, path):
    """Seconds to COPY the file into a one-column jsonb table, and the rows copied."""
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS tmp_jsonb")
        conn.execute("CREATE TABLE tmp_jsonb (doc jsonb)")
        started = time.perf_counter()
        with conn.transaction(), conn.cursor() as cursor:
            with cursor.copy(COPY) as copy, path.open("rb") as source:
                while block := source.read(BLOCK):
                    copy.write(block)
        seconds = time.perf_counter() - started
        rows = conn.execute("SELECT count(*) FROM tmp_jsonb").fetchone()[0]
        conn.execute("DROP TABLE tmp_jsonb")
        conn.execute("CHECKPOINT")  # the import does not pay for the copy's dirty pages
    return seconds, rows


def measured_import(database_url, path):
    """(seconds, peak RSS in MB, exit status, stderr) of import_cases as a subprocess."""
    command = [sys.executable, str(ROOT / "manage.py"), "import_cases", str(path), "-v", "0"]
    started = time.perf_counter()
    child = subprocess.Popen(
        command, env=manage_env(database_url), cwd=ROOT, stderr=subprocess.PIPE, text=True
    )
    # wait4 gives this child's own resource usage (RUSAGE_CHILDREN would be the maximum
    # over every child so far, the migrations and earlier sizes included).
    try:
        stderr_reader = _drain(child.stderr)
        _pid, status, usage = os.wait4(child.pid, 0)
    except BaseException:
        child.kill()
        child.wait()
        raise
    seconds = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    stderr = stderr_reader()
    return seconds, usage.ru_maxrss / 1024, child.returncode, stderr


def _drain(stream):
    """Read a pipe in a thread (so that a chatty child never blocks); call the result to get
    the text once the child has ended."""
    import threading

    chunks = []
    reader = threading.Thread(target=lambda: chunks.append(stream.read()), daemon=True)
    reader.start()

    def text():
        reader.join()
        stream.close()
        return "".join(chunks)

    return text


def database_megabytes(database_url):
    with psycopg.connect(database_url) as conn:
        size = conn.execute("SELECT pg_database_size(current_database())").fetchone()[0]
    return size / 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10000, 100000])
    parser.add_argument(
        "--reuse-files",
        action="store_true",
        help="use /tmp/bench-<size>.jsonl (or /tmp/bench-<size/1000>k.jsonl) when present",
    )
    args = parser.parse_args()
    if not os.environ.get("DATABASE_URL"):
        sys.exit("DATABASE_URL is not set: run me through `python -m incidentlib.localdb`.")
    rows = []
    for size in args.sizes:
        path = cases_file(size, args.reuse_files)
        database_url = fresh_database(f"import_{size}")
        manage(database_url, "migrate", "--no-input", "-v", "0")
        manage(database_url, "load_taxonomy", str(TAXONOMY), "-v", "0")
        print(f"{size} cases, {path.stat().st_size / 1e6:.0f} MB: copying ...", flush=True)
        copy_seconds, copied = bare_copy(database_url, path)
        print(f"  copy: {copy_seconds:.1f} s ({copied} rows); importing ...", flush=True)
        seconds, rss, status, stderr = measured_import(database_url, path)
        print(f"  import: {seconds:.1f} s, exit status {status}", flush=True)
        if status != 0:
            print("  import_cases said:\n" + "\n".join(stderr.splitlines()[-20:]), flush=True)
        elif stderr.strip():
            lines = stderr.splitlines()
            shown = "\n    ".join(line[:200] for line in lines[:5])
            print(f"  import_cases' stderr ({len(lines)} lines):\n    {shown}")
        rows.append(
            (size, path, copy_seconds, seconds, rss, status, database_megabytes(database_url))
        )
        print(f"  database kept: {database_url}", flush=True)

    print()
    header = (
        f"{'cases':>8} {'file MB':>8} {'copy s':>8} {'import s':>9} {'import/copy':>12} "
        f"{'import RSS MB':>14} {'cases/s':>8} {'db MB':>7} {'status':>7}"
    )
    print(header)
    for size, path, copy_seconds, seconds, rss, status, db_mb in rows:
        print(
            f"{size:>8} {path.stat().st_size / 1e6:>8.0f} {copy_seconds:>8.1f} {seconds:>9.1f} "
            f"{seconds / copy_seconds:>12.1f} {rss:>14.0f} {size / seconds:>8.0f} "
            f"{db_mb:>7.0f} {'ok' if status == 0 else status:>7}"
        )


if __name__ == "__main__":
    main()
