"""Editors edit cases; only reviewers (cases.review_case) approve them or return them to draft."""

import pytest
from django.contrib.admin.models import LogEntry

from cases.models import Case

from ..conftest import change_url, logged_in, open_case

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/cases/case/"


def review_of(case_id):
    case = Case.objects.get(pk=case_id)
    return case.reviewed_by, case.reviewer_id, case.reviewed_at


def test_reviewer_has_the_approve_button_and_the_review_actions(client, seeded, reviewer):
    logged_in(client, reviewer)
    form = client.get(change_url("IL-0137")).content.decode()
    assert 'name="_approve"' in form
    actions = client.get(CHANGELIST).content.decode()
    assert 'value="approve_selected"' in actions
    assert 'value="return_selected_to_draft"' in actions


def test_editor_has_neither_the_approve_button_nor_the_review_actions(client, seeded, editor):
    logged_in(client, editor)
    form = client.get(change_url("IL-0137")).content.decode()
    assert 'name="_approve"' not in form
    assert 'name="_return_to_draft"' not in form
    actions = client.get(CHANGELIST).content.decode()
    assert "approve_selected" not in actions
    assert "return_selected_to_draft" not in actions


@pytest.mark.parametrize("user", ["editor", "reviewer"])
def test_review_fields_are_read_only_for_everyone(client, seeded, user, request):
    logged_in(client, request.getfixturevalue(user))
    response = client.get(change_url("IL-0137"))
    form = response.context["adminform"].form
    html = response.content.decode()
    for name in ("reviewed_by", "reviewed_at", "reviewer"):
        assert name not in form.fields
        assert f'name="{name}"' not in html
        assert f"field-{name}" in html  # shown, as text


def test_editor_can_edit_the_content_of_a_case(client, seeded, editor):
    logged_in(client, editor)
    data = open_case(client, "IL-0137")
    data["title_en"] = "A better title"
    response = client.post(change_url("IL-0137"), data)
    assert response.status_code == 302
    assert Case.objects.get(pk="IL-0137").title_en == "A better title"


@pytest.mark.parametrize("button", ["_approve", "_return_to_draft"])
def test_editor_pressing_a_crafted_review_button_is_refused(client, seeded, editor, button):
    logged_in(client, editor)
    data = open_case(client, "IL-0137")
    data["title_en"] = "Changed along with the approval"
    data[button] = "yes"
    response = client.post(change_url("IL-0137"), data)
    assert response.status_code == 403
    case = Case.objects.get(pk="IL-0137")
    assert case.is_draft and case.title_en != "Changed along with the approval"
    assert not LogEntry.objects.exists()


def test_editor_posting_review_fields_changes_no_review(client, seeded, editor):
    logged_in(client, editor)
    data = open_case(client, "IL-0137")
    data.update(reviewed_by="ed", reviewed_at="2026-12-01 10:00:00", reviewer=str(editor.pk))
    response = client.post(change_url("IL-0137"), data)
    assert response.status_code == 302
    assert review_of("IL-0137") == (None, None, None)


@pytest.mark.parametrize("action", ["approve_selected", "return_selected_to_draft"])
def test_editor_posting_a_crafted_review_action_changes_nothing(
    client, seeded, editor, reviewer, action
):
    Case.objects.filter(pk="IL-0137").update(reviewed_by="someone", reviewed_at="2026-11-01T00:00Z")
    before = review_of("IL-0137")
    logged_in(client, editor)
    for extra in ({"index": "0"}, {"post": "yes", "approve_again": "yes"}):
        client.post(CHANGELIST, {"action": action, "_selected_action": ["IL-0137"], **extra})
    assert review_of("IL-0137") == before
    assert not LogEntry.objects.exists()


def test_staff_without_change_permission_cannot_open_the_case_form(client, seeded):
    from django.contrib.auth.models import User

    visitor = User.objects.create_user("vic", password="x", is_staff=True)
    logged_in(client, visitor)
    assert client.get(change_url("IL-0137")).status_code == 403
