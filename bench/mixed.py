"""Benchmark: issue 35's read mix under writes (wrk, gunicorn), each phase beside the bare view.

    .venv/bin/python -m incidentlib.localdb .venv/bin/python bench/mixed.py --cases FILE
    .venv/bin/python -m incidentlib.localdb .venv/bin/python bench/mixed.py --reuse
    .venv/bin/python bench/mixed.py --database-url postgres://.../incidentlib_pages

The library and the server are bench/pages.py's (the same options: --cases FILE loads a fresh
<DATABASE_URL's name>_pages, --reuse serves it again; gunicorn in production mode, 2 sync
workers, Redis database 15 unless --no-redis).

The mix, made once from --seed (the same requests in the same order every run), is a list of
--requests paths that wrk's connections walk through, each from its own place in it:
- 70% case pages, chosen by a Zipf law (exponent --zipf) over the public cases' ids in an
  order shuffled by the seed (so popularity does not follow the id), 30% of them in Korean;
- 12% lists with one filter (a severity, a domain or a root cause) and a page from 1 to 5;
- 12% searches of one or two words from a small vocabulary (VOCABULARY);
- 3% the home page, 3% `/taxonomy/`.

Phases (--duration seconds each, --connections connections): no writes; a write every 5 s;
a write every 1 s. A write is one UPDATE of one case's English title (a case chosen by the
same Zipf law, from its own seeded stream), made by this process through Django's ORM, as
any writer. Before each phase the bare view (/bench/bare) is measured for as long: on a shared
machine the load drifts, so each phase is compared with the bare view measured beside it.

Similar cases (cases/discover/kept.py): the worker keeps each case's; --keep-similar N makes
those of the mix's N most asked cases that are not kept yet, before serving, as a worker that
has caught up would have (it prints the time a list took, and the share of the mix's case
pages whose list is kept). --without-kept-similar sets the kept lists aside for the run (the
table renamed, and put back at the end): each page then finds its own, as before the worker
kept them.

With --by-part the server logs each request (LOG_LEVEL=INFO, its JSON lines), and each phase
also gets a table of where the server's time went: per part of the mix (a case page, in
English or Korean, a list, a search, the rest) and X-Cache, the requests, their mean and p95
time and their share of the phase's time (logging costs the mix a little throughput).

Reports, per phase: requests a second, p50/p95/p99 latency, errors (status >= 400 and socket
errors), the share of answers served from the cache (X-Cache: hit among hit and miss), the
mix's requests a second as a fraction of the bare view's and of the no-write phase's.
The titles are put back at the end.
"""

import argparse
import contextlib
import json
import os
import random
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from bisect import bisect
from itertools import accumulate
from pathlib import Path
from urllib.parse import quote, urlencode

from common import ROOT
from pages import Gunicorn, get, library_url, server_env

MIX_SCRIPT = ROOT / "bench" / "wrk_mix.lua"

# Words of the generated library's texts (bench/generate_words.py's TERMS), common and rare.
VOCABULARY = [
    "storage", "network", "database", "configuration", "timeout", "cache", "metadata",
    "replication", "certificate", "failover", "disk", "DNS", "deployment", "queue", "memory",
    "latency", "scheduler", "quota", "kernel", "backup", "스토리지", "네트워크", "캐시",
    "타임아웃", "인증서",
]  # fmt: skip
# The facets a list is filtered by; the most used terms of each, from the library.
LIST_FACETS = ("severity", "domain", "root_cause")
TERMS_PER_FACET = 4
PHASES = [("no writes", None), ("a write every 5 s", 5.0), ("a write every 1 s", 1.0)]


def zipf_chooser(rng, count, exponent):
    """A function giving ranks 0..count-1 by a Zipf law of `exponent`."""
    weights = accumulate(1 / (rank**exponent) for rank in range(1, count + 1))
    cumulative = list(weights)
    total = cumulative[-1]
    return lambda: min(bisect(cumulative, rng.random() * total), count - 1)


def list_filters():
    """{facet: the slugs of its most used terms}."""
    from django.db.models import Count

    from cases.models import Term

    return {
        facet: list(
            Term.objects.filter(facet=facet)
            .annotate(uses=Count("case_links"))
            .order_by("-uses", "slug")
            .values_list("slug", flat=True)[:TERMS_PER_FACET]
        )
        for facet in LIST_FACETS
    }


