"""No lost updates: a save or an approval over a case changed since it was opened is refused."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.utils import formats, timezone

from cases.models import Case

from ..conftest import (
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

CHANGELIST = "/admin/cases/case/"


@pytest.fixture
def alice(db):
    return logged_in(Client(), make_staff("alice"))


@pytest.fixture
def bob(db):
    return logged_in(Client(), make_staff("bob"))


def save(client, case_id, data, **changes):
    return client.post(change_url(case_id), {**data, **changes})


def when(case_id):
    """When the case's current version was written, as a refusal says it."""
    changed_at = Case.objects.get(pk=case_id).changed_at
    return formats.date_format(timezone.localtime(changed_at), "DATETIME_FORMAT")


def reimported(tmp_path, case_id, replace_newer=False, **changes):
    """Export the case, change its Korean title and top-level fields, import it back."""
    case = exported(case_id)
    case["title"]["ko"] = "가져온 제목"
    case.update(changes)
    import_cases(write_json(tmp_path / "reimport.json", case), replace_newer=replace_newer)


def test_the_second_of_two_editors_is_refused_and_told_who_and_when(seeded, alice, bob):
    alices_form, bobs_form = open_case(alice, "IL-0137"), open_case(bob, "IL-0137")
    assert save(alice, "IL-0137", alices_form, title_ko="앨리스의 제목").status_code == 302
    response = save(bob, "IL-0137", bobs_form, title_ko="밥의 제목")
    assert response.status_code == 200
    errors = response.context["adminform"].form.non_field_errors()
    assert errors[0] == f"IL-0137 was changed by alice on {when('IL-0137')}, after you opened it."
    assert "Nothing was saved; your input is kept below." in errors[1]
    assert Case.objects.get(pk="IL-0137").title_ko == "앨리스의 제목"


def test_the_refused_editor_keeps_their_input_on_the_form(seeded, alice, bob):
    alices_form, bobs_form = open_case(alice, "IL-0137"), open_case(bob, "IL-0137")
    save(alice, "IL-0137", alices_form, title_ko="앨리스의 제목")
    bobs_form["sources-0-url"] = "https://example.org/bobs-source"
    response = save(bob, "IL-0137", bobs_form, title_ko="밥의 제목")
    html = response.content.decode()
    assert "밥의 제목" in html and "앨리스의 제목" not in html
    assert 'value="https://example.org/bobs-source"' in html


def test_the_refusal_stands_until_the_case_is_opened_again(seeded, alice, bob):
    alices_form, bobs_form = open_case(alice, "IL-0137"), open_case(bob, "IL-0137")
    save(alice, "IL-0137", alices_form, title_ko="앨리스의 제목")
    assert save(bob, "IL-0137", bobs_form, title_ko="밥의 제목").status_code == 200
    assert save(bob, "IL-0137", bobs_form, title_ko="밥의 제목").status_code == 200
    reopened = open_case(bob, "IL-0137")
    assert save(bob, "IL-0137", reopened, title_ko="밥의 제목").status_code == 302
    assert Case.objects.get(pk="IL-0137").title_ko == "밥의 제목"


def test_a_change_to_a_list_only_makes_a_new_version_too(seeded, alice, bob):
    alices_form, bobs_form = open_case(alice, "IL-0137"), open_case(bob, "IL-0137")
    alices_form["sources-0-kind"] = "postmortem"
    assert save(alice, "IL-0137", alices_form).status_code == 302
    assert save(bob, "IL-0137", bobs_form, title_ko="밥의 제목").status_code == 200
    assert Case.objects.get(pk="IL-0137").sources.first().kind == "postmortem"


def test_saving_an_unchanged_form_makes_no_new_version(seeded, alice, bob):
    version = Case.objects.get(pk="IL-0137").updated_at
    alices_form, bobs_form = open_case(alice, "IL-0137"), open_case(bob, "IL-0137")
    assert save(alice, "IL-0137", alices_form).status_code == 302
    assert Case.objects.get(pk="IL-0137").updated_at == version
    assert save(bob, "IL-0137", bobs_form, title_ko="밥의 제목").status_code == 302


