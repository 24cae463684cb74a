"""Following a Statuspage (ingest/): drafts from its incidents, incremental and idempotent."""

import json
import threading

import pytest
from django.core.management import call_command
from django.db import connections
from django.db.models import F
from prometheus_client import REGISTRY

from cases.exchange.format import case_to_exchange
from cases.models import Case
from ingest import polling
from ingest.models import FollowedSource, Item, ItemState

from .conftest import make_staff, run_worker

INCIDENTS = "/statuspage/api/v2/incidents.json"


def follow(served, name="github", history=False, **options):
    """Follow the stored GitHub example; without its history.atom unless asked."""
    if not history:
        served.files.pop("/statuspage/history.atom", None)
    call_command("follow_source", "statuspage", served.url("/statuspage"), name=name, **options)
    return FollowedSource.objects.get(name=name)


def poll(source):
    return polling.poll(FollowedSource.objects.get(pk=source.pk))


def incidents(served):
    return json.loads(served.files[INCIDENTS])


def publish(served, data):
    served.files[INCIDENTS] = json.dumps(data).encode()


@pytest.mark.django_db
def test_a_status_page_s_incidents_become_drafts_with_what_it_said(served):
    source = follow(served, licence="Statuspage terms")
    outcome = poll(source)
    assert (len(outcome.drafted), outcome.refused, outcome.error) == (3, [], "")
    item = Item.objects.get(item_id="6kmhq5cprqtg")
    case = case_to_exchange(Case.objects.for_page().get(pk=item.case_id))
    assert case["id"] == f"IN-{item.pk}"
    assert (case["org"], case["org_slug"]) == ("GitHub", "github")
    assert (case["date"], case["date_kind"]) == ("2018-10-21", "occurred")
    assert case["title"] == {"en": "Incident on 2018-10-21 23:09 UTC", "ko": None}
    assert case["summary"]["en"].startswith("On October 21 at 22:52 UTC, routine maintenance")
    assert case["symptoms_text"]["en"].splitlines() == [
        "2018-10-21 23:09 UTC, Investigating: We are investigating reports of elevated error "
        "rates. Some data shown on the site may be out of date.",
        "2018-10-22 21:03 UTC, Monitoring: Webhook delivery has caught up. Pages builds are "
        "still being processed from the backlog.",
        "2018-10-22 23:03 UTC, Resolved: All services are fully operational. We are continuing "
        "to investigate the root cause and will post a full analysis.",
    ]
    assert case["impact"]["scope"] == "Git Operations, Webhooks"
    assert (case["severity"], case["root_cause"]) == ("high", "unknown")
    assert case["timeline"]["resolved_after"] == "PT23H53M"
    assert case["sources"] == [
        {
            "url": "https://stspg.io/6kmhq5cprqtg",
            "kind": "postmortem",
            "license": "Statuspage terms",
            "archived": None,
        }
    ]
    assert case["review"] == {
        "written_by": "followed source github",
        "reviewed_at": None,
        "reviewed_by": None,
    }
    # Provenance: the source, the item's id, when it was fetched, the hash of what was read.
    assert (item.source_id, item.state, len(item.content_hash)) == (source.pk, "drafted", 64)
    assert item.read["title"] == "Incident on 2018-10-21 23:09 UTC" and item.fetched_at
    minor = case_to_exchange(
        Case.objects.for_page().get(pk=Item.objects.get(item_id="ry7hwbq4b2lc").case_id)
    )
    assert (minor["severity"], minor["sources"][0]["kind"]) == ("medium", "status-page")
    assert minor["summary"]["en"] == "This incident has been resolved."
    source.refresh_from_db()
    assert source.last_outcome.startswith("github: 3 drafted, 0 updated, 0 skipped")
    assert (source.runs, source.drafted, source.errors, source.items_listed) == (1, 3, 0, 3)


@pytest.mark.django_db
def test_only_incidents_of_the_impact_kept_and_with_a_postmortem_when_asked(served):
    outcome = poll(follow(served, min_impact="major"))
    assert (len(outcome.drafted), outcome.skipped) == (1, 2)
    outcome = poll(follow(served, name="pm", postmortem_only=True))
    assert len(outcome.drafted) == 1


