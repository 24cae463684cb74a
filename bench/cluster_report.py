"""bench/cluster.py's report: a table row per wrk run, the failover run by phase, the mix."""

import os
import time

from cluster_watch import reads


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
