"""Approve and Return to draft, on the form and on the list, and what the public then sees."""

import datetime

import pytest
from django.utils import formats, timezone

from cases.models import Case

from ..conftest import (
    change_url,
    import_cases,
    logged_in,
    make_case,
    make_staff,
    press,
    write_json,
)

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/cases/case/"


@pytest.fixture
def drafts(db, tmp_path):
    """Three drafts, T-1 to T-3."""
    import_cases(write_json(tmp_path / "drafts.json", [make_case(f"T-{n}") for n in (1, 2, 3)]))
    return Case.objects.filter(pk__in=["T-1", "T-2", "T-3"])


def reviewed_by_someone_else(case_id):
    other = make_staff("olga", reviewer=True)
    reviewed_at = timezone.now() - datetime.timedelta(days=3)
    Case.objects.filter(pk=case_id).update(
        reviewed_by="olga", reviewer=other, reviewed_at=reviewed_at
    )
    return Case.objects.get(pk=case_id)


def test_approve_makes_the_logged_in_reviewer_the_reviewer_now(client, seeded, reviewer):
    logged_in(client, reviewer)
    before = timezone.now()
    response = press(client, "IL-0137", "_approve")
    assert response.status_code == 302
    case = Case.objects.get(pk="IL-0137")
    assert case.reviewed_by == "rita"
    assert case.reviewer == reviewer
    assert before <= case.reviewed_at <= timezone.now()
    assert case.updated_at == case.reviewed_at


def test_approve_saves_the_changes_on_the_form_with_it(client, seeded, reviewer):
    logged_in(client, reviewer)
    press(client, "IL-0137", "_approve", title_ko="고친 제목")
    case = Case.objects.get(pk="IL-0137")
    assert case.title_ko == "고친 제목"
    assert not case.is_draft


def test_approve_says_so_and_returns_to_the_list(client, seeded, reviewer):
    logged_in(client, reviewer)
    response = press(client, "IL-0137", "_approve")
    assert response["Location"] == CHANGELIST
    page = client.get(CHANGELIST).content.decode()
    assert "IL-0137 was approved: you are its reviewer." in page


def test_return_to_draft_clears_the_review(client, seeded, reviewer):
    reviewed_by_someone_else("IL-0137")
    logged_in(client, reviewer)
    assert press(client, "IL-0137", "_return_to_draft").status_code == 302
    case = Case.objects.get(pk="IL-0137")
    assert (case.reviewed_by, case.reviewer, case.reviewed_at) == (None, None, None)
    assert case.is_draft


def test_approving_a_reviewed_case_keeps_its_reviewer_unless_confirmed(client, seeded, reviewer):
    before = reviewed_by_someone_else("IL-0137")
    logged_in(client, reviewer)
    response = press(client, "IL-0137", "_approve", title_ko="바뀐 제목")
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors["approve_again"]
    assert "IL-0137 is already reviewed by olga" in errors[0]
    case = Case.objects.get(pk="IL-0137")
    assert (case.reviewed_by, case.reviewed_at, case.title_ko) == (
        "olga",
        before.reviewed_at,
        before.title_ko,
    )


def test_approving_a_reviewed_case_again_when_confirmed_makes_you_its_reviewer(
    client, seeded, reviewer
):
    before = reviewed_by_someone_else("IL-0137")
    logged_in(client, reviewer)
    assert press(client, "IL-0137", "_approve", approve_again="on").status_code == 302
    case = Case.objects.get(pk="IL-0137")
    assert case.reviewed_by == "rita" and case.reviewer == reviewer
    assert case.reviewed_at > before.reviewed_at


def test_the_reviewed_case_form_offers_approve_again_and_return_to_draft(client, seeded, reviewer):
    logged_in(client, reviewer)
    draft_form = client.get(change_url("IL-0137")).content.decode()
    assert 'name="_return_to_draft"' not in draft_form
    assert 'name="approve_again"' not in draft_form
    reviewed_by_someone_else("IL-0137")
    reviewed_form = client.get(change_url("IL-0137")).content.decode()
    assert 'name="_return_to_draft"' in reviewed_form
    assert 'name="approve_again"' in reviewed_form


