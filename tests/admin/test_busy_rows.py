"""An admin save never waits on a long import: while another transaction holds the case's
row, the form comes back at once, saying so, with the input kept; later the same save works."""

import threading
import time

import psycopg
import pytest
from django.test import Client

from cases.models import Case

from ..conftest import change_url, make_staff, open_case, url_of_test_database
from ..library import plain_case, store


@pytest.fixture
def a_case(transactional_db, tmp_path):
    store(tmp_path, plain_case("L-1"))
    return Case.objects.get(id="L-1")


class held_row:
    """Another session (an import's write phase) holding the case's row, at most 15 s (so
    that a save that waits for it is seen to wait, instead of hanging the test)."""

    def __init__(self, case_id):
        self.other = psycopg.connect(url_of_test_database())
        self.other.execute("SELECT id FROM cases_case WHERE id = %s FOR UPDATE", [case_id])
        self.timer = threading.Timer(15, self.close)
        self.timer.start()

    def close(self):
        self.timer.cancel()
        self.other.close()


def posted_while_held(client, url, data, held="L-1"):
    """(response, seconds waited) of a POST made while another session holds a case's row."""
    other = held_row(held)
    try:
        started = time.monotonic()
        response = client.post(url, data)
        return response, time.monotonic() - started
    finally:
        other.close()


def test_a_save_while_an_import_holds_the_case_is_refused_at_once_keeping_the_input(a_case):
    client = Client()
    client.force_login(make_staff("ed"))
    data = open_case(client, "L-1")
    data["title_en"] = "A title typed while the import ran"
    response, waited = posted_while_held(client, change_url("L-1"), data)
    assert response.status_code == 200  # the form again, not a 500 after a long wait
    assert waited < 10
    page = response.content.decode()
    assert "L-1 is being imported" in page and "Your input is kept below" in page
    assert "A title typed while the import ran" in page
    case = Case.objects.get(id="L-1")
    assert case.title_en == "An incident" and case.version == a_case.version
    # The import is over: the same form saves.
    saved = client.post(change_url("L-1"), data)
    assert saved.status_code == 302
    assert Case.objects.get(id="L-1").title_en == "A title typed while the import ran"


def test_a_bulk_approval_while_an_import_holds_a_case_says_so(a_case):
    client = Client()
    client.force_login(make_staff("rita", reviewer=True))
    other = held_row("L-1")
    try:
        response = client.post(
            "/admin/cases/case/",
            {
                "action": "approve_selected",
                "_selected_action": ["L-1"],
                "post": "yes",
                "version-L-1": str(a_case.version),
            },
            follow=True,
        )
    finally:
        other.close()
    assert response.status_code == 200
    assert "L-1 is being imported" in response.content.decode()
    assert Case.objects.get(id="L-1").is_draft


BUSY = "Another write (an import, most likely) holds what this one needs, so nothing was changed."


def test_deleting_a_case_or_renaming_its_organisation_while_an_import_holds_it_is_refused(a_case):
    """Not only saves and reviews: a deletion or a rename waited for the import's whole
    write phase, past the app server's timeout."""
    from django.contrib.auth import get_user_model

    from cases.models import Organisation

    client = Client()
    client.force_login(get_user_model().objects.create_superuser("root", password="x" * 20))
    organisation = Organisation.objects.get(cases__id="L-1")
    writes = [
        ("/admin/cases/case/L-1/delete/", {"post": "yes"}),
        (
            "/admin/cases/case/",
            {"action": "delete_selected", "_selected_action": ["L-1"], "post": "yes"},
        ),
    ]
    for url, data in writes:
        other = held_row("L-1")
        try:
            started = time.monotonic()
            response = client.post(url, data, follow=True)
            waited = time.monotonic() - started
        finally:
            other.close()
        assert waited < 10, url
        assert response.status_code == 200 and BUSY in response.content.decode(), url
        assert response.redirect_chain[-1][0] == url
    assert Case.objects.filter(id="L-1").exists()
    # A rename: the form again, saying so, with what was typed.
    rename = f"/admin/cases/organisation/{organisation.pk}/change/"
    typed = {"name": "Renamed while the import ran"}
    response, waited = posted_while_held(client, rename, typed)
    assert waited < 10
    page = response.content.decode()
    assert response.status_code == 200 and BUSY in page and "Your input is kept below" in page
    assert 'value="Renamed while the import ran"' in page
    assert Organisation.objects.get(pk=organisation.pk).name == organisation.name
    # The import over, the same rename goes through.
    assert client.post(rename, typed).status_code == 302
    assert Organisation.objects.get(pk=organisation.pk).name == "Renamed while the import ran"


