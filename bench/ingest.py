"""Benchmark: polling followed sources (ingest/), on a local server, without internet.

    .venv/bin/python -m incidentlib.localdb .venv/bin/python bench/ingest.py
    .venv/bin/python -m incidentlib.localdb .venv/bin/python bench/ingest.py --sources 5

A local HTTP server (tests/ingest_server.py, with ETag and Last-Modified) holds N
Statuspage-shaped sources of M incidents each (made from the stored example,
tests/data/ingest/statuspage/). In a fresh database <DATABASE_URL's name>_ingest:

1. first poll: every source followed and polled once; drafts per second;
2. second poll, nothing changed: each source answers 304; its time, and the items read;
3. third poll, the server ignoring conditions (no ETag sent): the same bodies again; each
   run stops at the body's hash. Items read and SQL statements per source show that an
   unchanged source does no work per item.
"""

import argparse
import copy
import json
import sys
import time

from common import ROOT, use_bench_database

sys.path.insert(0, str(ROOT / "tests"))
EXAMPLE = ROOT / "tests" / "data" / "ingest" / "statuspage" / "api" / "v2" / "incidents.json"


def incidents_json(source, count):
    """A Statuspage answer of `count` incidents, each its own, from the stored example."""
    data = json.loads(EXAMPLE.read_text())
    data["page"]["name"] = f"Bench organisation {source}"
    model = data["incidents"][0]
    data["incidents"] = []
    for number in range(count):
        incident = copy.deepcopy(model)
        incident["id"] = f"s{source}i{number}"
        incident["name"] = f"Incident {number} of source {source}: elevated error rates"
        incident["shortlink"] = f"https://stspg.io/s{source}i{number}"
        data["incidents"].append(incident)
    return json.dumps(data).encode()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sources", type=int, default=50)
    parser.add_argument("--incidents", type=int, default=50)
    options = parser.parse_args()

    use_bench_database("ingest")
    from django.conf import settings
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from ingest_server import SourceServer

    from cases.models import Case
    from ingest import polling
    from ingest.models import FollowedSource

    settings.INGEST_ALLOWED_HOSTS = ["127.0.0.1"]
    server = SourceServer()
    for source in range(options.sources):
        path = f"/s{source}/api/v2/incidents.json"
        server.files[path] = incidents_json(source, options.incidents)
        FollowedSource.objects.create(
            name=f"bench-{source}", kind="statuspage", url=server.url(f"/s{source}")
        )
    sources = list(FollowedSource.objects.order_by("pk"))

    def poll_all():
        started = time.perf_counter()
        outcomes = [polling.poll(source) for source in sources]
        return time.perf_counter() - started, outcomes

    first, outcomes = poll_all()
    drafted = sum(len(outcome.drafted) for outcome in outcomes)
    assert drafted == Case.objects.count() == options.sources * options.incidents, drafted
    print(f"{options.sources} sources x {options.incidents} incidents, on a local server")
    print(f"first poll:  {drafted} drafts in {first:.1f} s: {drafted / first:.0f} drafts/s")

    with CaptureQueriesContext(connection) as queries:
        second, outcomes = poll_all()
    assert all(outcome.not_modified for outcome in outcomes)
    print(
        f"second poll (304): {second * 1000:.0f} ms for {len(sources)} sources, "
        f"{second * 1000 / len(sources):.1f} ms a source, "
        f"{len(queries) / len(sources):.0f} SQL statements a source, 0 items read"
    )

    FollowedSource.objects.update(etag="", last_modified="")
    sources = list(FollowedSource.objects.order_by("pk"))
    with CaptureQueriesContext(connection) as queries:
        third, outcomes = poll_all()
    assert all(o.drafted == o.updated == [] and o.skipped == 0 for o in outcomes)
    print(
        f"third poll (same bodies, no 304): {third * 1000:.0f} ms, "
        f"{third * 1000 / len(sources):.1f} ms a source, "
        f"{len(queries) / len(sources):.0f} SQL statements a source, 0 items read"
    )
    server.close()


if __name__ == "__main__":
    main()