def test_bulk_approve_asks_first_and_changes_nothing_yet(client, drafts, reviewer):
    logged_in(client, reviewer)
    response = client.post(
        CHANGELIST, {"action": "approve_selected", "_selected_action": ["T-1", "T-2"], "index": "0"}
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "These drafts will be approved, with you as their reviewer:" in html
    assert "T-1:" in html and "T-2:" in html and "T-3:" not in html
    assert all(case.is_draft for case in drafts)


def confirm_bulk_approval(client, response, **extra):
    """Press "Approve" on the confirmation page the action showed."""
    selection = response.context["selection"]
    data = {
        "action": "approve_selected",
        "post": "yes",
        "_selected_action": [case.pk for case, _version in selection],
        **{f"version-{case.pk}": version for case, version in selection},
        **extra,
    }
    return client.post(CHANGELIST, data, follow=True)


def ask_bulk_approval(client, *case_ids):
    return client.post(
        CHANGELIST, {"action": "approve_selected", "_selected_action": case_ids, "index": "0"}
    )


def test_bulk_approve_approves_the_selected_drafts_once_confirmed(client, drafts, reviewer):
    logged_in(client, reviewer)
    response = confirm_bulk_approval(client, ask_bulk_approval(client, "T-1", "T-2"))
    assert "2 cases approved: T-1, T-2." in response.content.decode()
    approved = Case.objects.filter(reviewed_by="rita", reviewer=reviewer)
    assert sorted(approved.values_list("pk", flat=True)) == ["T-1", "T-2"]
    assert Case.objects.get(pk="T-3").is_draft


def test_a_case_deleted_after_the_confirmation_is_named_not_left_out(client, drafts, reviewer):
    logged_in(client, reviewer)
    asked = ask_bulk_approval(client, "T-1", "T-2")
    Case.objects.filter(pk="T-2").delete()
    html = confirm_bulk_approval(client, asked).content.decode()
    assert "1 case approved: T-1." in html
    assert "T-2 is no longer in the library (deleted meanwhile): nothing was done to it." in html


def test_bulk_approve_leaves_reviewed_cases_as_they_were_unless_ticked(client, drafts, reviewer):
    before = reviewed_by_someone_else("T-2")
    logged_in(client, reviewer)
    asked = ask_bulk_approval(client, "T-1", "T-2")
    assert "This case is already reviewed and keeps its review" in asked.content.decode()
    assert "Approve this one again too: I become its reviewer" in asked.content.decode()
    response = confirm_bulk_approval(client, asked)
    assert "Already reviewed, left as they were: T-2." in response.content.decode()
    assert Case.objects.get(pk="T-1").reviewed_by == "rita"
    kept = Case.objects.get(pk="T-2")
    assert (kept.reviewed_by, kept.reviewed_at) == ("olga", before.reviewed_at)


def test_bulk_approve_replaces_reviews_when_ticked(client, drafts, reviewer):
    reviewed_by_someone_else("T-2")
    logged_in(client, reviewer)
    confirm_bulk_approval(client, ask_bulk_approval(client, "T-1", "T-2"), approve_again="yes")
    assert set(Case.objects.filter(reviewed_by="rita").values_list("pk", flat=True)) == {
        "T-1",
        "T-2",
    }


def ask_bulk_return(client, *case_ids):
    return client.post(
        CHANGELIST,
        {"action": "return_selected_to_draft", "_selected_action": case_ids, "index": "0"},
    )


def confirm_bulk_return(client, response):
    """Press "Return to draft" on the confirmation page the action showed."""
    selection = response.context["selection"]
    data = {
        "action": "return_selected_to_draft",
        "post": "yes",
        "_selected_action": [case.pk for case, _version in selection],
        **{f"version-{case.pk}": version for case, version in selection},
    }
    return client.post(CHANGELIST, data, follow=True)


def test_bulk_return_to_draft_asks_first_and_changes_nothing_yet(client, drafts, reviewer):
    reviewed_by_someone_else("T-1")
    logged_in(client, reviewer)
    response = ask_bulk_return(client, "T-1", "T-2")
    assert response.status_code == 200
    html = response.content.decode()
    assert "This case will be returned to draft, its review cleared:" in html
    assert "T-1: " in html and "reviewed by olga on " in html
    assert "This case is already a draft and stays as it is:" in html
    assert "T-2: " in html and "T-3: " not in html
    assert Case.objects.get(pk="T-1").reviewed_by == "olga"


def test_bulk_return_to_draft_clears_the_selected_reviews(client, drafts, reviewer):
    Case.objects.update(reviewed_by="olga", reviewed_at=timezone.now())
    logged_in(client, reviewer)
    response = confirm_bulk_return(client, ask_bulk_return(client, "T-1", "T-3"))
    assert "2 cases returned to draft: T-1, T-3." in response.content.decode()
    assert [c.pk for c in Case.objects.order_by("pk") if c.is_draft] == ["T-1", "T-3"]
    assert Case.objects.get(pk="T-1").reviewed_by is None


def test_the_public_page_shows_the_reviewer_and_date_after_approval(client, seeded, reviewer):
    assert "Draft: not yet reviewed" in client.get("/cases/IL-0137").content.decode()
    logged_in(client, reviewer)
    press(client, "IL-0137", "_approve")
    client.logout()
    page = client.get("/cases/IL-0137").content.decode()
    assert "Draft: not yet reviewed" not in page
    today = formats.date_format(timezone.localdate(), "DATE_FORMAT")
    assert f"Reviewed by rita on {today}" in page


def test_return_to_draft_on_a_draft_changes_nothing_and_says_so(client, seeded, reviewer):
    from django.contrib.admin.models import LogEntry

    before = Case.objects.get(pk="IL-0137")
    logged_in(client, reviewer)
    response = press(client, "IL-0137", "_return_to_draft")
    assert response.status_code == 302
    page = client.get(response["Location"]).content.decode()
    assert "IL-0137 is already a draft: there was no review to clear." in page
    after = Case.objects.get(pk="IL-0137")
    assert (after.version, after.updated_at) == (before.version, before.updated_at)
    assert not LogEntry.objects.exists()


def test_bulk_return_to_draft_leaves_drafts_as_they_are_and_counts_them(client, drafts, reviewer):
    from django.contrib.admin.models import LogEntry

    reviewed_by_someone_else("T-1")
    versions = dict(Case.objects.values_list("pk", "version"))
    logged_in(client, reviewer)
    response = confirm_bulk_return(client, ask_bulk_return(client, "T-1", "T-2", "T-3"))
    html = response.content.decode()
    assert "1 case returned to draft: T-1." in html
    assert "2 cases were already drafts, left as they were: T-2, T-3." in html
    assert Case.objects.get(pk="T-2").version == versions["T-2"]
    assert list(LogEntry.objects.values_list("object_id", flat=True)) == ["T-1"]


def test_a_case_that_left_the_filtered_list_meanwhile_is_named_not_dropped(
    client, drafts, reviewer
):
    """Approving from the list of drafts: a case another reviewer approved between the
    confirmation and the click no longer matches ?status=draft, and Django filters the
    selection by it again; it must still be accounted for."""
    logged_in(client, reviewer)
    filtered = CHANGELIST + "?status=draft"
    asked = client.post(
        filtered, {"action": "approve_selected", "_selected_action": ["T-1", "T-2"], "index": "0"}
    )
    selection = asked.context["selection"]
    reviewed_by_someone_else("T-2")
    Case.objects.filter(pk="T-2").update(version=Case.objects.get(pk="T-2").version + 1)
    response = client.post(
        filtered,
        {
            "action": "approve_selected",
            "post": "yes",
            "_selected_action": [case.pk for case, _version in selection],
            **{f"version-{case.pk}": version for case, version in selection},
        },
        follow=True,
    )
    html = response.content.decode()
    assert "1 case approved: T-1." in html
    assert "T-2 was changed by " in html and "It was not approved." in html


@pytest.fixture
def many_drafts(db, tmp_path):
    """One draft more than a bulk review action takes (review.BULK_LIMIT)."""
    from cases.review.workflow import BULK_LIMIT

    cases = [make_case(f"M-{n:04}") for n in range(BULK_LIMIT + 1)]
    for case in cases:
        case["related"], case["recurrence_of"] = [], None
    import_cases(write_json(tmp_path / "many.json", cases))
    return BULK_LIMIT


@pytest.mark.parametrize("action", ["approve_selected", "return_selected_to_draft"])
def test_a_bulk_review_of_more_cases_than_the_limit_is_refused_whole(
    client, many_drafts, reviewer, action
):
    """ "Select all" of a large list: refused with a message, nothing changed, no page of
    every case (nor a confirmation POST larger than Django accepts)."""
    logged_in(client, reviewer)
    before = list(Case.objects.order_by("id").values_list("id", "version", "reviewed_by"))
    response = client.post(
        CHANGELIST,
        {"action": action, "_selected_action": ["M-0000"], "select_across": "1", "index": "0"},
        follow=True,
    )
    html = response.content.decode()
    assert response.redirect_chain and response.status_code == 200
    assert (
        f"You chose {many_drafts + 1} cases; a review action takes at most {many_drafts} at a "
        "time. Nothing was changed" in html
    )
    assert list(Case.objects.order_by("id").values_list("id", "version", "reviewed_by")) == before
    # The same refusal for a confirmation posting more ids than the limit.
    response = client.post(
        CHANGELIST,
        {
            "action": action,
            "post": "yes",
            "_selected_action": list(Case.objects.values_list("id", flat=True)),
            "index": "0",
        },
        follow=True,
    )
    assert "a review action takes at most" in response.content.decode()
    assert list(Case.objects.order_by("id").values_list("id", "version", "reviewed_by")) == before


def test_a_bulk_approval_of_as_many_cases_as_the_limit_is_confirmed_in_one_post(
    client, many_drafts, reviewer
):
    """The confirmation of the largest bulk approval fits in what Django accepts of a POST."""
    Case.objects.filter(pk="M-0000").delete()
    logged_in(client, reviewer)
    asked = client.post(
        CHANGELIST,
        {
            "action": "approve_selected",
            "_selected_action": ["M-0001"],
            "select_across": "1",
            "index": "0",
        },
    )
    assert len(asked.context["selection"]) == many_drafts
    response = confirm_bulk_approval(client, asked)
    assert response.status_code == 200
    assert f"{many_drafts} cases approved" in response.content.decode()
    assert not Case.objects.filter(reviewed_by__isnull=True).exists()


def test_the_admins_list_in_another_language_keeps_its_filters(client, drafts, reviewer):
    """`?lang=ko` on the list sent the reviewer to every case, unfiltered (`?e=1`)."""
    logged_in(client, reviewer)
    response = client.get(CHANGELIST, {"status": "draft", "q": "T-1", "lang": "ko"})
    assert response.status_code == 200, response.get("Location")
    html = response.content.decode()
    assert '<html lang="ko"' in html
    assert [case.pk for case in response.context["cl"].result_list] == ["T-1"]
