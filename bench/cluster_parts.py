"""What bench/cluster.py starts and drives: the primary's library (migrated and imported), a
redis-server of its own, the pages of the mix (picked from the library), and wrk."""

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
TAXONOMY = ROOT / "fixtures" / "taxonomy.json"
WRK_REPORT = BENCH / "wrk_report.lua"


def manage(database_url, *args):
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "DEBUG": "0",
        "REDIS_URL": "",  # never the shared Redis
        "DATABASE_REPLICA_URLS": "",
    }
    subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), *args],
        env=env, cwd=ROOT, check=True, stdout=subprocess.DEVNULL,
    )  # fmt: skip


class Redis:
    """A redis-server of our own on a free port, without persistence; stop() and start()."""

    def __init__(self, folder, port):
        self.folder, self.port, self.process = folder, port, None
        self.url = f"redis://127.0.0.1:{port}/0"

    def start(self):
        self.process = subprocess.Popen(
            ["redis-server", "--bind", "127.0.0.1", "--port", str(self.port), "--save", "",
             "--appendonly", "no", "--dir", str(self.folder), "--protected-mode", "yes"],
            stdout=open(Path(self.folder) / "redis.log", "a"), stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        import redis

        client = redis.Redis(host="127.0.0.1", port=self.port, socket_connect_timeout=1)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with contextlib.suppress(redis.RedisError):
                if client.ping():
                    return
            if self.process.poll() is not None:
                raise RuntimeError(f"redis-server exited: {self.process.returncode}")
            time.sleep(0.05)
        raise RuntimeError("redis-server did not answer within 20 s")

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def load_library(pair, cases):
    """Migrate and import FILE into the primary: (URL, seconds of the import). With --keep,
    a primary that already holds FILE's library (its name, size and time recorded in
    loaded.json) is only migrated: (URL, None)."""
    source = Path(cases).resolve()
    stamp = {"cases": str(source), "size": source.stat().st_size, "mtime": source.stat().st_mtime}
    loaded = pair.root / "loaded.json"
    if pair.keep and loaded.exists() and json.loads(loaded.read_text()) == stamp:
        url = pair.primary.url("incidentlib")
        manage(url, "migrate", "--no-input", "-v", "0")
        return url, None
    if pair.keep:
        loaded.unlink(missing_ok=True)
        pair.primary.sql('DROP DATABASE IF EXISTS "incidentlib"')
    url = pair.primary.create_database("incidentlib")
    manage(url, "migrate", "--no-input", "-v", "0")
    manage(url, "load_taxonomy", str(TAXONOMY), "-v", "0")
    started = time.perf_counter()
    manage(url, "import_cases", cases, "-v", "0")
    seconds = time.perf_counter() - started
    pair.primary.sql("ANALYZE", database="incidentlib")
    if pair.keep:
        loaded.write_text(json.dumps(stamp))
    return url, seconds


def pick_paths(database_url, args):
    """(name, path) of the pages of the mix, real ids, slugs and words from the library."""
    os.environ.update(
        DATABASE_URL=database_url,
        DATABASE_REPLICA_URLS="",
        REDIS_URL="",
        DEBUG="0",
        DJANGO_SETTINGS_MODULE="incidentlib.settings",
    )
    import django

    django.setup()
    import pages

    targets = pages.pick_targets(
        argparse.Namespace(rare_word=None, phrase="load balancer", word="timeout")
    )
    wanted = {
        "case, en", "case, ko", "case JSON", "home", "list", "list, page 50", "list, 2 filters",
        "search storage", "search rare word", "search phrase", "search Korean",
        "search + filter", "taxonomy", "term", "orgs", "org", "feed", "api", "api, filtered",
    }  # fmt: skip
    mix = [(name, path, None) for name, path in pages.pages(targets) if name in wanted]
    # A reader's language from Accept-Language, as in the previous figures (run 3 measures
    # ?lang= pages apart).
    case = f"/cases/{targets['case']}"
    mix = [(name, path, None) for name, path, _ in mix if not name.startswith("case, ")]
    mix[:0] = [("case, en", case, "en"), ("case, ko", case, "ko")]
    from django.db import connections

    connections.close_all()
    return targets, mix


def mix_script(folder, paths, app_share):
    """A wrk script: each request one of `paths` ((path, Accept-Language or None)) at random,
    `app_share` of them with a cookie of their own; and wrk_report.lua's summary at the end."""
    listed = ",\n".join(
        f"{{{json.dumps(path)}, {json.dumps(lang) if lang else 'nil'}}}" for path, lang in paths
    )
    script = Path(folder) / "mix.lua"
    script.write_text(
        f"local paths = {{\n{listed}\n}}\n"
        f"local app_share = {app_share}\n"
        "local sent = 0\n"
        "init = function(args)\n"
        "  math.randomseed(os.time() + math.floor(os.clock() * 1e6) + tostring({}):len())\n"
        "end\n"
        "request = function()\n"
        "  sent = sent + 1\n"
        "  local pick = paths[math.random(#paths)]\n"
        "  local headers = {}\n"
        "  if pick[2] then headers['Accept-Language'] = pick[2] end\n"
        "  if math.random() < app_share then\n"
        "    headers['Cookie'] = 'bench_reader=' .. sent .. '-' .. math.random(1, 1000000000)\n"
        "  end\n"
        "  return wrk.format('GET', pick[1], headers)\n"
        "end\n" + WRK_REPORT.read_text()
    )
    return script


def wrk_command(url, duration, connections, script):
    return [
        "wrk", "-t2", f"-c{connections}", f"-d{duration}s", "--timeout", "10s", "--latency",
        "-s", str(script), url,
    ]  # fmt: skip


def parse_wrk(output):
    line = next((line for line in output.splitlines() if line.startswith("WRK ")), None)
    if line is None:
        raise RuntimeError(f"wrk said:\n{output}")
    return {key: float(value) for key, value in (pair.split("=") for pair in line.split()[1:])}


def run_wrk(url, duration, connections, script, stack):
    process = subprocess.Popen(
        wrk_command(url, duration, connections, script),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
    )  # fmt: skip
    stack.callback(stop_process, process)
    return process


def stop_process(process):
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
