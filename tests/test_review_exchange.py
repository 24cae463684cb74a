"""The review in the exchange format: reviewed_by is a username, with or without an account."""

from html import unescape

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


# A review vouches for what it read: an import that changes it ---------------------------


def run_import(path, **options):
    """The command as a curator runs it: (its output, its warnings)."""
    from io import StringIO

    from django.core.management import call_command

    out, err = StringIO(), StringIO()
    call_command("import_cases", str(path), stdout=out, stderr=err, **options)
    return out.getvalue(), err.getvalue()


@pytest.fixture
def reviewed(tmp_path):
    """T-1, reviewed by ghost, as a file would give it again with its Korean lessons changed
    (and a later updated_at, so that the import does not refuse it as older)."""
    import_cases(write_json(tmp_path / "case.json", make_case("T-1", review=REVIEW)))
    case = exported("T-1")
    case["lessons"]["ko"] = "교훈을 고쳐 썼다."
    case["updated_at"] = "2026-12-01T00:00:00Z"
    return case


@pytest.mark.parametrize("dry_run", [False, True], ids=["import", "dry-run"])
def test_an_import_that_changes_reviewed_content_returns_the_case_to_draft(
    tmp_path, reviewed, dry_run
):
    before = exported("T-1")
    _out, err = run_import(write_json(tmp_path / "edited.json", reviewed), dry_run=dry_run)
    verb = "would return" if dry_run else "returned"
    assert (
        f"T-1: {verb} to draft: the import changes what the review by ghost "
        "(2026-10-01T08:00:00Z) vouched for (lessons.ko)"
    ) in err
    case = Case.objects.get(pk="T-1")
    if dry_run:
        assert exported("T-1") == before
    else:
        assert (case.reviewed_by, case.reviewed_at, case.reviewer) == (None, None, None)
        assert case.lessons_ko == "교훈을 고쳐 썼다."


def test_an_import_that_carries_a_newer_review_keeps_it(tmp_path, reviewed):
    reviewed["review"] = {**REVIEW, "reviewed_by": "rita", "reviewed_at": "2026-11-30T00:00:00Z"}
    _out, err = run_import(write_json(tmp_path / "edited.json", reviewed))
    assert (
        "T-1: kept the file's own review by rita (2026-11-30T00:00:00Z), newer than the "
        "library's (lessons.ko)"
    ) in err
    case = Case.objects.get(pk="T-1")
    assert (case.reviewed_by, exported("T-1")["review"]["reviewed_at"]) == (
        "rita",
        "2026-11-30T00:00:00Z",
    )


def test_an_import_that_only_reviews_or_changes_nothing_leaves_the_review(tmp_path, reviewed):
    case = exported("T-1")
    case["updated_at"] = "2026-12-01T00:00:00Z"
    _out, err = run_import(write_json(tmp_path / "same.json", case))
    assert "draft" not in err and Case.objects.get(pk="T-1").reviewed_by == "ghost"


def test_the_admin_history_shows_each_import_that_changed_the_case(client, tmp_path, reviewed):
    path = write_json(tmp_path / "edited.json", reviewed)
    run_import(path)
    reviewed["summary"]["en"] = "A corrected summary."
    reviewed["updated_at"] = "2026-12-02T00:00:00Z"
    run_import(write_json(tmp_path / "second.json", reviewed))
    run_import(tmp_path / "second.json")  # unchanged: no entry

    logged_in(client, make_staff("rita", reviewer=True))
    html = client.get("/admin/cases/case/T-1/history/").content.decode()
    assert "doesn’t have a change history" not in html
    rows = html[html.index('id="imported-changes"') :]
    rows = unescape(rows[: rows.index("</table>")])
    assert rows.count("<tr>") == 4  # the heading, the creation and two changes
    assert f"<code>{tmp_path / 'case.json'}</code>" in rows
    assert f"<code>{tmp_path / 'edited.json'}</code>" in rows
    assert "Created by the import." in rows
    assert (
        "Changed by the import: review.reviewed_at, review.reviewed_by, lessons.ko, updated_at. "
        "Returned to draft: the review did not cover the new content."
    ) in rows
    assert f"<code>{tmp_path / 'second.json'}</code>" in rows
    # The file still carries ghost's review, older than the library's version: not taken back.
    assert (
        "Changed by the import: summary.en, updated_at, translations. Left a draft: the file's "
        "review is older than the library's version it changes."
    ) in rows
    assert Case.objects.get(pk="T-1").is_draft
    korean = client.get("/admin/cases/case/T-1/history/", HTTP_ACCEPT_LANGUAGE="ko").content
    assert "가져오기로 바뀐 필드: summary.en, updated_at, translations." in korean.decode()