def test_every_save_sets_updated_at_to_now(seeded, alice):
    before = timezone.now()
    save(alice, "IL-0137", open_case(alice, "IL-0137"), title_ko="새 제목")
    assert before <= Case.objects.get(pk="IL-0137").updated_at <= timezone.now()


def test_a_change_made_by_an_import_is_named_as_such(seeded, alice, tmp_path):
    alices_form = open_case(alice, "IL-0137")
    changed = make_case("IL-0137", updated_at="2026-12-01T09:30:00Z")
    changed["title"]["ko"] = "가져온 제목"
    import_cases(write_json(tmp_path / "changed.json", changed))
    response = save(alice, "IL-0137", alices_form, title_ko="앨리스의 제목")
    errors = response.context["adminform"].form.non_field_errors()
    assert (
        errors[0] == f"IL-0137 was changed by an import on {when('IL-0137')}, after you opened it."
    )


def test_an_import_keeping_updated_at_still_refuses_a_form_opened_before(seeded, alice, tmp_path):
    # The exchange format round-trips updated_at: the re-import leaves it as it was.
    updated_at = Case.objects.get(pk="IL-0137").updated_at
    alices_form = open_case(alice, "IL-0137")
    reimported(tmp_path, "IL-0137")
    assert Case.objects.get(pk="IL-0137").updated_at == updated_at
    response = save(alice, "IL-0137", alices_form, title_ko="앨리스의 제목")
    assert response.status_code == 200
    errors = response.context["adminform"].form.non_field_errors()
    assert (
        errors[0] == f"IL-0137 was changed by an import on {when('IL-0137')}, after you opened it."
    )
    assert Case.objects.get(pk="IL-0137").title_ko == "가져온 제목"


def test_an_import_keeping_updated_at_refuses_an_approval_opened_before(seeded, tmp_path):
    reviewer = logged_in(Client(), make_staff("rita", reviewer=True))
    reviewers_form = open_case(reviewer, "IL-0137")
    reimported(tmp_path, "IL-0137")
    response = save(reviewer, "IL-0137", reviewers_form, _approve="yes")
    assert response.status_code == 200
    errors = response.context["adminform"].form.non_field_errors()
    assert (
        errors[0] == f"IL-0137 was changed by an import on {when('IL-0137')}, after you opened it."
    )
    assert Case.objects.get(pk="IL-0137").is_draft


def test_a_backdated_import_is_named_as_the_latest_change(seeded, alice, bob, tmp_path):
    save(alice, "IL-0137", open_case(alice, "IL-0137"), title_ko="앨리스의 제목")
    bobs_form = open_case(bob, "IL-0137")
    before = timezone.now()
    reimported(tmp_path, "IL-0137", replace_newer=True, updated_at="2020-01-01T00:00:00Z")
    case = Case.objects.get(pk="IL-0137")
    assert before <= case.changed_at <= timezone.now() and case.changed_by is None
    response = save(bob, "IL-0137", bobs_form, title_ko="밥의 제목")
    errors = response.context["adminform"].form.non_field_errors()
    assert (
        errors[0] == f"IL-0137 was changed by an import on {when('IL-0137')}, after you opened it."
    )
    assert Case.objects.get(pk="IL-0137").title_ko == "가져온 제목"