@pytest.mark.django_db
def test_a_second_poll_asks_conditionally_and_drafts_nothing(served):
    source = follow(served)
    poll(source)
    drafts = Case.objects.count()
    outcome = poll(source)
    assert outcome.not_modified and Case.objects.count() == drafts
    path, headers = served.requests[-1]
    assert headers["If-None-Match"].startswith('"') and headers["If-Modified-Since"]
    assert headers["User-Agent"].startswith("incidentlib/")
    # The same content without a 304 (a server that ignores conditions): nothing either.
    FollowedSource.objects.filter(pk=source.pk).update(etag="", last_modified="")
    outcome = poll(source)
    assert not outcome.not_modified and outcome.drafted == outcome.updated == []
    assert "the same content as last time" in outcome.summary()
    # A changed body whose items are all unchanged: nothing drafted or updated either.
    data = incidents(served)
    data["page"]["updated_at"] = "2018-10-23T00:00:00.000Z"
    publish(served, data)
    outcome = poll(source)
    assert (outcome.drafted, outcome.updated, outcome.skipped) == ([], [], 3)
    assert Case.objects.count() == drafts


@pytest.mark.django_db
def test_a_changed_incident_updates_an_untouched_draft_and_flags_an_edited_one(served):
    source = follow(served)
    poll(source)
    untouched = Item.objects.get(item_id="ry7hwbq4b2lc")
    edited = Item.objects.get(item_id="zw4nhxv9kq1r")
    # A reviewer edits one draft (as the admin does: the version is raised).
    Case.objects.filter(pk=edited.case_id).update(
        title_en="Pages builds delayed (reviewed title)",
        version=F("version") + 1,
        changed_by="rita",
    )
    data = incidents(served)
    data["incidents"][1]["name"] = "Degraded performance for GitHub Actions runners"
    data["incidents"][2]["name"] = "Incident with GitHub Pages builds"
    publish(served, data)
    outcome = poll(source)
    assert outcome.updated == [untouched.case_id]
    assert outcome.flagged == ["zw4nhxv9kq1r"] and outcome.drafted == []
    assert Case.objects.get(pk=untouched.case_id).title_en == (
        "Degraded performance for GitHub Actions runners"
    )
    assert Case.objects.get(pk=edited.case_id).title_en == "Pages builds delayed (reviewed title)"
    edited.refresh_from_db()
    assert "-Incident with Pages" in edited.changed_at_source
    assert "+Incident with GitHub Pages builds" in edited.changed_at_source
    # Polled again unchanged: neither updated nor flagged again.
    FollowedSource.objects.filter(pk=source.pk).update(etag="", read_hash="")
    outcome = poll(source)
    assert outcome.updated == outcome.flagged == []


@pytest.mark.django_db
def test_a_dismissed_item_stays_dismissed_even_when_it_changes(served, admin_client):
    source = follow(served)
    poll(source)
    item = Item.objects.get(item_id="ry7hwbq4b2lc")
    case_id = item.case_id
    answer = admin_client.post(
        "/admin/ingest/item/", {"action": "dismiss", "_selected_action": [item.pk]}
    )
    assert answer.status_code == 302
    item.refresh_from_db()
    assert item.state == ItemState.DISMISSED and not Case.objects.filter(pk=case_id).exists()
    data = incidents(served)
    data["incidents"][1]["name"] = "Changed after the dismissal"
    publish(served, data)
    outcome = poll(source)
    assert outcome.drafted == outcome.updated == [] and not Case.objects.filter(pk=case_id).exists()
    # A draft deleted in the case admin is a dismissal too.
    other = Item.objects.get(item_id="zw4nhxv9kq1r")
    Case.objects.filter(pk=other.case_id).delete()
    data["incidents"][2]["name"] = "Changed after its draft was deleted"
    publish(served, data)
    outcome = poll(source)
    assert outcome.drafted == [] and Item.objects.get(pk=other.pk).state == ItemState.DISMISSED