def make_mix(ids, filters, args):
    """The paths of the mix, in order (see the module's docstring)."""
    rng = random.Random(args.seed)
    order = sorted(ids)
    rng.shuffle(order)
    rank = zipf_chooser(rng, len(order), args.zipf)
    paths = []
    for _ in range(args.requests):
        draw = rng.random()
        if draw < 0.70:
            case = order[rank()]
            paths.append(f"/cases/{case}?lang=ko" if rng.random() < 0.30 else f"/cases/{case}")
        elif draw < 0.82:
            name = rng.choice(sorted(filters))
            params = {name: rng.choice(filters[name]), "page": rng.randint(1, 5)}
            paths.append(f"/cases/?{urlencode(params)}")
        elif draw < 0.94:
            words = rng.sample(VOCABULARY, rng.choice((1, 2)))
            paths.append(f"/cases/?{urlencode({'q': ' '.join(words)}, quote_via=quote)}")
        elif draw < 0.97:
            paths.append("/")
        else:
            paths.append("/taxonomy/")
    return order, paths


class Writer(threading.Thread):
    """One UPDATE of a case's English title every `interval` seconds, until stopped."""

    def __init__(self, order, interval, args, titles):
        super().__init__(daemon=True)
        self.order, self.interval, self.titles = order, interval, titles
        self.rng = random.Random(args.seed + 1)
        self.rank = zipf_chooser(self.rng, len(order), args.zipf)
        self.stopped = threading.Event()
        self.writes = 0
        self.slowest = 0.0

    def run(self):
        from django.db import connection

        from cases.models import Case

        try:
            next_at = time.monotonic() + self.interval
            while not self.stopped.wait(max(0.0, next_at - time.monotonic())):
                case = self.order[self.rank()]
                if case not in self.titles:
                    self.titles[case] = Case.objects.get(id=case).title_en
                started = time.perf_counter()
                title = f"{self.titles[case]} (bench write {secrets.token_hex(3)})"
                Case.objects.filter(id=case).update(title_en=title)
                self.slowest = max(self.slowest, time.perf_counter() - started)
                self.writes += 1
                next_at += self.interval
        finally:
            connection.close()

    def stop(self):
        self.stopped.set()
        self.join()


def run_wrk(base, duration, connections, paths_file=None, path="/bench/bare"):
    """wrk's figures (bench/wrk_mix.lua), over the mix's paths or one path."""
    env = {**os.environ, "MIX_PATHS": str(paths_file or "")}
    command = [
        "wrk", f"-t{min(2, connections)}", f"-c{connections}", f"-d{duration}s",
        "--latency", "-s", str(MIX_SCRIPT), base + path,
    ]  # fmt: skip
    output = subprocess.run(command, capture_output=True, text=True, check=True, env=env).stdout
    line = next(line for line in output.splitlines() if line.startswith("WRK "))
    return {key: float(value) for key, value in (pair.split("=") for pair in line.split()[1:])}


def warm_up(base, paths, seconds):
    """Ask each distinct path of the mix's first part once, for at most `seconds`: the run
    measures a server in use, not one just started."""
    deadline = time.monotonic() + seconds
    seen = set()
    for path in paths:
        if time.monotonic() > deadline:
            break
        if path not in seen:
            seen.add(path)
            get(base, path)
    return len(seen)


def redis_held(env):
    """(keys, bytes) this run's cache keys hold in Redis (its own prefix)."""
    import redis

    client = redis.Redis.from_url(env["REDIS_URL"])
    keys = size = 0
    for key in client.scan_iter(match=f"{env['CACHE_KEY_PREFIX']}*", count=1000):
        keys += 1
        size += client.memory_usage(key) or 0
    return keys, size


def keep_similar(order, paths, count):
    """Keep the similar cases of the `count` most asked cases not kept yet; print what it took
    and the share of the mix's case pages whose list is kept."""
    from cases.discover.kept import make
    from cases.models import SimilarCases

    wanted = order[:count]
    kept = set(SimilarCases.objects.filter(case_id__in=wanted).values_list("case_id", flat=True))
    missing = [case for case in wanted if case not in kept]
    started = time.perf_counter()
    for start in range(0, len(missing), 50):
        make(missing[start : start + 50])
    took = time.perf_counter() - started
    if missing:
        print(f"kept the similar cases of {len(missing)} cases in {took:.1f} s "
              f"({took / len(missing) * 1000:.0f} ms a case)")  # fmt: skip
    kept = set(SimilarCases.objects.values_list("case_id", flat=True))
    pages = [path.split("/cases/")[1].split("?")[0] for path in paths if is_case_page(path)]
    share = sum(case in kept for case in pages) / len(pages)
    print(f"similar cases kept for {len(kept)} cases: {share:.1%} of the mix's case pages")