def test_a_file_older_than_the_library_is_refused_unless_the_curator_says_so(
    seeded, alice, tmp_path
):
    """Re-importing yesterday's file must not undo today's edit in the admin without a word."""
    old_file = write_json(tmp_path / "old.json", exported("IL-0137"))
    save(alice, "IL-0137", open_case(alice, "IL-0137"), title_ko="앨리스의 제목")
    edited = Case.objects.get(pk="IL-0137")
    stderr = StringIO()
    with pytest.raises(CommandError, match="1 problem found"):
        call_command("import_cases", str(old_file), stderr=stderr, verbosity=0)
    message = stderr.getvalue()
    line = next(  # the field's own line
        n for n, text in enumerate(old_file.read_text().splitlines(), 1) if '"updated_at"' in text
    )
    assert f"{old_file}:{line}: IL-0137: updated_at: the library's copy is newer (" in message
    assert "last changed by alice" in message and "--replace-newer" in message
    assert Case.objects.get(pk="IL-0137").version == edited.version
    # A file exported after the edit imports as it is; --replace-newer takes the old one.
    import_cases(write_json(tmp_path / "new.json", exported("IL-0137")))
    assert Case.objects.get(pk="IL-0137").version == edited.version
    import_cases(old_file, replace_newer=True)
    assert Case.objects.get(pk="IL-0137").title_ko != "앨리스의 제목"


def test_every_write_raises_the_version_and_says_who_wrote_it(seeded, alice, tmp_path):
    def written():
        case = Case.objects.get(pk="IL-0137")
        return case.version, case.changed_by

    assert written() == (1, None)
    import_cases(write_json(tmp_path / "same.json", exported("IL-0137")))
    assert written() == (1, None)  # unchanged: not written
    reimported(tmp_path, "IL-0137")
    assert written() == (2, None)
    save(alice, "IL-0137", open_case(alice, "IL-0137"), title_ko="앨리스의 제목")
    assert written() == (3, "alice")
    reviewer = logged_in(Client(), make_staff("rita", reviewer=True))
    save(reviewer, "IL-0137", open_case(reviewer, "IL-0137"), _approve="yes")
    assert written() == (4, "rita")
    save(reviewer, "IL-0137", open_case(reviewer, "IL-0137"), _return_to_draft="yes")
    assert written() == (5, "rita")


def test_a_form_without_the_version_it_was_opened_at_is_refused(seeded, alice):
    form = open_case(alice, "IL-0137")
    del form["seen_version"]
    assert save(alice, "IL-0137", form, title_ko="앨리스의 제목").status_code == 200
    assert Case.objects.get(pk="IL-0137").title_ko != "앨리스의 제목"


def test_approving_a_case_edited_after_the_reviewer_opened_it_is_refused(seeded, alice):
    reviewer = logged_in(Client(), make_staff("rita", reviewer=True))
    reviewers_form = open_case(reviewer, "IL-0137")
    save(alice, "IL-0137", open_case(alice, "IL-0137"), title_ko="앨리스의 제목")
    response = save(reviewer, "IL-0137", reviewers_form, _approve="yes")
    assert response.status_code == 200
    errors = response.context["adminform"].form.non_field_errors()
    assert errors[0] == f"IL-0137 was changed by alice on {when('IL-0137')}, after you opened it."
    assert Case.objects.get(pk="IL-0137").is_draft


def test_an_edit_after_an_approval_the_editor_did_not_see_is_refused(seeded, alice):
    reviewer = logged_in(Client(), make_staff("rita", reviewer=True))
    alices_form = open_case(alice, "IL-0137")
    save(reviewer, "IL-0137", open_case(reviewer, "IL-0137"), _approve="yes")
    response = save(alice, "IL-0137", alices_form, title_ko="앨리스의 제목")
    errors = response.context["adminform"].form.non_field_errors()
    assert errors[0].startswith("IL-0137 was changed by rita on ")