@pytest.mark.django_db(transaction=True)
def test_two_pollers_at_once_draft_nothing_twice(served):
    source = follow(served)
    served.behave[INCIDENTS] = ("slow", 1)
    outcomes = []

    def poll_in_a_thread():
        try:
            outcomes.append(poll(source))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=poll_in_a_thread) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(len(outcome.drafted) for outcome in outcomes) == [0, 3]
    assert [outcome.busy for outcome in outcomes].count(True) == 1
    assert Item.objects.count() == 3 and Case.objects.count() == 3


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("behaviour", "message"),
    [
        (("status", 500), "the server answered 500 Internal Server Error"),
        (("status", 404), "the server answered 404 Not Found"),
        (("slow", 3), "timed out"),
        (("huge", 2_000_000), "larger than 1,000,000 bytes (INGEST_MAX_BYTES)"),
    ],
)
def test_a_failing_fetch_is_recorded_on_the_source_and_drafts_nothing(
    served, settings, behaviour, message
):
    settings.INGEST_TIMEOUT_SECONDS = 1
    settings.INGEST_MAX_BYTES = 1_000_000
    source = follow(served)
    served.behave[INCIDENTS] = behaviour
    outcome = poll(source)
    assert message in outcome.error
    source.refresh_from_db()
    assert message in source.last_error and source.errors_in_a_row == 1 and source.errors == 1
    assert source.next_poll_at > source.last_run_at  # put off: twice the interval
    assert Case.objects.count() == 0 and Item.objects.count() == 0


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"{not json", "Statuspage feed: not JSON"),
        (b'{"page": {}}', "Statuspage feed: `incidents` is missing or not a list"),
        (
            b'{"incidents": [{"id": "a", "name": "A", "started_at": "2024-01-01T00:00:00Z"},'
            b' {"id": "b", "name": "B", "started_at": "yesterday"}]}',
            "Statuspage feed: `incidents[1].started_at` is not a date ('yesterday')",
        ),
    ],
)
def test_a_malformed_feed_is_recorded_and_drafts_not_even_its_good_incidents(served, body, message):
    source = follow(served)
    served.files[INCIDENTS] = body
    outcome = poll(source)
    assert outcome.error.startswith(message)
    assert FollowedSource.objects.get(pk=source.pk).last_error.startswith(message)
    assert Case.objects.count() == 0


@pytest.mark.django_db
def test_a_source_listing_far_fewer_items_is_flagged_and_nothing_is_deleted(served):
    source = follow(served)
    poll(source)
    data = incidents(served)
    data["incidents"] = data["incidents"][:1]
    publish(served, data)
    outcome = poll(source)
    assert "listed far fewer items than before (flagged)" in outcome.summary()
    source.refresh_from_db()
    assert "listed 1 items, 3 at the run before" in source.shrunk
    assert Case.objects.count() == 3 and Item.objects.count() == 3


@pytest.mark.django_db
def test_poll_sources_prints_what_it_did_and_fails_when_a_source_failed(served, capsys):
    source = follow(served)
    call_command("poll_sources", "--once")
    assert "github: 3 drafted, 0 updated, 0 skipped" in capsys.readouterr().out
    call_command("poll_sources", "--source", "github")
    assert "github: not modified since the last run" in capsys.readouterr().out
    served.behave[INCIDENTS] = ("status", 503)
    FollowedSource.objects.filter(pk=source.pk).update(next_poll_at=source.created_at)
    with pytest.raises(Exception, match="1 of 1 sources ended in an error"):
        call_command("poll_sources", "--once")
    assert "the server answered 503" in capsys.readouterr().err
    with pytest.raises(Exception, match="--source: no source is named 'nope'"):
        call_command("poll_sources", "--source", "nope")


@pytest.mark.django_db
def test_follow_source_names_what_it_refuses(served):
    with pytest.raises(Exception, match="URL: Enter an http:// or https:// address"):
        call_command("follow_source", "statuspage", "ftp://example.com", name="x")
    with pytest.raises(Exception, match="--every: Ensure this value is greater than or equal"):
        call_command("follow_source", "statuspage", "https://example.com", name="x", every=0)
    assert not FollowedSource.objects.exists()


@pytest.mark.django_db
def test_each_source_s_runs_items_and_errors_are_counted_in_the_metrics(served):
    source = follow(served)
    poll(source)
    served.behave[INCIDENTS] = ("status", 500)
    poll(source)

    def value(name, **labels):
        return REGISTRY.get_sample_value(name, {"source": "github", **labels})

    assert value("incidentlib_ingest_runs_total") == 2
    assert value("incidentlib_ingest_errors_total") == 1
    assert value("incidentlib_ingest_items_total", outcome="drafted") == 3


@pytest.mark.django_db
def test_the_admin_shows_each_source_s_last_run_and_its_drafts(served, admin_client):
    source = follow(served)
    poll(source)
    page = admin_client.get("/admin/ingest/followedsource/").content.decode()
    assert "github: 3 drafted, 0 updated, 0 skipped" in page
    page = admin_client.get(f"/admin/ingest/followedsource/{source.pk}/change/").content.decode()
    assert "Last run" in page
    page = admin_client.get("/admin/ingest/item/?state=drafted").content.decode()
    assert "Incident on 2018-10-21 23:09 UTC" in page and "needs Korean" in page
    item = Item.objects.get(item_id="6kmhq5cprqtg")
    page = admin_client.get(f"/admin/ingest/item/{item.pk}/change/").content.decode()
    assert f"/admin/cases/case/{item.case_id}/change/" in page


