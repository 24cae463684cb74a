"""Incremental sync: `updated_since` is the library's own time of each write (`changed_at`),
and every answer says the time to ask from next (`synced_at`)."""

import json

import psycopg
import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from cases.exchange.format import parse_timestamp
from cases.models import Organisation

from .conftest import url_of_test_database
from .library import REVIEWED, listed_ids, plain_case, store

pytestmark = pytest.mark.django_db

KEPT = "2020-05-06T07:08:09Z"


def since(client, moment, url="/api/cases/"):
    if isinstance(moment, str):
        moment = parse_timestamp(moment)
    return client.get(url, {"updated_since": moment.isoformat()})


def api_ids(response):
    return [case["id"] for case in response.json()["results"]]


def test_an_import_that_keeps_updated_at_is_found_by_updated_since(client, tmp_path):
    store(tmp_path, plain_case("S-1", updated_at=KEPT), plain_case("S-2", updated_at=KEPT))
    before_import = timezone.now()
    changed = plain_case("S-1", updated_at=KEPT, summary={"en": "Rewritten.", "ko": None})
    store(tmp_path, changed, name="changed.json")
    assert api_ids(since(client, before_import)) == ["S-1"]
    assert listed_ids(since(client, before_import, "/cases/").content.decode()) == ["S-1"]
    # The round trip still gives back the file's updated_at.
    case = client.get("/cases/S-1.json").json()
    assert case["updated_at"] == KEPT and case["summary"]["en"] == "Rewritten."


def test_the_synced_at_of_one_answer_finds_every_later_change(client, tmp_path):
    store(tmp_path, plain_case("S-1"), plain_case("S-2", updated_at=KEPT), plain_case("S-3"))
    first = client.get("/api/cases/").json()
    assert first["total"] == 3
    store(tmp_path, plain_case("S-2", updated_at=KEPT, title={"en": "B", "ko": None}), name="b")
    later = since(client, first["synced_at"]).json()
    assert "S-2" in api_ids_of(later)
    # Latest change first: a case changed while a sync pages through moves to page 1.
    assert api_ids_of(later)[0] == "S-2"


def api_ids_of(body):
    return [case["id"] for case in body["results"]]


