"""Benchmark: import speed, and the case page's cost as the library and a case grow.

    .venv/bin/python -m incidentlib.localdb .venv/bin/python bench/case_page.py [--sizes 100 1000]

Runs in its own database (<DATABASE_URL's name>_bench, recreated each run) and prints
figures; compare the ratios of one run, not seconds across runs or machines.
"""

import argparse
import copy
import json
import tempfile
import time
from pathlib import Path

from common import seed_case, timed, use_bench_database


def generated_cases(count, start, seed, extra_sources=0):
    cases = []
    for n in range(start, start + count):
        case = copy.deepcopy(seed)
        case["id"] = f"B-{n}"
        case["title"]["en"] = f"Benchmark case {n}: {seed['title']['en']}"
        case["sources"] = case["sources"] + [
            {
                "url": f"https://example.com/{n}/{k}",
                "kind": "blog",
                "license": None,
                "archived": None,
            }
            for k in range(extra_sources)
        ]
        cases.append(case)
    return cases


def clear(caches):
    for cache in caches.all(initialized_only=False):
        cache.clear()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs=2, default=[100, 1000])
    args = parser.parse_args()
    use_bench_database("bench")
    from django.core.cache import caches
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    seed = seed_case()
    client = Client(HTTP_HOST="localhost")
    small, large = args.sizes
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        loaded = 0
        for size in (small, large):
            path = Path(folder) / f"cases-{size}.json"
            path.write_text(
                json.dumps(generated_cases(size - loaded, loaded, seed)), encoding="utf-8"
            )
            started = time.perf_counter()
            call_command("import_cases", str(path), verbosity=0)
            import_seconds = time.perf_counter() - started
            per_case_ms = 1000 * import_seconds / (size - loaded)
            loaded = size
            big = Path(folder) / "big.json"
            big.write_text(
                json.dumps(generated_cases(1, 10**6, seed, extra_sources=200)), encoding="utf-8"
            )
            call_command("import_cases", str(big), verbosity=0)
            # The page as made, not as served from the cache (bench/pages.py measures that):
            # every cache emptied, Redis and this process's memory in front of it alike.
            page = timed(lambda: (clear(caches), client.get("/cases/B-0")), 20)
            big_page = timed(lambda: (clear(caches), client.get("/cases/B-1000000")), 20)
            clear(caches)
            with CaptureQueriesContext(connection) as queries:
                client.get("/cases/B-1000000")
            rows.append((size, per_case_ms, page * 1000, big_page * 1000, len(queries)))
    header = ("library", "import ms/case", "page ms", "200-source page ms", "queries")
    print(f"{header[0]:>8} {header[1]:>15} {header[2]:>8} {header[3]:>19} {header[4]:>8}")
    for size, per_case, page, big_page, queries in rows:
        print(f"{size:>8} {per_case:>15.2f} {page:>8.2f} {big_page:>19.2f} {queries:>8}")
    print(
        f"page time ratio, library {large} vs {small}: {rows[1][2] / rows[0][2]:.2f} (1.0 = flat)"
    )


if __name__ == "__main__":
    main()
