"""Admin saves at the same moment as other writes: real requests, each in a thread with its
own database connection, on a database whose transactions commit.

An admin write takes its locks in one order (cases/review/workflow.py, "The order of an
admin write's locks"), so that two of them never wait for each other in a cycle: G-20 made
a recurrence of G-21 while G-21 was made a recurrence of G-20 deadlocked every time, and the
loser got the 503 page, its input lost. A deadlock that can still happen (with a write from
outside the admin) gives the form back, saying nothing was changed, with the input kept."""

import threading
import time

import psycopg
import pytest
from django.db import connections
from django.test import Client

from cases.models import Case

from ..conftest import change_url, make_staff, open_case, url_of_test_database
from ..library import plain_case, store

pytestmark = pytest.mark.django_db(transaction=True)

BUSY = "Another write (an import, most likely) holds what this one needs, so nothing was changed."
KEPT = "Your input is kept below"


def waiting_sessions():
    """How many sessions of the test database wait for a lock."""
    with psycopg.connect(url_of_test_database(), autocommit=True) as watcher:
        return watcher.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND wait_event_type = 'Lock'"
        ).fetchone()[0]


def wait_until(condition, seconds=30):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the writes never got there"
        time.sleep(0.02)


def in_thread(results, key, act):
    """`act()` in a thread of its own (with its own connection), its result in `results`."""

    def run():
        try:
            results[key] = act()
        finally:
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def editor_with_form(name, case_id, **changes):
    """A client logged in as a new editor, and the case's form as it would post it."""
    client = Client(raise_request_exception=False)  # a 500 or 503 as a browser gets it
    client.force_login(make_staff(name))
    data = open_case(client, case_id)
    data.update(changes)
    return client, data


def saved_at_once(saves):
    """{case id: response} of the saves {case id: (client, data)}, posted together and held
    at the library's generation row (which each takes at its commit, cases/migrations/)
    until all of them wait for a lock: then they go on at the same moment."""
    results = {}
    holder = psycopg.connect(url_of_test_database())
    try:
        holder.execute("SELECT generation FROM cases_library WHERE id = 1 FOR UPDATE")
        threads = [
            in_thread(
                results, case_id, lambda c=client, d=data, i=case_id: c.post(change_url(i), d)
            )
            for case_id, (client, data) in saves.items()
        ]
        wait_until(lambda: waiting_sessions() >= len(saves))
    finally:
        holder.rollback()
        holder.close()
    for thread in threads:
        thread.join(60)
    return results


@pytest.fixture
def two_cases(tmp_path):
    store(tmp_path, plain_case("G-20"), plain_case("G-21"))


def test_two_saves_making_each_case_a_recurrence_of_the_other_one_saves_one_is_refused(
    two_cases,
):
    results = saved_at_once(
        {
            "G-20": editor_with_form("ed", "G-20", recurrence_of="G-21", title_en="Typed by ed"),
            "G-21": editor_with_form("eve", "G-21", recurrence_of="G-20", title_en="Typed by eve"),
        }
    )
    statuses = sorted(response.status_code for response in results.values())
    assert statuses == [200, 302], statuses  # no 503: one saved, one given its form back
    saved = next(case_id for case_id, response in results.items() if response.status_code == 302)
    refused, typed_by = ("G-21", "eve") if saved == "G-20" else ("G-20", "ed")
    # Checked after the other's save committed: together they would loop.
    page = results[refused].content.decode()
    assert "The recurrence chain would loop back to this case." in page
    assert f"Typed by {typed_by}" in page and f'value="{saved}"' in page
    cases = {case.id: case for case in Case.objects.all()}
    assert cases[saved].recurrence_of_id == refused
    assert cases[refused].recurrence_of_id is None and cases[refused].title_en == "An incident"


def test_two_saves_relating_each_case_to_the_other_both_save(two_cases):
    """Each save's check of the case it names (a foreign key's, at COMMIT) does not wait for
    the other save's lock on that case."""
    results = saved_at_once(
        {
            "G-20": editor_with_form(
                "ed",
                "G-20",
                **{"related_links-TOTAL_FORMS": "1", "related_links-0-to_case": "G-21"},
            ),
            "G-21": editor_with_form(
                "eve",
                "G-21",
                **{"related_links-TOTAL_FORMS": "1", "related_links-0-to_case": "G-20"},
            ),
        }
    )
    assert {case_id: r.status_code for case_id, r in results.items()} == {"G-20": 302, "G-21": 302}
    assert [c.id for c in Case.objects.get(id="G-20").related.all()] == ["G-21"]
    assert [c.id for c in Case.objects.get(id="G-21").related.all()] == ["G-20"]


def test_a_save_that_deadlocks_with_a_write_from_outside_the_admin_gives_its_form_back(
    two_cases,
):
    """Another session (plain SQL) holds G-21 and then writes G-20, which the save of G-20,
    naming G-21, holds: PostgreSQL ends the save, not with the 503 page but with the form,
    nothing changed, the input kept; the same form saves a moment later."""
    client, data = editor_with_form("ed", "G-20", recurrence_of="G-21", title_en="Typed by ed")
    other = psycopg.connect(url_of_test_database())
    results = {}
    try:
        # The save waits for it first, so that PostgreSQL ends the save, not this session.
        other.execute("SET deadlock_timeout = '20s'")
        other.execute("SELECT id FROM cases_case WHERE id = 'G-21' FOR UPDATE")
        save = in_thread(results, "save", lambda: client.post(change_url("G-20"), data))
        wait_until(lambda: waiting_sessions() >= 1)
        other.execute("UPDATE cases_case SET title_en = title_en WHERE id = 'G-20'")
        save.join(60)
    finally:
        other.rollback()
        other.close()
    response = results["save"]
    page = response.content.decode()
    assert response.status_code == 200 and BUSY in page and KEPT in page
    assert "Typed by ed" in page
    assert "successfully" not in page
    case = Case.objects.get(id="G-20")
    assert case.recurrence_of_id is None and case.title_en == "An incident"
    assert client.post(change_url("G-20"), data).status_code == 302
    assert Case.objects.get(id="G-20").recurrence_of_id == "G-21"
