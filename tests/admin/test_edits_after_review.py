"""A review vouches for the content it read: changing a reviewed case makes it a draft again.

Unless the change comes with a reviewer's Approve, which saves it and approves it.
"""

import datetime
import re

import pytest
from django.contrib.admin.models import LogEntry
from django.utils import timezone

from cases.models import Case

from ..conftest import change_url, logged_in, make_staff, open_case

pytestmark = pytest.mark.django_db


@pytest.fixture
def reviewed(seeded):
    """IL-0137, reviewed three days ago by olga."""
    olga = make_staff("olga", reviewer=True)
    Case.objects.filter(pk="IL-0137").update(
        reviewed_by="olga", reviewer=olga, reviewed_at=timezone.now() - datetime.timedelta(days=3)
    )
    return Case.objects.get(pk="IL-0137")


def history(case_id):
    return list(
        LogEntry.objects.filter(object_id=case_id)
        .order_by("action_time", "id")
        .values_list("user__username", "change_message")
    )


def save(client, case_id, **changes):
    return client.post(change_url(case_id), {**open_case(client, case_id), **changes})


@pytest.mark.parametrize("user", ["editor", "reviewer"])
def test_a_content_change_returns_a_reviewed_case_to_draft(client, reviewed, user, request):
    account = request.getfixturevalue(user)
    logged_in(client, account)
    response = save(client, "IL-0137", title_en="Unreviewed words")
    assert response.status_code == 302
    case = Case.objects.get(pk="IL-0137")
    assert case.title_en == "Unreviewed words"
    assert (case.reviewed_by, case.reviewer, case.reviewed_at) == (None, None, None)
    assert history("IL-0137") == [
        (account.username, '[{"changed": {"fields": ["Title (English)"]}}]'),
        (account.username, "Returned to draft (edited)."),
    ]
    page = client.get(response["Location"]).content.decode()
    assert (
        "IL-0137 was returned to draft: it changed after olga reviewed it (a text, a field, "
        "a list, or a Korean text confirmed as still correct). "
        "A reviewer needs to approve it again." in page
    )
    client.logout()
    assert "Draft: not yet reviewed" in client.get("/cases/IL-0137").content.decode()


@pytest.mark.parametrize(
    "changes",
    [
        {"sources-0-kind": "postmortem"},
        {"remediation_steps-0-text_ko": "바뀐 단계"},
        {"action_items-0-DELETE": "on"},
        {"case_terms-0-DELETE": "on"},
        {"related_links-0-to_case": "T-1", "related_links-TOTAL_FORMS": "1"},
    ],
    ids=["source", "remediation step", "action item", "tag", "related case"],
)
def test_a_change_to_a_list_counts_as_content(client, reviewed, editor, changes, tmp_path):
    from tests.conftest import import_cases, make_case, write_json

    import_cases(write_json(tmp_path / "other.json", make_case("T-1")))
    logged_in(client, editor)
    assert save(client, "IL-0137", **changes).status_code == 302
    assert Case.objects.get(pk="IL-0137").is_draft


def test_saving_a_reviewed_case_unchanged_keeps_its_review(client, reviewed, editor):
    logged_in(client, editor)
    assert save(client, "IL-0137").status_code == 302
    case = Case.objects.get(pk="IL-0137")
    assert (case.reviewed_by, case.reviewed_at) == ("olga", reviewed.reviewed_at)
    assert case.version == reviewed.version


def test_a_reviewer_approving_with_changes_saves_and_approves(client, reviewed, reviewer):
    logged_in(client, reviewer)
    response = save(
        client, "IL-0137", title_en="Reviewed words", approve_again="on", _approve="yes"
    )
    assert response.status_code == 302
    case = Case.objects.get(pk="IL-0137")
    assert (case.title_en, case.reviewed_by) == ("Reviewed words", "rita")
    assert [message for _user, message in history("IL-0137")] == [
        '[{"changed": {"fields": ["Title (English)"]}}]',
        "Approved again, replacing the previous review.",
    ]


def test_returning_to_draft_with_changes_logs_one_return(client, reviewed, reviewer):
    logged_in(client, reviewer)
    save(client, "IL-0137", title_en="Changed on the way back", _return_to_draft="yes")
    assert Case.objects.get(pk="IL-0137").is_draft
    assert [message for _user, message in history("IL-0137")][1:] == ["Returned to draft."]


def test_the_history_says_returned_to_draft_edited_in_korean(client, reviewed, editor):
    logged_in(client, editor)
    save(client, "IL-0137", title_en="Unreviewed words")
    page = client.get(
        "/admin/cases/case/IL-0137/history/", HTTP_ACCEPT_LANGUAGE="ko"
    ).content.decode()
    assert "<td>수정되어 초안으로 되돌렸습니다.</td>" in page


def test_the_history_names_the_changed_fields_in_the_readers_language(client, reviewed, editor):
    """Django stores the form's labels, capitalised ("Impact: users", "Summary (Korean)"),
    which its lookup in the catalogue of verbose names missed: a Korean history said
    "Impact: users 또한 Summary (Korean)가 변경되었습니다"."""
    logged_in(client, editor)
    save(client, "IL-0137", impact_users="A few", summary_ko="고친 요약", written_by="someone")
    english = client.get("/admin/cases/case/IL-0137/history/", HTTP_ACCEPT_LANGUAGE="en")
    changed = re.search(r"<td>(Changed [^<]*)</td>", english.content.decode())
    assert changed, english.content.decode()
    assert changed[1].startswith("Changed ") and "Summary (Korean)" in changed[1], changed[1]
    page = client.get(
        "/admin/cases/case/IL-0137/history/", HTTP_ACCEPT_LANGUAGE="ko"
    ).content.decode()
    assert "요약 (한국어)" in page and "영향: 사용자" in page and "작성자" in page, page
    for english_label in ("Summary", "Impact", "Written by", "Korean"):
        assert english_label not in page.split('id="change-history"')[1], english_label