def test_a_save_that_waits_at_commit_says_nothing_was_changed_and_only_that(a_case, tmp_path):
    """A case made a recurrence of one an import holds waits at COMMIT, where its foreign
    key is checked, after the admin has queued "was changed successfully": the form comes
    back without that message, saying nothing was changed, with the input kept."""
    store(tmp_path, plain_case("L-2"), name="second.json")
    client = Client()
    client.force_login(make_staff("ed"))
    data = open_case(client, "L-2")
    data["recurrence_of"] = "L-1"
    response, _waited = posted_while_held(client, change_url("L-2"), data)
    page = response.content.decode()
    assert response.status_code == 200 and BUSY in page
    assert "successfully" not in page
    assert Case.objects.get(id="L-2").recurrence_of_id is None


def row_held(case_id):
    """Whether another transaction holds the case's row (an import's write phase)."""
    with psycopg.connect(url_of_test_database()) as probe:
        try:
            probe.execute("SELECT id FROM cases_case WHERE id = %s FOR UPDATE NOWAIT", [case_id])
        except psycopg.errors.LockNotAvailable:
            return True
    return False


@pytest.mark.django_db(transaction=True)
def test_a_save_during_a_real_import_waits_for_the_row_as_long_as_the_manual_says(tmp_path):
    """An import in a process of its own rewrites 1,500 cases; a save of the first, made
    while the import holds it, waits LOCK_WAIT for its row and no more, and gives the form
    back, input kept. The page itself takes its time on top (3 to 4.5 s in all while the
    import loads the machine: bench/RESULTS.md), so docs/reviewing.md promises the wait, not a
    total it cannot keep (issue 33, point 7: it promised the form "within 2 seconds")."""
    import os
    import re
    import subprocess
    import sys

    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from cases.review.workflow import LOCK_WAIT

    from ..conftest import ROOT, write_json

    ids = [f"L-{n:04}" for n in range(1500)]
    store(tmp_path, *(plain_case(case_id) for case_id in ids))
    client = Client()
    client.force_login(make_staff("ed"))
    data = open_case(client, ids[0])
    data["title_en"] = "A title typed while the import ran"
    again = [plain_case(case_id, title={"en": "Imported again", "ko": None}) for case_id in ids]
    run = subprocess.Popen(
        [sys.executable, "manage.py", "import_cases", str(write_json(tmp_path / "b.json", again))],
        cwd=ROOT,
        env=dict(os.environ, DATABASE_URL=url_of_test_database()),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 300
        while not row_held(ids[0]):  # the first batch is held until the import commits
            assert run.poll() is None and time.monotonic() < deadline, run.communicate()
            time.sleep(0.05)
        started = time.monotonic()
        with CaptureQueriesContext(connection) as queries:
            response = client.post(change_url(ids[0]), data)
        answered_after = time.monotonic() - started
    finally:
        output = run.communicate(timeout=600)
    assert run.returncode == 0, output
    page = response.content.decode()
    # The import still holds the row when the wait ends (the save is refused as busy), or it
    # committed within the wait (a fast machine: the save then sees the case changed by the
    # import since the form was opened). Either way the form comes back, input kept, after a
    # wait of at most LOCK_WAIT for the row.
    busy = f"{ids[0]} is being imported" in page
    changed = f"{ids[0]} was changed by an import" in page
    assert response.status_code == 200 and (busy or changed), page
    assert "A title typed while the import ran" in page
    assert Case.objects.get(id=ids[0]).title_en == "Imported again"
    lock_wait = float(LOCK_WAIT.removesuffix("s"))
    (waited,) = [
        float(q["time"]) for q in queries.captured_queries if "FOR NO KEY UPDATE" in q["sql"]
    ]
    assert waited <= lock_wait + 0.5 and answered_after < 15
    if busy:
        assert lock_wait - 0.1 <= waited
    manual = (ROOT / "docs" / "reviewing.md").read_text(encoding="utf-8")
    assert "form is shown again within 2 seconds" not in manual
    assert f"waits at most {lock_wait:g} seconds for the case's row" in re.sub(r"\s+", " ", manual)
