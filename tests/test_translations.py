"""Translations that stay true: each Korean text knows which English it translates (issue 11).

The rule is cases/translations.py; these tests go through the admin, the import, the case
pages, the side-by-side view, the JSON and the queue.
"""

import json
import re

import pytest
from django.contrib.admin.models import LogEntry
from django.db.models import Q
from django.utils import timezone, translation

from cases import translations
from cases.admin.index import translation_queue_counts
from cases.exchange.format import parse_timestamp, same_case
from cases.models import Case, Term
from cases.review.history import change_message
from cases.translations import CURRENT, MISSING, STALE, source_hash

from .conftest import (
    change_url,
    exported,
    import_cases,
    logged_in,
    open_case,
    seed_case,
    write_json,
)
from .library import STALE_NOTE_KO, no_text, plain_case, stale_and_missing_case

FALLBACK_NOTE_KO = "아직 번역되지 않아"


def states(case_id):
    case = Case.objects.for_page().get(id=case_id)
    return {key: text.state for key, text in translations.case_states(case).items()}


def save_admin(client, case_id, **changes):
    data = open_case(client, case_id)
    if data.get("still_correct") == "":
        del data["still_correct"]  # no box ticked: a browser sends nothing
    data.update(changes)
    response = client.post(change_url(case_id), data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    return response


def recorded(case_id, key):
    return Case.objects.get(id=case_id).translations.get(key)


# The rule --------------------------------------------------------------------------------


def test_the_rule_tells_stale_missing_and_current_apart():
    english = "The disk filled up."
    record = {"source": source_hash(english)}
    assert translations.state(record, english, "디스크가 찼다.") == CURRENT
    assert translations.state(record, "The disk filled up twice.", "디스크가 찼다.") == STALE
    # No Korean is a fallback, whatever the record says: never stale.
    assert translations.state(record, "The disk filled up twice.", None) == MISSING
    assert translations.state(record, "The disk filled up twice.", "") == MISSING
    # Nothing recorded ("not known") is never stale.
    assert translations.state(None, "anything", "무엇이든") == CURRENT
    assert translations.state({}, "anything", "무엇이든") == CURRENT


def test_source_hash_is_sixteen_hex_digits_of_sha256():
    assert source_hash("abc") == "ba7816bf8f01cfea"
    assert source_hash(None) == source_hash("")


# The admin -------------------------------------------------------------------------------


@pytest.fixture
def translated(db, tmp_path):
    """IL-0137 imported from a file that records each Korean as translating its English."""
    case = seed_case()
    case["translations"] = {
        name: {"source": source_hash(case[name]["en"]), "at": "2026-01-01T00:00:00Z"}
        for name in translations.CASE_FIELDS
    } | {
        f"remediation[{i}]": {"source": source_hash(step["text"]["en"])}
        for i, step in enumerate(case["remediation"])
    }
    import_cases(write_json(tmp_path / "seed.json", case))
    return Case.objects.get(id="IL-0137")


def test_an_admin_edit_of_the_english_makes_its_korean_stale(client, translated, editor):
    logged_in(client, editor)
    assert set(states("IL-0137").values()) == {CURRENT}
    save_admin(client, "IL-0137", summary_en="A corrected English summary.")
    assert states("IL-0137")["summary"] == STALE
    assert states("IL-0137")["title"] == CURRENT
    assert recorded("IL-0137", "summary")["english_at"]


def test_an_admin_edit_of_an_unrecorded_korean_s_english_makes_it_stale(client, seeded, editor):
    # Every case imported before translations were recorded: nothing is known, until the
    # English changes under a Korean that stays.
    assert Case.objects.get(id="IL-0137").translations == {}
    logged_in(client, editor)
    save_admin(client, "IL-0137", trigger_en="A different trigger.")
    assert states("IL-0137")["trigger"] == STALE
    assert states("IL-0137")["summary"] == CURRENT


def test_editing_the_korean_makes_it_current_again_and_the_history_says_so(
    client, translated, editor
):
    logged_in(client, editor)
    save_admin(client, "IL-0137", summary_en="A corrected English summary.")
    save_admin(client, "IL-0137", summary_ko="고친 한국어 요약.")
    assert states("IL-0137")["summary"] == CURRENT
    assert recorded("IL-0137", "summary")["source"] == source_hash("A corrected English summary.")
    messages = [entry.get_change_message() for entry in LogEntry.objects.order_by("id")]
    assert any("Summary (Korean)" in message for message in messages), messages


def test_ticking_still_correct_makes_it_current_again_and_the_history_says_so(
    client, translated, editor
):
    logged_in(client, editor)
    save_admin(client, "IL-0137", lessons_en="Lessons, reworded.")
    assert states("IL-0137")["lessons"] == STALE
    version = Case.objects.get(id="IL-0137").version
    save_admin(client, "IL-0137", still_correct=["lessons"])
    assert states("IL-0137")["lessons"] == CURRENT
    assert Case.objects.get(id="IL-0137").version == version + 1
    last = LogEntry.objects.order_by("-id").first()
    assert change_message(last) == ("Changed Korean still correct for translation “Lessons”.")
    with translation.override("ko"):
        assert "한국어가 여전히 맞음" in change_message(last)
        assert "“교훈" in change_message(last), change_message(last)


def still_correct_box(html, textarea_name):
    """The state and "still correct" box shown under a Korean textarea, or None."""
    found = re.search(
        rf'<textarea name="{re.escape(textarea_name)}"[^>]*>.*?</textarea>\s*'
        r'(<p class="still-correct[^"]*">.*?</p>)?',
        html,
        re.S,
    )
    assert found, textarea_name
    return found[1]


def test_each_korean_text_has_its_own_state_and_still_correct_box(client, translated, editor):
    logged_in(client, editor)
    save_admin(
        client,
        "IL-0137",
        detection_en="Noticed differently.",
        **{"remediation_steps-1-text_en": "A second step, rewritten."},
    )
    html = client.get(change_url("IL-0137")).content.decode()
    detection = still_correct_box(html, "detection_ko")
    today = timezone.now().date().isoformat()
    assert f"Stale: the English changed on {today}." in detection
    assert 'name="still_correct" value="detection"' in detection
    assert "Korean still correct: How it was noticed" in detection
    summary = still_correct_box(html, "summary_ko")
    assert "Current." in summary and 'value="summary"' in summary
    # Each step's box is in its own row, under its Korean.
    step = still_correct_box(html, "remediation_steps-1-text_ko")
    assert 'value="remediation[1]"' in step and "Stale" in step
    assert "What fixed it, step 2" in step
    assert "Current." in still_correct_box(html, "remediation_steps-0-text_ko")
    # A new row has none; nor the English.
    assert still_correct_box(html, "remediation_steps-3-text_ko") is None
    assert still_correct_box(html, "detection_en") is None


def test_a_missing_korean_text_says_so_under_its_empty_box(client, translated, editor):
    logged_in(client, editor)
    save_admin(client, "IL-0137", trigger_ko="")
    html = client.get(change_url("IL-0137")).content.decode()
    missing = still_correct_box(html, "trigger_ko")
    assert "Missing: Korean readers see the English of this text." in missing
    assert 'name="still_correct"' not in missing  # nothing to confirm
    korean = client.get(change_url("IL-0137"), HTTP_ACCEPT_LANGUAGE="ko").content.decode()
    assert "없음" in still_correct_box(korean, "trigger_ko")


def test_a_korean_page_of_the_admin_says_the_state_in_korean(client, translated, editor):
    logged_in(client, editor)
    save_admin(client, "IL-0137", lessons_en="Lessons, reworded.")
    html = client.get(change_url("IL-0137"), HTTP_ACCEPT_LANGUAGE="ko").content.decode()
    lessons = still_correct_box(html, "lessons_ko")
    assert "Stale" not in lessons and "Korean still correct" not in lessons
    assert 'value="lessons"' in lessons


def test_ticking_a_step_s_own_box_makes_it_current_and_the_history_says_so(
    client, translated, editor
):
    logged_in(client, editor)
    save_admin(client, "IL-0137", **{"remediation_steps-1-text_en": "A second step, rewritten."})
    assert states("IL-0137")["remediation[1]"] == STALE
    save_admin(client, "IL-0137", still_correct=["remediation[1]"])
    assert states("IL-0137")["remediation[1]"] == CURRENT
    last = LogEntry.objects.order_by("-id").first()
    assert change_message(last) == (
        "Changed Korean still correct for translation “What fixed it, step 2”."
    )
    history = client.get("/admin/cases/case/IL-0137/history/").content.decode()
    assert "What fixed it, step 2" in history


def test_a_remediation_step_edited_makes_its_korean_stale(client, translated, editor):
    logged_in(client, editor)
    save_admin(client, "IL-0137", **{"remediation_steps-1-text_en": "A second step, rewritten."})
    found = states("IL-0137")
    assert found["remediation[1]"] == STALE
    assert found["remediation[0]"] == found["remediation[2]"] == CURRENT


def test_a_step_moved_keeps_its_record(client, translated, editor):
    logged_in(client, editor)
    save_admin(client, "IL-0137", **{"remediation_steps-1-text_en": "Rewritten."})
    # The stale second step moved first: its state goes with it.
    save_admin(client, "IL-0137", **{"remediation_steps-1-order": "1"})
    steps = list(Case.objects.get(id="IL-0137").remediation_steps.all())
    assert steps[0].text_en == "Rewritten."
    found = states("IL-0137")
    assert found["remediation[0]"] == STALE
    assert found["remediation[1]"] == found["remediation[2]"] == CURRENT


def test_korean_removed_is_missing_not_stale(client, translated, editor):
    logged_in(client, editor)
    save_admin(client, "IL-0137", trigger_en="Another trigger.", trigger_ko="")
    assert states("IL-0137")["trigger"] == MISSING
    assert recorded("IL-0137", "trigger") is None


# The import ------------------------------------------------------------------------------


def test_an_import_with_changed_english_marks_the_field_stale(db, tmp_path, translated):
    case = exported("IL-0137")
    assert case["translations"]["summary"]["source"] == source_hash(case["summary"]["en"])
    case["summary"]["en"] = "The summary, corrected in a file."
    import_cases(write_json(tmp_path / "again.json", case))
    assert states("IL-0137")["summary"] == STALE


def test_an_import_that_changes_the_english_dates_the_stale_mark(client, tmp_path, translated):
    case = exported("IL-0137")
    case["summary"]["en"] = "The summary, corrected in a file."
    before = timezone.now()
    import_cases(write_json(tmp_path / "again.json", case))
    english_at = recorded("IL-0137", "summary")["english_at"]
    assert before <= parse_timestamp(english_at) <= timezone.now()
    html = client.get("/cases/IL-0137?lang=ko").content.decode()
    assert f"{STALE_NOTE_KO} ({english_at[:10]})" in html
    # The title's English did not change: nothing dated.
    assert "english_at" not in recorded("IL-0137", "title")
    # Its export imported again changes nothing, the date included; the same file again
    # (the English as stored now, no date in it) keeps the date it has.
    version = Case.objects.get(id="IL-0137").version
    import_cases(write_json(tmp_path / "export.json", exported("IL-0137")))
    import_cases(write_json(tmp_path / "again.json", case))
    assert Case.objects.get(id="IL-0137").version == version
    assert recorded("IL-0137", "summary")["english_at"] == english_at


def test_an_import_keeps_the_date_its_file_gives(db, tmp_path, translated):
    case = exported("IL-0137")
    case["summary"]["en"] = "The summary, corrected in a file."
    case["translations"]["summary"]["english_at"] = "2026-12-01T09:00:00Z"
    import_cases(write_json(tmp_path / "again.json", case))
    assert recorded("IL-0137", "summary")["english_at"] == "2026-12-01T09:00:00Z"


def test_a_file_without_the_member_marks_the_korean_of_changed_english_stale(
    db, tmp_path, translated
):
    """A file that says nothing of the translations still changes an English text under its
    Korean: that Korean is stale, as an admin edit makes it; the texts it leaves as they were
    keep the library's records."""
    case = exported("IL-0137")
    del case["translations"]
    case["summary"]["en"] = "Changed English, nothing known of the Korean."
    before = timezone.now()
    import_cases(write_json(tmp_path / "old.json", case))
    assert states("IL-0137")["summary"] == STALE
    assert recorded("IL-0137", "summary")["source"] == translated.translations["summary"]["source"]
    assert before <= parse_timestamp(recorded("IL-0137", "summary")["english_at"])
    assert recorded("IL-0137", "title") == translated.translations["title"]
    assert states("IL-0137")["title"] == CURRENT


def test_an_import_that_changes_the_english_of_an_unrecorded_korean_makes_it_stale(
    client, seeded, tmp_path
):
    """No record existed (the seed has none): the Korean stood beside the English the import
    replaced, so it is stale, and the Korean page says so instead of 'current'."""
    assert Case.objects.get(id="IL-0137").translations == {}
    case = exported("IL-0137")
    english_before = case["summary"]["en"]
    case["summary"]["en"] = "The summary, corrected in a file."
    case["updated_at"] = "2026-12-01T00:00:00Z"
    import_cases(write_json(tmp_path / "again.json", case))
    assert states("IL-0137")["summary"] == STALE
    assert recorded("IL-0137", "summary")["source"] == source_hash(english_before)
    html = client.get("/cases/IL-0137?lang=ko").content.decode()
    assert STALE_NOTE_KO in html
    both = client.get("/cases/IL-0137/both?lang=ko").content.decode()
    assert both.count('class="both-row both-stale"') == 1


def test_a_korean_text_without_a_record_is_not_said_to_be_current(client, seeded):
    """Nothing records which English the seed's Korean translates: not known, never 'current'."""
    for language, current, not_known in (
        ("en", "Current.", "Not known: nothing records which English this Korean translates."),
        ("ko", "번역이 최신입니다.", "알 수 없음: 이 한국어가 어떤 영어 원문을 옮긴 것인지"),
    ):
        html = client.get(f"/cases/IL-0137/both?lang={language}").content.decode()
        assert current not in html
        assert not_known in html


def test_the_round_trip_is_exact_without_the_member(db, tmp_path):
    case = seed_case()
    assert "translations" not in case
    import_cases(write_json(tmp_path / "seed.json", case))
    again = exported("IL-0137")
    assert "translations" not in again
    assert same_case(again, case)


def test_the_round_trip_is_exact_with_the_member(db, tmp_path):
    case = seed_case()
    case["translations"] = {
        "summary": {"source": "0123456789abcdef", "at": "2026-12-01T00:00:00Z"},
        "remediation[2]": {
            "source": source_hash(case["remediation"][2]["text"]["en"]),
            "english_at": "2026-12-02T10:00:00Z",
        },
    }
    import_cases(write_json(tmp_path / "seed.json", case))
    again = exported("IL-0137")
    assert again["translations"] == case["translations"]
    assert same_case(again, case)
    # Exported, imported again: unchanged (not even a new version).
    version = Case.objects.get(id="IL-0137").version
    import_cases(write_json(tmp_path / "again.json", again))
    assert Case.objects.get(id="IL-0137").version == version
    assert states("IL-0137")["summary"] == STALE


def test_the_import_refuses_a_malformed_member(db, tmp_path):
    from django.core.management.base import CommandError

    case = seed_case()
    case["translations"] = {"summary": {"source": "not a hash"}, "footnote": {"source": "0" * 16}}
    with pytest.raises(CommandError):
        import_cases(write_json(tmp_path / "bad.json", case))
    assert not Case.objects.filter(id="IL-0137").exists()


# The pages --------------------------------------------------------------------------------


@pytest.fixture
def stale_summary(db, tmp_path):
    """IL-0137 with a stale summary, a missing trigger and a stale second remediation step."""
    case = stale_and_missing_case()
    import_cases(write_json(tmp_path / "seed.json", case))
    return case


def test_the_korean_page_marks_a_stale_text_quietly_and_links_the_english_beside_it(
    client, stale_summary
):
    html = client.get("/cases/IL-0137?lang=ko").content.decode()
    assert html.count(STALE_NOTE_KO) == 2  # the summary and the second step
    assert f"{STALE_NOTE_KO} (2026-12-01)" in html
    # The English beside the Korean, where the section is: not the English page, whose
    # ?lang=en would switch the reader's whole library to English.
    assert 'href="/cases/IL-0137/both#summary"' in html
    notes = re.findall(r'class="stale-note".*?</(?:p|small)>', html)
    assert len(notes) == 2 and not any("lang=en" in note for note in notes)
    both = client.get("/cases/IL-0137/both")
    assert 'id="summary"' in both.content.decode() and "Set-Cookie" not in both.headers
    # The stale Korean is still what is shown.
    assert stale_summary["summary"]["ko"].split("\n")[0][:20] in html


def test_the_english_page_says_nothing_of_staleness(client, stale_summary):
    html = client.get("/cases/IL-0137?lang=en").content.decode()
    assert "stale-note" not in html
    assert "changed since this was translated" not in html
    assert 'href="/cases/IL-0137/both"' in html


def test_fallback_and_stale_are_never_confused(client, stale_summary):
    html = client.get("/cases/IL-0137?lang=ko").content.decode()
    trigger = html[
        html.index('id="trigger"') : html.index("</section>", html.index('id="trigger"'))
    ]
    summary = html[
        html.index('id="summary"') : html.index("</section>", html.index('id="summary"'))
    ]
    assert 'class="prose fallback"' in trigger and "stale-note" not in trigger
    assert "stale-note" in summary and "fallback" not in summary


def test_the_json_carries_the_member(client, stale_summary):
    value = json.loads(client.get("/cases/IL-0137.json").content)
    assert value["translations"] == stale_summary["translations"]
    api = client.get("/api/cases/").json()
    listed = api.get("cases") or api.get("results") or api.get("items")
    assert listed is not None, api.keys()
    assert next(c for c in listed if c["id"] == "IL-0137")["translations"]


@pytest.mark.parametrize("language", ["en", "ko"])
def test_the_side_by_side_view_shows_each_text_with_its_state(client, stale_summary, language):
    response = client.get(f"/cases/IL-0137/both?lang={language}")
    assert response.status_code == 200
    html = response.content.decode()
    assert f'<html lang="{language}">' in html
    for section in ("summary", "trigger", "remediation", "lessons"):
        assert f'id="{section}"' in html
    assert html.count('class="both-row both-stale"') == 2
    assert html.count('class="both-row both-missing"') == 1
    assert "2026-11-01" in html and "2026-12-01" in html  # translated, English changed
    assert stale_summary["summary"]["en"][:30] in html
    assert stale_summary["summary"]["ko"][:20] in html
    if language == "ko":  # each state named in words a Korean reader uses
        assert html.count("오래된 번역: ") == 2 and html.count("번역 없음: ") == 1


@pytest.mark.django_db(transaction=True)
def test_the_side_by_side_view_is_cached_like_the_case_page(client, tmp_path):
    import_cases(write_json(tmp_path / "seed.json", seed_case()))
    first = client.get("/cases/IL-0137/both")
    second = client.get("/cases/IL-0137/both")
    assert (first["X-Cache"], second["X-Cache"]) == ("miss", "hit")
    assert client.get("/cases/NOPE-1/both").status_code == 404


def test_the_state_costs_the_case_page_no_query(client, stale_summary, django_assert_num_queries):
    """The same queries as without translations: the state comes from the case row and
    the lists the page reads anyway."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as with_states:
        client.get("/cases/IL-0137?lang=ko")
    Case.objects.filter(id="IL-0137").update(translations={})
    with CaptureQueriesContext(connection) as without:
        client.get("/cases/IL-0137?lang=ko")
    assert len(with_states.captured_queries) == len(without.captured_queries)


def test_the_side_by_side_view_runs_few_queries(
    client, stale_summary, django_assert_max_num_queries
):
    """Queries: the library's state; the case with organisation, terms and reviewer;
    sources; remediation; action items; tags; related links."""
    with django_assert_max_num_queries(7):
        client.get("/cases/IL-0137/both?lang=ko")


# The queue ---------------------------------------------------------------------------------


@pytest.fixture
def queue(db, tmp_path):
    """Q-1 current, Q-2 stale (summary), Q-3 missing (trigger), Q-4 stale (a step) and
    missing (an action item), Q-5 nothing known."""
    known = {"title": {"source": source_hash("An incident")}}
    cases = [
        plain_case("Q-1", translations=dict(known)),
        plain_case("Q-2", translations={"summary": {"source": source_hash("Old words.")}}),
        plain_case("Q-3", trigger={"en": "A push.", "ko": None}),
        plain_case(
            "Q-4",
            remediation=[{"text": {"en": "Rolled back.", "ko": "되돌렸다."}}],
            action_items=[{"text": {"en": "Add a check.", "ko": None}}],
            translations={"remediation[0]": {"source": source_hash("Rolled back twice.")}},
        ),
        plain_case("Q-5", trigger=no_text()),
    ]
    import_cases(write_json(tmp_path / "queue.json", cases))


def direct_counts():
    """The states counted case by case in Python, by the module's own rule."""
    found = {STALE: set(), MISSING: set(), CURRENT: set()}
    for case in Case.objects.for_page():
        values = {text.state for text in translations.case_states(case).values()}
        for state in (STALE, MISSING):
            if state in values:
                found[state].add(case.id)
        if values <= {CURRENT}:
            found[CURRENT].add(case.id)
    return found


def test_the_queue_s_sql_agrees_with_the_rule(queue):
    found = direct_counts()
    assert found[STALE] == {"Q-2", "Q-4"}
    assert found[MISSING] == {"Q-3", "Q-4"}
    assert found[CURRENT] == {"Q-1", "Q-5"}
    for state, condition in translations.CASES_BY_STATE.items():
        assert set(Case.objects.filter(condition).values_list("id", flat=True)) == found[state]


def test_the_admin_filter_lists_the_queue_oldest_change_first(client, queue, editor):
    Case.objects.filter(id="Q-4").update(changed_at="2020-01-01T00:00:00Z")
    logged_in(client, editor)
    html = client.get("/admin/cases/case/?translation=stale").content.decode()
    assert html.index("/admin/cases/case/Q-4/change/") < html.index("/admin/cases/case/Q-2/change/")
    assert "/admin/cases/case/Q-1/change/" not in html
    assert "stale: What fixed it, step 1" in html
    assert "missing: Action item 1" in html


@pytest.mark.django_db(transaction=True)
def test_the_queue_s_counts_are_direct_counts_kept_until_a_write(
    client, queue, editor, django_assert_num_queries
):
    found = direct_counts()
    needing_labels = Term.objects.filter(Q(needs_label=True) | Q(label_ko="")).count()
    expected = {
        STALE: len(found[STALE]),
        MISSING: len(found[MISSING]),
        "terms_needing_labels": needing_labels,
    }
    assert (
        translation_queue_counts()
        == expected
        == {
            STALE: 2,
            MISSING: 2,
            "terms_needing_labels": needing_labels,
        }
    )
    with django_assert_num_queries(1):  # the library's state: the counts come from the cache
        assert translation_queue_counts() == expected
    # A write (committed: the library's generation changes) is counted at once.
    Case.objects.filter(id="Q-1").update(summary_en="The English, changed in SQL.")
    Case.objects.filter(id="Q-1").update(translations={"summary": {"source": source_hash("x")}})
    assert translation_queue_counts()[STALE] == 3 == len(direct_counts()[STALE])
    logged_in(client, editor)
    assert "3 cases stale" in client.get("/admin/").content.decode()


def test_the_admin_index_counts_the_queue_and_links_terms(client, queue, editor):
    logged_in(client, editor)
    html = client.get("/admin/").content.decode()
    assert "2 cases stale" in html
    assert "2 cases missing Korean" in html
    assert "/admin/cases/case/?translation=stale" in html
    assert "/admin/cases/term/?labels=no_korean" in html
    assert Case.objects.filter(Q(translations.CASES_BY_STATE[STALE])).count() == 2


def test_confirming_a_korean_text_of_a_reviewed_case_returns_it_to_draft_saying_why(
    client, translated, editor
):
    """Ticked, "Korean still correct" takes the stale mark off the public page: a change the
    review did not vouch for, and the message says so rather than "its content changed"."""
    logged_in(client, editor)
    save_admin(client, "IL-0137", lessons_en="Lessons, reworded.")
    Case.objects.filter(pk="IL-0137").update(reviewed_by="olga", reviewed_at=timezone.now())
    response = save_admin(client, "IL-0137", still_correct=["lessons"])
    page = client.get(response["Location"]).content.decode()
    assert "a Korean text confirmed as still correct" in page
    assert Case.objects.get(pk="IL-0137").is_draft
