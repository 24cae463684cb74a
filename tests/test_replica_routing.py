"""Every query of a request that reads a replica reaches that replica (incidentlib/routers.py),
raw SQL and snapshot transactions included, and none reaches the primary.

No replication is needed to see where queries go: "replica_1" is a second connection to the
test database, which the router's check takes for the primary itself (a mirror) and so reads.
The real replica's behaviour (lag, failures, pinning) is tests/test_replicas.py's.
"""

from contextlib import contextmanager

import pytest
from django.db import connections
from django.test.utils import CaptureQueriesContext

from incidentlib import routers

from .conftest import SEED, import_cases, run_worker, seed_case

SEED_CASE = seed_case()
PUBLIC_PAGES = (
    "/",
    "/cases/",
    "/cases/?q=storage",  # the search's counts (raw SQL) and the facet counts (raw SQL)
    "/cases/?q=the",  # a search of common words only: why it finds nothing (raw SQL)
    f"/cases/?q=timeout&severity={SEED_CASE['severity']}",
    "/cases/IL-0137",  # a snapshot; the case's version and its similar cases (raw SQL)
    "/cases/IL-0137.json",
    "/stats/",  # the years and durations (raw SQL)
    f"/diagnose/?root_cause={SEED_CASE['root_cause']}",  # the terms' weights (raw SQL)
    "/diagnose/?q=timeout",
    "/taxonomy/",
    "/orgs/",
    "/cases/IL-0137/both",
    "/sources/",
    f"/orgs/{SEED_CASE['org_slug']}/",
    f"/taxonomy/root_cause/{SEED_CASE['root_cause']}/",
    "/feed/",
    "/sitemap.xml",
    "/api/taxonomy/",
    "/api/cases/deleted/",  # its sync time too, from the server its answer is read from
)


@contextmanager
def mirror_as_replica(settings):
    """Django's "replica_1": one more connection to the test database, read for public pages
    (made here, as Django's tests allow a connection of their own beside their databases)."""
    default = connections["default"]
    replica = type(default)(dict(default.settings_dict), alias="replica_1")
    connections["replica_1"] = replica
    settings.INCIDENTLIB_REPLICAS = ["replica_1"]
    settings.INCIDENTLIB_REPLICA_CHECK_SECONDS = 3600  # checked once, at the first request
    routers.health.forget()
    try:
        yield
    finally:
        replica.close()
        del connections["replica_1"]
        routers.health.forget()


def read_from_the_replica_alone(client, path):
    with (
        CaptureQueriesContext(connections["default"]) as on_primary,
        CaptureQueriesContext(connections["replica_1"]) as on_replica,
    ):
        response = client.get(path)
    assert response.status_code == 200, path
    assert response.wsgi_request.database == "replica_1", path
    assert [query["sql"] for query in on_primary] == [], path
    assert on_replica, path


@pytest.mark.django_db(transaction=True)
def test_every_query_of_a_public_page_reads_the_replica_chosen(client, settings):
    import_cases(SEED)
    with mirror_as_replica(settings):
        for path in PUBLIC_PAGES:
            read_from_the_replica_alone(client, path)
        run_worker()  # the case's similar cases kept: the page reads them (raw SQL)
        read_from_the_replica_alone(client, "/cases/IL-0137")


@pytest.mark.django_db(transaction=True)
def test_a_writer_reads_the_primary_for_every_query(client, settings):
    import_cases(SEED)
    with mirror_as_replica(settings):
        client.cookies[routers.WROTE_COOKIE] = "1"
        with CaptureQueriesContext(connections["replica_1"]) as on_replica:
            response = client.get("/cases/IL-0137")
        assert response.status_code == 200
        assert response.wsgi_request.database == "default"
        assert [query["sql"] for query in on_replica] == []


def test_replicas_need_the_router(settings):
    """A request said to read a replica must reach it: without ReplicaRouter among Django's
    routers, the app refuses to start instead."""
    from django.core.exceptions import ImproperlyConfigured
    from django.db import router

    settings.INCIDENTLIB_REPLICAS = ["replica_1"]
    saved = router.routers
    router.routers = []
    try:
        with pytest.raises(ImproperlyConfigured, match="DATABASE_ROUTERS"):
            routers.install()
    finally:
        router.routers = saved