@pytest.mark.django_db(transaction=True)
def test_the_worker_polls_due_sources_and_retries_a_failing_one(served):
    source = follow(served)
    served.behave[INCIDENTS] = ("status", 502)
    from ingest.tasks import poll_due_sources

    poll_due_sources.defer(timestamp=0)
    run_worker()
    source.refresh_from_db()
    assert "502" in source.last_error
    from procrastinate.contrib.django.models import ProcrastinateJob

    # (The worker's own periodic job may have asked for the due source once more meanwhile,
    # when its minute turned during the run: each such job fails and waits alike.)
    jobs = list(
        ProcrastinateJob.objects.filter(task_name="ingest.poll_source", args__source_id=source.pk)
    )
    assert jobs and {(job.status, job.attempts) for job in jobs} == {("todo", 1)}
    del served.behave[INCIDENTS]
    from .conftest import make_retries_due

    make_retries_due()
    run_worker()
    assert Case.objects.count() == 3
    assert {ProcrastinateJob.objects.get(pk=job.pk).status for job in jobs} == {"succeeded"}


@pytest.mark.django_db
def test_reviewers_may_follow_sources_and_dismiss_items_but_not_make_items(client):
    client.force_login(make_staff("rita", reviewer=True))
    assert client.get("/admin/ingest/followedsource/add/").status_code == 200
    assert client.get("/admin/ingest/item/").status_code == 200
    assert client.get("/admin/ingest/item/add/").status_code == 403


@pytest.mark.django_db
def test_at_most_ingest_max_items_a_run_the_rest_at_the_next(served, settings):
    settings.INGEST_MAX_ITEMS = 2
    source = follow(served)
    outcome = poll(source)
    assert len(outcome.drafted) == 2 and "1 items left for the next run" in outcome.summary()
    FollowedSource.objects.filter(pk=source.pk).update(etag="")  # as if the page moved on
    outcome = poll(source)
    assert (len(outcome.drafted), outcome.skipped) == (1, 2)
    assert Case.objects.count() == 3


@pytest.mark.django_db
def test_make_run_s_demo_source_drafts_from_the_example_the_site_serves(live_server, settings):
    """`make run` follows static/ingest/demo/ as served by the site itself (Makefile)."""
    settings.INGEST_ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
    call_command(
        "follow_source", "statuspage", f"{live_server.url}/static/ingest/demo", name="demo"
    )
    outcome = poll(FollowedSource.objects.get(name="demo"))
    assert len(outcome.drafted) == 2, outcome.summary()  # the API's, and history.atom's older
    assert Case.objects.get(pk=outcome.drafted[0]).title_en == "Incident on 2018-10-21 23:09 UTC"


@pytest.mark.django_db
def test_the_first_run_reads_history_atom_for_older_incidents(served):
    source = follow(served, history=True)
    outcome = poll(source)
    assert len(outcome.drafted) == 4  # the API's 3, and one older from history.atom only
    older = Item.objects.get(item_id="j6g0vk4h8x2m")
    case = case_to_exchange(Case.objects.for_page().get(pk=older.case_id))
    assert (case["title"]["en"], case["date"], case["org"]) == (
        "Elevated error rates on git operations", "2018-09-11", "GitHub",
    )  # fmt: skip
    assert case["symptoms_text"]["en"].splitlines() == [
        "Sep 11, 17:45 UTC, Investigating - We are investigating reports of elevated error "
        "rates on git operations.",
        "Sep 11, 18:32 UTC, Resolved - This incident has been resolved.",
    ]
    assert Item.objects.filter(item_id="6kmhq5cprqtg").count() == 1  # in both: once
    # Later runs read the API only.
    FollowedSource.objects.filter(pk=source.pk).update(etag="", read_hash="")
    poll(source)
    assert [path for path, _headers in served.requests].count("/statuspage/history.atom") == 1


@pytest.mark.django_db
def test_the_case_list_marks_each_draft_with_the_source_it_came_from(served, admin_client):
    poll(follow(served))
    page = admin_client.get("/admin/cases/case/?status=draft").content.decode()
    assert page.count("followed source github") == 3
