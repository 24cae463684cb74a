"""Every approval and return to draft is in the case's admin history, with who and when."""

import pytest
from django.contrib.admin.models import CHANGE, LogEntry
from django.utils import timezone

from cases.models import Case

from ..conftest import change_url, import_cases, logged_in, make_case, open_case, write_json

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/cases/case/"


def history(case_id):
    return list(
        LogEntry.objects.filter(object_id=case_id)
        .order_by("action_time", "id")
        .values_list("user__username", "action_flag", "change_message")
    )


def press(client, case_id, button, **changes):
    data = {**open_case(client, case_id), **changes, button: "yes"}
    return client.post(change_url(case_id), data)


def test_an_approval_is_logged_with_the_reviewer_and_the_time_it_set(client, seeded, reviewer):
    logged_in(client, reviewer)
    press(client, "IL-0137", "_approve")
    entry = LogEntry.objects.get(object_id="IL-0137")
    case = Case.objects.get(pk="IL-0137")
    assert (entry.user, entry.action_flag, entry.change_message) == (reviewer, CHANGE, "Approved.")
    assert entry.action_time == case.reviewed_at
    assert entry.object_repr.startswith("IL-0137: ")


def test_approving_with_edits_logs_the_edit_and_then_the_approval(client, seeded, reviewer):
    logged_in(client, reviewer)
    press(client, "IL-0137", "_approve", title_ko="고친 제목")
    assert [message for _user, _flag, message in history("IL-0137")] == [
        '[{"changed": {"fields": ["Title (Korean)"]}}]',
        "Approved.",
    ]


def test_approve_again_and_return_to_draft_are_logged_each_time(client, seeded, reviewer):
    logged_in(client, reviewer)
    press(client, "IL-0137", "_approve")
    press(client, "IL-0137", "_approve", approve_again="on")
    press(client, "IL-0137", "_return_to_draft")
    assert history("IL-0137") == [
        ("rita", CHANGE, "Approved."),
        ("rita", CHANGE, "Approved again, replacing the previous review."),
        ("rita", CHANGE, "Returned to draft."),
    ]


def test_bulk_actions_log_one_entry_per_case(client, tmp_path, reviewer):
    import_cases(write_json(tmp_path / "two.json", [make_case("T-1"), make_case("T-2")]))
    logged_in(client, reviewer)
    asked = client.post(
        CHANGELIST, {"action": "approve_selected", "_selected_action": ["T-1", "T-2"], "index": "0"}
    )
    client.post(
        CHANGELIST,
        {
            "action": "approve_selected",
            "post": "yes",
            "_selected_action": ["T-1", "T-2"],
            **{f"version-{case.pk}": version for case, version in asked.context["selection"]},
        },
    )
    asked = client.post(
        CHANGELIST,
        {"action": "return_selected_to_draft", "_selected_action": ["T-2"], "index": "0"},
    )
    client.post(
        CHANGELIST,
        {
            "action": "return_selected_to_draft",
            "post": "yes",
            "_selected_action": ["T-2"],
            **{f"version-{case.pk}": version for case, version in asked.context["selection"]},
        },
    )
    assert history("T-1") == [("rita", CHANGE, "Approved.")]
    assert history("T-2") == [("rita", CHANGE, "Approved."), ("rita", CHANGE, "Returned to draft.")]


def test_a_refused_approval_logs_nothing(client, seeded, reviewer):
    Case.objects.filter(pk="IL-0137").update(reviewed_by="olga", reviewed_at=timezone.now())
    logged_in(client, reviewer)
    assert press(client, "IL-0137", "_approve").status_code == 200
    assert history("IL-0137") == []


def test_the_history_page_shows_who_approved_in_the_readers_language(client, seeded, reviewer):
    logged_in(client, reviewer)
    press(client, "IL-0137", "_approve")
    page = client.get("/admin/cases/case/IL-0137/history/").content.decode()
    assert "<td>rita</td>" in page and "<td>Approved.</td>" in page
    korean = client.get(
        "/admin/cases/case/IL-0137/history/", HTTP_ACCEPT_LANGUAGE="ko"
    ).content.decode()
    assert "<td>승인했습니다.</td>" in korean
