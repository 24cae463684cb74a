"""`manage.py create_reviewer USERNAME`: a staff account in the Reviewer group."""

import os
import subprocess
import sys
from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command

from ..conftest import ROOT, reviewer_group, url_of_test_database

PASSWORD = "correct horse battery staple"


def create_reviewer(*args, **options):
    call_command("create_reviewer", *args, verbosity=0, **options)


@pytest.mark.django_db
def test_creates_a_staff_reviewer_with_the_password_from_the_environment(monkeypatch):
    monkeypatch.setenv("INCIDENTLIB_REVIEWER_PASSWORD", PASSWORD)
    create_reviewer("rita", email="rita@example.org")
    rita = User.objects.get(username="rita")
    assert rita.is_staff and not rita.is_superuser
    assert rita.check_password(PASSWORD)
    assert rita.email == "rita@example.org"
    assert list(rita.groups.values_list("name", flat=True)) == ["Reviewer"]
    assert rita.has_perm("cases.review_case") and rita.has_perm("cases.change_case")


@pytest.mark.django_db
def test_the_reviewer_can_log_in_to_the_admin(client, monkeypatch):
    monkeypatch.setenv("INCIDENTLIB_REVIEWER_PASSWORD", PASSWORD)
    create_reviewer("rita")
    # Through the login form, as a reviewer logs in (login throttling needs the request).
    response = client.post("/admin/login/", {"username": "rita", "password": PASSWORD})
    assert response.status_code == 302
    assert client.get("/admin/cases/case/").status_code == 200


@pytest.mark.django_db
def test_an_existing_account_becomes_a_reviewer_and_keeps_its_password(monkeypatch):
    User.objects.create_user("rita", password="her own password")
    monkeypatch.setenv("INCIDENTLIB_REVIEWER_PASSWORD", PASSWORD)
    create_reviewer("rita")
    rita = User.objects.get(username="rita")
    assert rita.is_staff and rita.has_perm("cases.review_case")
    assert rita.check_password("her own password")


@pytest.mark.django_db
def test_running_it_twice_changes_nothing_more(monkeypatch):
    monkeypatch.setenv("INCIDENTLIB_REVIEWER_PASSWORD", PASSWORD)
    create_reviewer("rita")
    create_reviewer("rita")
    assert User.objects.filter(username="rita").count() == 1
    assert User.objects.get(username="rita").groups.count() == 1


@pytest.mark.django_db
def test_a_weak_password_is_refused_and_nothing_is_created(monkeypatch):
    monkeypatch.setenv("INCIDENTLIB_REVIEWER_PASSWORD", "rita")
    with pytest.raises(CommandError, match="The password was refused: "):
        create_reviewer("rita")
    assert not User.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "username, message",
    [
        ("rita smith", "Enter a valid username."),
        ("rita/", "Enter a valid username."),
        ("r" * 151, "Ensure this value has at most 150 characters (it has 151)."),
    ],
    ids=["space", "slash", "too-long"],
)
@pytest.mark.parametrize("dry_run", [False, True])
def test_a_username_the_user_model_refuses_is_refused(monkeypatch, username, message, dry_run):
    monkeypatch.setenv("INCIDENTLIB_REVIEWER_PASSWORD", PASSWORD)
    with pytest.raises(CommandError, match="^The username was refused: ") as refusal:
        create_reviewer(username, dry_run=dry_run)
    assert message in str(refusal.value)
    assert not User.objects.exists()


@pytest.mark.django_db
def test_an_inactive_account_is_made_active_again_and_a_reviewer(monkeypatch):
    User.objects.create_user("rita", password="her own password", is_active=False)
    monkeypatch.setenv("INCIDENTLIB_REVIEWER_PASSWORD", PASSWORD)
    stdout = StringIO()
    call_command("create_reviewer", "rita", stdout=stdout)
    assert stdout.getvalue() == (
        "rita had an inactive account, now active again and a reviewer; password unchanged.\n"
    )
    rita = User.objects.get(username="rita")
    assert rita.is_active and rita.is_staff and rita.has_perm("cases.review_case")
    assert rita.check_password("her own password")


@pytest.mark.django_db
def test_dry_run_says_what_it_would_do_and_creates_nothing(capsys):
    call_command("create_reviewer", "rita", dry_run=True)
    assert capsys.readouterr().out == (
        "Dry run, nothing written. Would create the reviewer rita.\n"
    )
    assert not User.objects.exists()


def run_command(*args, **env):
    base = {k: v for k, v in os.environ.items() if k != "INCIDENTLIB_REVIEWER_PASSWORD"}
    return subprocess.run(
        [sys.executable, "manage.py", "create_reviewer", *args],
        cwd=ROOT,
        env={**base, "DATABASE_URL": url_of_test_database(), **env},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.django_db(transaction=True)
def test_the_command_for_scripts_exits_0_and_says_what_it_did():
    reviewer_group()
    result = run_command("rita", INCIDENTLIB_REVIEWER_PASSWORD=PASSWORD)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "Created the reviewer rita."
    assert User.objects.get(username="rita").groups.filter(name="Reviewer").exists()


@pytest.mark.django_db(transaction=True)
def test_without_a_terminal_or_the_variable_it_exits_1_naming_the_variable():
    reviewer_group()
    result = run_command("rita")
    assert result.returncode == 1
    assert "No password: set INCIDENTLIB_REVIEWER_PASSWORD or run the command in a terminal." in (
        result.stderr
    )
    assert not User.objects.filter(username="rita").exists()