def test_bulk_approval_refuses_a_case_changed_after_the_confirmation_page(tmp_path, alice):
    import_cases(write_json(tmp_path / "two.json", [make_case("T-1"), make_case("T-2")]))
    reviewer = logged_in(Client(), make_staff("rita", reviewer=True))
    asked = reviewer.post(
        CHANGELIST, {"action": "approve_selected", "_selected_action": ["T-1", "T-2"], "index": "0"}
    )
    save(alice, "T-2", open_case(alice, "T-2"), title_ko="앨리스의 제목")
    response = reviewer.post(
        CHANGELIST,
        {
            "action": "approve_selected",
            "post": "yes",
            "_selected_action": ["T-1", "T-2"],
            **{f"version-{case.pk}": version for case, version in asked.context["selection"]},
        },
        follow=True,
    )
    html = response.content.decode()
    assert "1 case approved: T-1." in html
    assert (
        f"T-2 was changed by alice on {when('T-2')}, after you opened it. It was not approved."
        in html
    )
    assert Case.objects.get(pk="T-2").is_draft


def test_bulk_return_to_draft_refuses_a_case_changed_after_the_confirmation_page(tmp_path, alice):
    import_cases(write_json(tmp_path / "two.json", [make_case("T-1"), make_case("T-2")]))
    Case.objects.update(reviewed_by="olga", reviewed_at=timezone.now())
    reviewer = logged_in(Client(), make_staff("rita", reviewer=True))
    asked = reviewer.post(
        CHANGELIST,
        {"action": "return_selected_to_draft", "_selected_action": ["T-1", "T-2"], "index": "0"},
    )
    # Approved again by someone else: returning it would throw away a review not seen.
    olga = logged_in(Client(), make_staff("olga", reviewer=True))
    save(olga, "T-2", open_case(olga, "T-2"), approve_again="on", _approve="yes")
    response = reviewer.post(
        CHANGELIST,
        {
            "action": "return_selected_to_draft",
            "post": "yes",
            "_selected_action": ["T-1", "T-2"],
            **{f"version-{case.pk}": version for case, version in asked.context["selection"]},
        },
        follow=True,
    )
    html = response.content.decode()
    assert "1 case returned to draft: T-1." in html
    assert (
        f"T-2 was changed by olga on {when('T-2')}, after you opened it. "
        "It was not returned to draft." in html
    )
    assert not Case.objects.get(pk="T-2").is_draft


@pytest.mark.django_db(transaction=True)
def test_an_edit_between_the_imports_check_and_its_write_is_not_undone(
    seeded, tmp_path, monkeypatch
):
    """The import checks that no case of the file is older than the library's copy, then
    writes. An admin save committed between the two is found again when the write locks the
    case, and the run is refused rather than undo the edit."""
    import threading

    from django.db import connections

    from cases.exchange.importer import CaseImport

    alice = logged_in(Client(), make_staff("alice"))
    form = open_case(alice, "IL-0137")
    file = write_json(tmp_path / "now.json", exported("IL-0137"))  # not older: passes the check
    checked = CaseImport.check_newer_in_library
    saved = []

    def check_then_an_edit_lands(self, cases):
        checked(self, cases)
        assert not self.case_problems, self.case_problems  # the file passed the first check

        # Alice's save, on a connection of its own, committed before the import writes.
        def edit():
            try:
                saved.append(save(alice, "IL-0137", form, title_ko="앨리스의 제목"))
            finally:
                connections.close_all()  # the thread's own connection

        editor = threading.Thread(target=edit)
        editor.start()
        editor.join(timeout=30)
        assert not editor.is_alive() and saved, "the edit did not finish"
        assert saved[0].status_code == 302  # the edit was saved before the import writes

    monkeypatch.setattr(CaseImport, "check_newer_in_library", check_then_an_edit_lands)
    stderr = StringIO()
    with pytest.raises(CommandError, match="1 problem found"):
        call_command("import_cases", str(file), stderr=stderr, verbosity=0)
    assert saved[0].status_code == 302  # the edit was saved
    message = stderr.getvalue()
    assert f"{file}:1: IL-0137: updated_at: the library's copy is newer (" in message
    assert "last changed by alice" in message
    assert Case.objects.get(pk="IL-0137").title_ko == "앨리스의 제목"