def kind_of(path):
    """The part of the mix a request path is (mixed.py's make_mix)."""
    if is_case_page(path):
        return "case, ko" if "lang=ko" in path else "case"
    if path.startswith("/cases/?"):
        return "search" if "q=" in path else "list"
    return {"/?": "home", "/taxonomy/?": "taxonomy"}.get(path, "other")


def parts(lines):
    """Per part of the mix and X-Cache state, from the app's request log (JSON lines of
    incidentlib.request): requests, mean and p95 ms, and the share of the server's time."""
    times = {}
    for line in lines:
        if '"incidentlib.request"' not in line:
            continue
        entry = json.loads(line)
        path = entry["path"] + ("?" + entry["query"] if entry.get("query") else "")
        if path.startswith("/bench/"):
            continue
        key = (kind_of(path), entry.get("cache") or "-")
        times.setdefault(key, []).append(entry["duration_ms"])
    total = sum(sum(values) for values in times.values()) or 1
    rows = []
    for (kind, state), values in sorted(times.items()):
        values.sort()
        p95 = values[min(len(values) - 1, int(len(values) * 0.95))]
        rows.append((kind, state, len(values), sum(values) / len(values), p95,
                     sum(values) / total))  # fmt: skip
    return rows


def is_case_page(path):
    return path.startswith("/cases/") and not path.startswith("/cases/?")


