"""The review in the exchange format: reviewed_by is a username, with or without an account."""

import pytest
from django.test import Client

from cases.models import Case

from .conftest import (
    change_url,
    exported,
    import_cases,
    logged_in,
    make_case,
    make_staff,
    open_case,
    write_json,
)

pytestmark = pytest.mark.django_db

REVIEW = {"written_by": "session", "reviewed_by": "ghost", "reviewed_at": "2026-10-01T08:00:00Z"}


def test_importing_a_reviewer_without_an_account_keeps_the_name(tmp_path):
    import_cases(write_json(tmp_path / "case.json", make_case("T-1", review=REVIEW)))
    case = Case.objects.get(pk="T-1")
    assert (case.reviewed_by, case.reviewer) == ("ghost", None)
    assert exported("T-1")["review"] == REVIEW


def test_importing_a_reviewer_with_an_account_links_the_account(tmp_path):
    ghost = make_staff("ghost", reviewer=True)
    import_cases(write_json(tmp_path / "case.json", make_case("T-1", review=REVIEW)))
    case = Case.objects.get(pk="T-1")
    assert (case.reviewed_by, case.reviewer) == ("ghost", ghost)
    assert exported("T-1")["review"] == REVIEW


def test_an_approval_in_the_admin_exports_the_reviewers_username(tmp_path):
    import_cases(write_json(tmp_path / "case.json", make_case("T-1")))
    client = logged_in(Client(), make_staff("rita", reviewer=True))
    client.post(change_url("T-1"), {**open_case(client, "T-1"), "_approve": "yes"})
    case = Case.objects.get(pk="T-1")
    review = exported("T-1")["review"]
    assert review["reviewed_by"] == "rita"
    assert review["reviewed_at"] == case.reviewed_at.isoformat().replace("+00:00", "Z")
    assert exported("T-1")["updated_at"] == review["reviewed_at"]


def test_a_deleted_reviewer_account_leaves_the_name(tmp_path):
    rita = make_staff("rita", reviewer=True)
    import_cases(
        write_json(
            tmp_path / "case.json", make_case("T-1", review={**REVIEW, "reviewed_by": "rita"})
        )
    )
    rita.delete()
    case = Case.objects.get(pk="T-1")
    assert (case.reviewed_by, case.reviewer) == ("rita", None)
    assert exported("T-1")["review"]["reviewed_by"] == "rita"
