"""The worker (incidentlib/worker.py): jobs deferred with a write, run, retried, shown."""

import datetime
import signal
import subprocess
import sys
import time

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from procrastinate.contrib.django import app
from procrastinate.contrib.django.models import ProcrastinateJob
from prometheus_client import REGISTRY

from cases.models import Organisation
from incidentlib.worker import RETRY

from .conftest import ROOT, make_retries_due, run_worker, url_of_test_database

RAN = []


@app.task(name="tests.worker.name_organisation", retry=RETRY)
def name_organisation(slug):
    """A job that a write asks for: it writes in its turn, from the worker's process."""
    Organisation.objects.filter(slug=slug).update(name=f"{slug} (seen by the worker)")


@app.task(name="tests.worker.fail", retry=RETRY)
def fail():
    RAN.append(timezone.now())
    raise RuntimeError("the upstream is down")


def jobs(task):
    return ProcrastinateJob.objects.filter(task_name=task.name)


@pytest.mark.django_db(transaction=True)
def test_a_job_deferred_with_a_write_is_run_by_the_worker_and_none_for_a_write_undone():
    with transaction.atomic():
        Organisation.objects.create(slug="kept", name="kept")
        name_organisation.defer(slug="kept")
    with pytest.raises(RuntimeError), transaction.atomic():
        Organisation.objects.create(slug="undone", name="undone")
        name_organisation.defer(slug="undone")
        raise RuntimeError("the write fails")
    assert jobs(name_organisation).count() == 1  # the undone write's job went with it

    run_worker()

    assert Organisation.objects.get(slug="kept").name == "kept (seen by the worker)"
    assert list(jobs(name_organisation).values_list("status", flat=True)) == ["succeeded"]


def job_count(status):
    return REGISTRY.get_sample_value("incidentlib_jobs", {"status": status})


@pytest.mark.django_db(transaction=True)
def test_a_failing_job_is_retried_with_backoff_then_failed_and_shown(settings, client):
    RAN.clear()
    fail.defer()
    run_worker()
    job = jobs(fail).get()
    assert (job.status, job.attempts) == ("todo", 1)  # to be tried again, not at once
    assert job.scheduled_at > timezone.now() + datetime.timedelta(seconds=3)
    assert job_count("failed") == 0 and job_count("todo") == 1

    for _ in range(settings.INCIDENTLIB_JOB_RETRIES):
        make_retries_due()
        run_worker()
    job.refresh_from_db()
    assert len(RAN) == 1 + settings.INCIDENTLIB_JOB_RETRIES  # the first try, then the retries
    assert (job.status, job.attempts) == ("failed", settings.INCIDENTLIB_JOB_RETRIES + 1)
    assert job_count("failed") == 1 and job_count("todo") == 0

    # An operator sees it in the admin, failed, with its task's name.
    client.force_login(get_user_model().objects.create_superuser("operator", password="x" * 20))
    page = client.get("/admin/procrastinate/procrastinatejob/?status__exact=failed")
    assert page.status_code == 200
    assert b"tests.worker.fail" in page.content


@pytest.mark.django_db(transaction=True)
def test_make_runs_worker_stops_with_ctrl_c_beside_the_web_server(tmp_path):
    """`make run`'s servers (incidentlib/devrun.py): both up, both ended by one Ctrl-C."""
    import os
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "DATABASE_URL": url_of_test_database(), "DEBUG": "1"}
    with open(tmp_path / "log", "w") as output:
        servers = subprocess.Popen(
            [sys.executable, "-m", "incidentlib.devrun", f"127.0.0.1:{port}"],
            cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while b"procrastinate" not in _children(servers.pid) or not _answers(port):
            assert servers.poll() is None, (tmp_path / "log").read_text()
            assert time.monotonic() < deadline, (tmp_path / "log").read_text()
            time.sleep(0.3)
        time.sleep(1)  # the worker under way
        os.killpg(servers.pid, signal.SIGINT)  # Ctrl-C, to the whole group as a terminal
        servers.wait(timeout=30)
    finally:
        if servers.poll() is None:
            os.killpg(servers.pid, signal.SIGKILL)
    text = (tmp_path / "log").read_text()
    deadline = time.monotonic() + 10  # as .ci/run waits for `make run` to end
    while _children(servers.pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _children(servers.pid) == b"", text
    assert servers.returncode in (0, 256 - signal.SIGINT), text  # as runserver ends
    assert "Stopped worker" in text, text


def _children(pid):
    return subprocess.run(["pgrep", "-a", "-g", str(pid)], capture_output=True).stdout


def _answers(port):
    import urllib.request

    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as answer:
            return answer.status == 200
    except OSError:
        return False
