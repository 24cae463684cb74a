"""Benchmark: the case list, search, facet counts and the API as the library grows.

    .venv/bin/python -m incidentlib.localdb .venv/bin/python bench/search_bench.py

Sizes default to 1000 and 10000 (`--sizes 1000 10000`). Runs in its own database
(<DATABASE_URL's name>_search_bench, recreated each run), imports
generated cases with varied words and tags, and prints each page's time and query count for
both sizes; compare the ratios of one run, not seconds across runs or machines. A rare word
should cost about the same at both sizes (the GIN index finds it); pages that count over the
whole selection (the unfiltered list's facets, a common word) grow with it.
"""

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

from common import seed_case, timed, use_bench_database

ENGLISH = (
    "timeout retry storage metadata network partition certificate expiry queue backlog "
    "deploy rollback cache stampede dns resolver disk quota memory leak kernel panic "
    "database replication lag failover config push load balancer throttling"
).split()
KOREAN = (
    "스토리지의 메타데이터가 네트워크 장애 인증서 만료 배포 롤백 캐시 디스크 메모리 "
    "데이터베이스 복제 지연 설정 변경 부하 분산기"
).split()

PAGES = {
    "list": "/cases/",
    "list, filtered": "/cases/?severity=high&severity=critical&domain=web",
    "search, rare word": "/cases/?q=zanzibar7",
    "search, common word": "/cases/?q=storage",
    "search, Korean": "/cases/?q=메타데이터",
    "search + filters": "/cases/?q=timeouts&components=component-3&reviewed=yes",
    "home": "/",
    "taxonomy": "/taxonomy/",
    "api": "/api/cases/?domain=web",
}


def words(rng, vocabulary, count):
    return " ".join(rng.choice(vocabulary) for _ in range(count))


def generated_cases(seed, start, count):
    rng = random.Random(start)
    cases = []
    for n in range(start, start + count):
        case = json.loads(json.dumps(seed))
        case.update(
            id=f"B-{n}",
            date=f"{2000 + n % 26}-{1 + n % 12:02d}-01",
            org=f"Org {n % 300}",
            org_slug=f"org-{n % 300}",
            domain=[rng.choice(["web", "ml", "storage", "network", "payments"])],
            symptoms=rng.sample([f"symptom-{k}" for k in range(12)], 2),
            components=rng.sample([f"component-{k}" for k in range(30)], 3),
            contributing=rng.sample([f"factor-{k}" for k in range(15)], 2),
            severity=rng.choice(["low", "medium", "high", "critical", "unknown"]),
            root_cause=rng.choice([f"cause-{k}" for k in range(10)]),
            related=[],
            recurrence_of=None,
        )
        case["title"] = {
            "en": f"{words(rng, ENGLISH, 8)} zanzibar{n % 1000}",
            "ko": words(rng, KOREAN, 6),
        }
        case["summary"] = {"en": words(rng, ENGLISH, 120), "ko": words(rng, KOREAN, 80)}
        case["lessons"] = {"en": words(rng, ENGLISH, 60), "ko": words(rng, KOREAN, 40)}
        if n % 2:
            case["review"] = {
                "written_by": None,
                "reviewed_by": "bench",
                "reviewed_at": "2026-01-01T00:00:00Z",
            }
        cases.append(case)
    return cases


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs=2, default=[1000, 10000])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    use_bench_database("search_bench")
    from django.core.management import call_command
    from django.db import connection, reset_queries
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from cases.listing import search
    from cases.models import Case

    seed = seed_case()
    client = Client(HTTP_HOST="localhost")
    results = {}
    loaded = 0
    with tempfile.TemporaryDirectory() as folder:
        for size in args.sizes:
            path = Path(folder) / f"cases-{size}.jsonl"
            with path.open("w", encoding="utf-8") as out:
                for case in generated_cases(seed, loaded, size - loaded):
                    out.write(json.dumps(case, ensure_ascii=False) + "\n")
            started = time.perf_counter()
            call_command("import_cases", str(path), verbosity=0)
            print(f"imported {size - loaded} cases in {time.perf_counter() - started:.1f} s")
            loaded = size
            with connection.cursor() as cursor:
                cursor.execute("ANALYZE")
            for name, url in PAGES.items():
                reset_queries()  # with DEBUG on, a full query log would hide new queries
                with CaptureQueriesContext(connection) as queries:
                    status = client.get(url).status_code
                assert status == 200, (url, status)
                seconds = timed(lambda url=url: client.get(url), args.repeat)
                results[(name, size)] = (seconds * 1000, len(queries))
            plan = search.matching(Case.objects.order_by(), "zanzibar7").explain()
            print(f"plan for a rare word at {size} cases: {plan.splitlines()[0]}")
    small, large = args.sizes
    print(f"\n{'page':<22} {small:>9} ms {large:>9} ms {'ratio':>6} {'queries':>8}")
    for name in PAGES:
        (small_ms, small_queries), (large_ms, large_queries) = (
            results[(name, small)],
            results[(name, large)],
        )
        queries = f"{small_queries}/{large_queries}"
        print(
            f"{name:<22} {small_ms:>12.1f} {large_ms:>12.1f} "
            f"{large_ms / small_ms:>6.1f} {queries:>8}"
        )


if __name__ == "__main__":
    main()