def test_renaming_an_organisation_counts_as_a_change_of_its_cases(client, tmp_path):
    store(tmp_path, plain_case("S-1"), plain_case("S-2", org="Other", org_slug="other"))
    admin = get_user_model().objects.create_superuser("root", password="a long password 1")
    before = timezone.now()
    staff = Client()
    staff.force_login(admin)
    organisation = Organisation.objects.get(slug="example-org")
    response = staff.post(
        f"/admin/cases/organisation/{organisation.pk}/change/",
        {"name": "Example Organisation"},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    body = since(client, before).json()
    assert api_ids_of(body) == ["S-1"]
    assert body["results"][0]["org"] == "Example Organisation"
    # Its "last change" is the renaming, by whoever renamed (an import wrote S-1 before).
    from cases.models import Case

    assert Case.objects.get(id="S-1").changed_by == "root"
    assert Case.objects.get(id="S-2").changed_by is None


@pytest.mark.django_db(transaction=True)
def test_a_transaction_open_before_the_answer_holds_synced_at_back(tmp_path):
    store(tmp_path, plain_case("S-1"))
    with psycopg.connect(url_of_test_database()) as other:
        # Another session's transaction (a long import, say) is open: whatever it writes
        # may be timed from its start, so the answers may not claim to be complete past it.
        started = other.execute("SELECT now()").fetchone()[0]
        body = Client().get("/api/cases/").json()
        download = Client().get("/api/cases.jsonl")
        b"".join(download.streaming_content)
        other.rollback()
    assert parse_timestamp(body["synced_at"]) < started
    assert parse_timestamp(download["Incidentlib-Synced-At"]) < started
    after = Client().get("/api/cases/").json()
    assert parse_timestamp(after["synced_at"]) > started - timezone.timedelta(seconds=10)
    assert json.loads(b"".join(Client().get("/api/cases.jsonl").streaming_content))["id"] == "S-1"


@pytest.mark.django_db(transaction=True)
def test_a_case_changed_while_a_sync_pages_through_makes_it_skip_nothing(tmp_path):
    from cases.models import Case

    store(tmp_path, plain_case("S-1"), plain_case("S-2"), plain_case("S-3"))
    an_hour_ago = timezone.now() - timezone.timedelta(hours=1)
    Case.objects.update(changed_at=an_hour_ago)
    client = Client()
    seen = []
    page = client.get(
        "/api/cases/",
        {"updated_since": (an_hour_ago - timezone.timedelta(hours=1)).isoformat(), "per_page": 1},
    ).json()
    first_synced_at = page["synced_at"]
    seen += api_ids_of(page)
    # The case just read is changed (by an import) before the sync reads on.
    changed = plain_case(seen[0], title={"en": "Changed meanwhile", "ko": None})
    store(tmp_path, changed, name="changed.json")
    while page["next"]:
        page = client.get(page["next"]).json()
        seen += api_ids_of(page)
    assert set(seen) == {"S-1", "S-2", "S-3"}
    following = since(client, first_synced_at).json()
    assert [(c["id"], c["title"]["en"]) for c in following["results"]] == [
        (seen[0], "Changed meanwhile")
    ]


# Deletions: /api/cases/deleted/?since= -------------------------------------------------------


def deleted_since(client, moment, **params):
    if isinstance(moment, str):
        moment = parse_timestamp(moment)
    return client.get("/api/cases/deleted/", {"since": moment.isoformat(), **params})


def deleted_ids(response):
    assert response.status_code == 200, response.content
    return [deleted["id"] for deleted in response.json()["results"]]


@pytest.mark.django_db(transaction=True)
def test_a_copy_learns_of_cases_deleted_since_its_last_sync(tmp_path):
    from cases.models import Case

    store(tmp_path, plain_case("S-1"), plain_case("S-2"), plain_case("S-3"))
    client = Client()
    synced_at = client.get("/api/cases/").json()["synced_at"]
    Case.objects.get(id="S-2").delete()  # as the admin deletes
    with psycopg.connect(url_of_test_database()) as other:  # and plain SQL, in one transaction
        other.execute("DELETE FROM cases_caseterm WHERE case_id = 'S-3'")
        other.execute("DELETE FROM cases_case WHERE id = 'S-3'")

    answer = deleted_since(client, synced_at)
    assert deleted_ids(answer) == ["S-2", "S-3"] or deleted_ids(answer) == ["S-3", "S-2"]
    body = answer.json()
    assert body["total"] == 2 and parse_timestamp(body["synced_at"]) > parse_timestamp(synced_at)
    assert all(
        parse_timestamp(d["deleted_at"]) >= parse_timestamp(synced_at) for d in body["results"]
    )
    assert deleted_ids(answer)[0] == "S-3"  # latest first
    assert {"S-2", "S-3"}.isdisjoint(api_ids(since(client, synced_at)))  # nor can it say
    later = timezone.now() + timezone.timedelta(minutes=1)
    assert deleted_ids(deleted_since(client, later)) == []
    assert deleted_ids(client.get("/api/cases/deleted/")) == ["S-3", "S-2"]


@pytest.mark.django_db(transaction=True)
def test_a_case_made_again_is_no_longer_listed_as_deleted(tmp_path):
    from cases.models import Case

    store(tmp_path, plain_case("S-1"), plain_case("S-2"))
    client = Client()
    synced_at = client.get("/api/cases/").json()["synced_at"]
    Case.objects.filter(id="S-1").delete()
    assert deleted_ids(deleted_since(client, synced_at)) == ["S-1"]
    store(tmp_path, plain_case("S-1", title={"en": "Back again", "ko": None}), name="again.json")
    assert deleted_ids(deleted_since(client, synced_at)) == []
    made_again = since(client, synced_at).json()["results"]
    assert [case["title"]["en"] for case in made_again if case["id"] == "S-1"] == ["Back again"]


@pytest.mark.django_db(transaction=True)
def test_the_deletions_are_cached_until_a_write_and_answer_304(tmp_path):
    from cases.models import Case

    store(tmp_path, plain_case("S-1"), plain_case("S-2"))
    Case.objects.filter(id="S-1").delete()
    client = Client()
    first, second = (client.get("/api/cases/deleted/") for _ in range(2))
    assert (first["X-Cache"], second["X-Cache"]) == ("miss", "hit")
    assert "public" in first["Cache-Control"] and first["ETag"] == second["ETag"]
    assert client.get("/api/cases/deleted/", HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    Case.objects.filter(id="S-2").delete()
    again = client.get("/api/cases/deleted/", HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 200 and deleted_ids(again) == ["S-2", "S-1"]


@pytest.mark.django_db(transaction=True)
def test_the_deletions_are_paged_and_bad_parameters_refused(
    tmp_path, django_assert_max_num_queries
):
    from cases.models import Case

    store(tmp_path, *(plain_case(f"S-{n}") for n in range(1, 6)))
    Case.objects.all().delete()
    client = Client()
    # The library's state, the sync time, the snapshot (BEGIN, SET TRANSACTION, COMMIT), the
    # count and the page.
    with django_assert_max_num_queries(7):
        page = client.get("/api/cases/deleted/", {"per_page": 2}).json()
    seen = [d["id"] for d in page["results"]]
    while page["next"]:
        page = client.get(page["next"]).json()
        seen += [d["id"] for d in page["results"]]
    assert sorted(seen) == [f"S-{n}" for n in range(1, 6)] and page["total"] == 5

    bad = client.get("/api/cases/deleted/", {"since": "yesterday", "page": "0"})
    assert bad.status_code == 400 and set(bad.json()["parameters"]) == {"since", "page"}
    unknown = client.get("/api/cases/deleted/", {"updated_since": "2026-01-01T00:00:00Z"})
    assert unknown.status_code == 400 and "updated_since" in unknown.json()["parameters"]
    assert client.get("/api/cases/deleted/", {"page": 9}).status_code == 404
    assert client.post("/api/cases/deleted/").status_code == 405


@pytest.mark.django_db(transaction=True)
def test_with_hidden_drafts_a_case_returned_to_draft_is_listed_with_the_deleted(tmp_path, settings):
    from cases.models import Case
    from cases.review import workflow as review

    from .conftest import make_staff

    store(tmp_path, plain_case("S-1", review=dict(REVIEWED)), plain_case("S-2"))
    client = Client()
    synced_at = client.get("/api/cases/").json()["synced_at"]
    rita = make_staff("rita", reviewer=True)
    review.return_to_draft("S-1", rita, seen_version=str(Case.objects.get(id="S-1").version))
    assert deleted_ids(deleted_since(client, synced_at)) == []  # drafts are public
    settings.INCIDENTLIB_HIDE_DRAFTS = True
    # S-2 was never reviewed: the public never saw it, and a copy never had it.
    assert deleted_ids(deleted_since(client, synced_at)) == ["S-1"]
    assert api_ids(since(client, synced_at)) == []
    later = timezone.now() + timezone.timedelta(minutes=1)
    assert deleted_ids(deleted_since(client, later)) == []


@pytest.mark.django_db(transaction=True)
def test_with_hidden_drafts_no_draft_the_public_never_saw_is_named(tmp_path, settings):
    """Issue 33, point 10: deleted or changed, a draft never reviewed is not named by
    /api/cases/deleted/ when drafts are hidden (its id alone told of it); a case once
    reviewed is, even made again as a draft under the same id. With drafts public, every
    deletion is listed."""
    from cases.models import Case

    reviewed = {"review": dict(REVIEWED)}
    store(tmp_path, plain_case("S-1", **reviewed), plain_case("S-2"), plain_case("S-3"),
          plain_case("S-4", **reviewed))  # fmt: skip
    Case.objects.filter(id__in=["S-1", "S-2", "S-4"]).delete()
    store(tmp_path, plain_case("S-4"), name="again.json")  # made again, a draft
    Case.objects.filter(id="S-3").update(title_en="Edited, still a draft")
    client = Client()
    settings.INCIDENTLIB_HIDE_DRAFTS = True
    assert sorted(deleted_ids(client.get("/api/cases/deleted/"))) == ["S-1", "S-4"]
    settings.INCIDENTLIB_HIDE_DRAFTS = False
    assert sorted(deleted_ids(client.get("/api/cases/deleted/"))) == ["S-1", "S-2"]