class KeptSimilarAside:
    """The kept similar cases set aside (the table renamed, an empty one in its place), and
    put back at the end."""

    def __enter__(self):
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute("ALTER TABLE cases_similarcases RENAME TO bench_similarcases_aside")
            cursor.execute(
                "CREATE TABLE cases_similarcases (LIKE bench_similarcases_aside INCLUDING ALL)"
            )
        return self

    def __exit__(self, *exc):
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute("DROP TABLE cases_similarcases")
            cursor.execute("ALTER TABLE bench_similarcases_aside RENAME TO cases_similarcases")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--cases", metavar="FILE", help="load FILE into a fresh bench database")
    source.add_argument("--reuse", action="store_true", help="serve the last --cases database")
    source.add_argument("--database-url", help="serve this (migrated, loaded) database")
    parser.add_argument("--duration", type=int, default=30, help="seconds of wrk per run")
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn sync workers")
    parser.add_argument("--no-redis", action="store_true", help="each worker's memory as cache")
    parser.add_argument("--seed", type=int, default=35)
    parser.add_argument(
        "--by-part",
        action="store_true",
        help="log each request (LOG_LEVEL=INFO) and print each phase's time by part of the mix",
    )
    parser.add_argument("--zipf", type=float, default=1.1, help="exponent of the Zipf law")
    parser.add_argument("--requests", type=int, default=200_000, help="length of the mix")
    parser.add_argument("--warm", type=int, default=60, help="seconds of warm-up at most")
    parser.add_argument(
        "--keep-similar",
        type=int,
        default=0,
        metavar="N",
        help="keep the similar cases of the N most asked cases first",
    )
    parser.add_argument("--without-kept-similar", action="store_true",
                        help="set the kept similar cases aside for the run")  # fmt: skip
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    if not shutil.which("wrk"):
        sys.exit("wrk is missing: apt-get install wrk")

    database_url = library_url(args)
    env = server_env(database_url, redis=not args.no_redis) | {"LOG_LEVEL": "warning"}
    os.environ.update(env, DJANGO_SETTINGS_MODULE="incidentlib.settings")
    import django

    django.setup()
    from django.db import connection

    from cases.models import Case

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
        cursor.execute(
            "SELECT current_setting('shared_buffers'), pg_size_pretty(pg_database_size("
            "current_database()))"
        )
        buffers, size = cursor.fetchone()
    ids = list(Case.objects.published().values_list("id", flat=True))
    if not ids:
        sys.exit("The library is empty: load it with --cases FILE.")
    order, paths = make_mix(ids, list_filters(), args)
    print(f"library: {database_url} ({len(ids)} public cases, {size}; shared_buffers {buffers})")
    print(f"server: gunicorn, {args.workers} sync workers, cache: {env['REDIS_URL'] or 'memory'}")
    print(f"mix: seed {args.seed}, Zipf {args.zipf}, {len(paths)} requests, "
          f"{len(set(paths))} distinct paths")  # fmt: skip
    if args.keep_similar:
        keep_similar(order, paths, args.keep_similar)
    with open("/proc/loadavg") as load:
        print(f"load average before: {load.read().split()[:3]}", flush=True)

    titles = {}
    results = []
    aside = KeptSimilarAside() if args.without_kept_similar else contextlib.nullcontext()
    with (
        aside,
        tempfile.NamedTemporaryFile("w", prefix="bench-mix-", suffix=".txt") as paths_file,
    ):
        paths_file.write("\n".join(paths) + "\n")
        paths_file.flush()
        try:
            if args.by_part:
                env = {**env, "LOG_LEVEL": "INFO", "LOG_FORMAT": "json"}
            with Gunicorn(env, args.workers) as server:
                warmed = warm_up(server.base, paths, args.warm)
                print(f"warmed {warmed} distinct paths", flush=True)
                for name, interval in PHASES:
                    bare = run_wrk(server.base, args.duration, args.connections)
                    writer = Writer(order, interval, args, titles) if interval else None
                    logged = len(server.log_lines())
                    if writer:
                        writer.start()
                    try:
                        mix = run_wrk(
                            server.base, args.duration, args.connections, Path(paths_file.name)
                        )
                    finally:
                        if writer:
                            writer.stop()
                    with open("/proc/loadavg") as load:
                        loadavg = load.read().split()[0]
                    mix["parts"] = parts(server.log_lines()[logged:]) if args.by_part else []
                    results.append((name, mix, bare, writer, loadavg))
                    print(
                        f"  {name:<18} {mix['rps']:>7.1f} req/s (bare {bare['rps']:.0f}), "
                        f"writes {writer.writes if writer else 0}, load {loadavg}",
                        flush=True,
                    )
                if server.process.poll() is not None:
                    print(f"gunicorn died:\n{server.log_tail()}")
                errors_logged = server.log_lines()
        finally:
            for case, title in titles.items():
                Case.objects.filter(id=case).update(title_en=title)

    base_rps = results[0][1]["rps"]
    print(
        f"\n| phase | req/s | p50 ms | p95 ms | p99 ms | errors | cache hits | x bare "
        f"| bare req/s | x no writes | writes | load |\n|{'---|' * 12}"
    )
    for name, mix, bare, writer, loadavg in results:
        answered = mix["hits"] + mix["misses"]
        hit_rate = mix["hits"] / answered if answered else 0.0
        errors = int(mix["errors"] + mix["socket_errors"])
        print(
            f"| {name} | {mix['rps']:.1f} | {mix['p50']:.1f} | {mix['p95']:.1f} | "
            f"{mix['p99']:.1f} | {errors} | {hit_rate:.1%} | {mix['rps'] / bare['rps']:.3f} | "
            f"{bare['rps']:.0f} | {mix['rps'] / base_rps:.2f} | "
            f"{writer.writes if writer else 0} | {loadavg} |"
        )
    for name, mix, *_rest in results if args.by_part else ():
        print(f"\nThe server's time in '{name}', by part of the mix and X-Cache:\n\n"
              "| part | X-Cache | requests | mean ms | p95 ms | share of time |\n"
              f"|{'---|' * 6}")  # fmt: skip
        for kind, state, count, mean, p95, share in mix["parts"]:
            print(f"| {kind} | {state} | {count} | {mean:.1f} | {p95:.1f} | {share:.1%} |")
    if env["REDIS_URL"]:
        keys, size = redis_held(env)
        print(f"\nRedis held {keys} keys of this run, {size / 2**20:.1f} MiB (MEMORY USAGE)")
        import redis

        memory = redis.Redis.from_url(env["REDIS_URL"]).info("memory")
        print(f"Redis INFO memory (the whole server, shared): used_memory "
              f"{memory['used_memory'] / 2**20:.1f} MiB, peak "
              f"{memory['used_memory_peak'] / 2**20:.1f} MiB")  # fmt: skip
    others = [
        line
        for line in errors_logged
        if not line.startswith("Not Found:") and '"incidentlib.request"' not in line
    ]
    if others:
        print("\ngunicorn's log (the last lines):\n" + "".join(others[-40:]))


if __name__ == "__main__":
    main()
