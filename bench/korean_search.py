"""Benchmark: what the Korean query analyser (cases/listing/korean.py, Kiwi) costs a process.

    .venv/bin/python bench/korean_search.py [--repeat 200]

Prints the one-off cost of the first Korean search in a process (importing kiwipiepy and
making the analyser, then its first analysis, which reads more of the model: time and memory),
then each query's analysis: the first time (what a
search pays; the stems are then kept in an LRU cache) and when cached. A search with no
Hangul never loads the analyser; that path is timed too. Needs no database. Figures, not
assertions: compare the ratios of one run.
"""

import argparse
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cases.listing import korean  # noqa: E402  (after the path above)

# Searches a reader types: particles and endings (issue 9's eight), several words, a Latin
# word with a particle, bare words that are left as typed.
QUERIES = [
    "스토리지가",
    "파이프라인이",
    "포화시켰다",
    "메타데이터의",
    "네트워크를",
    "배포했다",
    "인증서가 만료되어",
    "디스크를 가득 채웠다",
    "S3가 느려졌다",
    "DNS 장애",
    "스토리지",
    "가",
]
LATIN_QUERY = "storage metadata saturated"


def peak_rss_mb():
    # ru_maxrss is in kilobytes on Linux.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def milliseconds(seconds):
    return f"{seconds * 1000:9.3f} ms"


def timed_once(function, *args):
    start = time.perf_counter()
    result = function(*args)
    return time.perf_counter() - start, result


def best_of(repeat, function, *args):
    best = float("inf")
    for _ in range(repeat):
        elapsed, _result = timed_once(function, *args)
        best = min(best, elapsed)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200, help="runs of each timing (best kept)")
    repeat = parser.parse_args().repeat

    latin, _ = timed_once(korean.stems, LATIN_QUERY)
    print(f"search without Hangul, analyser not loaded: {milliseconds(latin)}")

    before = peak_rss_mb()
    load, _ = timed_once(korean.analyser)
    print(
        f"analyser made (import kiwipiepy, Kiwi()), once a process: {milliseconds(load)}"
        f", peak memory {before:.0f} -> {peak_rss_mb():.0f} MB"
    )

    cold, _ = timed_once(korean.stems, QUERIES[0])
    # Kiwi reads part of its model on its first analysis, not when made: the first Korean
    # search of a process pays both.
    print(
        f"first query analysed after the load ({QUERIES[0]}): {milliseconds(cold)}"
        f", peak memory now {peak_rss_mb():.0f} MB"
    )

    print(f"\nper query, best of {repeat}: first analysis (uncached) | cached")
    for query in QUERIES:
        first = float("inf")
        for _ in range(repeat):
            korean.analysed.cache_clear()
            elapsed, stemmed = timed_once(korean.stems, query)
            first = min(first, elapsed)
        cached = best_of(repeat, korean.stems, query)
        print(f"  {query:<14} -> {stemmed:<14} {milliseconds(first)} | {milliseconds(cached)}")

    korean.analysed.cache_clear()
    start = time.perf_counter()
    for query in QUERIES:
        korean.stems(query)
    all_first = time.perf_counter() - start
    print(f"\nall {len(QUERIES)} queries once, uncached: {milliseconds(all_first)}")


if __name__ == "__main__":
    main()
