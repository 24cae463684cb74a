"""The admin refuses what the import refuses, with the message on the field.

One set of rules: the models' validators, constraints and `clean` methods mirror the
exchange format. Each rule below is broken once through an import file and once through
the change form; both must refuse it, and the form must say why next to the field.
"""

import json

import pytest

from cases.exchange.importer import CaseImport
from cases.models import Case

from ..conftest import (
    change_url,
    exported,
    import_cases,
    logged_in,
    make_case,
    open_case,
    write_json,
)

pytestmark = pytest.mark.django_db

LONG = "x" * 4001
NOTHING_SHOWN = (
    "Enter text that shows: this holds only spaces or invisible characters (such as U+200B, "
    "a zero-width space)."
)
REVIEWER_NOT_SHOWN = (
    "A reviewed case names its reviewer, and this name holds only spaces or invisible characters."
)


def source(**changes):
    return lambda case: case["sources"][0].update(changes)


def text(name, language, value):
    return lambda case: case[name].update({language: value})


def field(name, value):
    return lambda case: case.update({name: value})


def timeline(name, value):
    return lambda case: case["timeline"].update({name: value})


# Addresses urlsplit cannot read, which /sources/ and the case page read.
MALFORMED_HOSTS = ["https://[zz]/", "http://[", "https://[::1/"]
UNREADABLE_HOST = "Enter an address whose host can be read: brackets must hold an IP address."

# (import change, its path in the format, form change, form field, the form's message)
RULES = {
    "a javascript: source address": (
        source(url="javascript:alert(1)"),
        "sources[0].url",
        {"sources-0-url": "javascript:alert(1)"},
        "sources-0-url",
        "Enter an http:// or https:// address without spaces.",
    ),
    "a source address with spaces": (
        source(url="https://example.org/a b"),
        "sources[0].url",
        {"sources-0-url": "https://example.org/a b"},
        "sources-0-url",
        "Enter an http:// or https:// address without spaces.",
    ),
    "a javascript: archived copy": (
        source(archived="javascript:alert(1)"),
        "sources[0].archived",
        {"sources-0-archived": "javascript:alert(1)"},
        "sources-0-archived",
        "Enter an http:// or https:// address without spaces.",
    ),
    "a javascript: canonical address": (
        field("url", "javascript:alert(1)"),
        "url",
        {"url": "javascript:alert(1)"},
        "url",
        "Enter an http:// or https:// address without spaces.",
    ),
    **{
        f"a malformed bracketed host, {address}, as {where}": (
            change(address),
            path,
            {form_field: address},
            form_field,
            UNREADABLE_HOST,
        )
        for address in MALFORMED_HOSTS
        for where, change, path, form_field in [
            ("a source", lambda a: source(url=a), "sources[0].url", "sources-0-url"),
            (
                "an archived copy",
                lambda a: source(archived=a),
                "sources[0].archived",
                "sources-0-archived",
            ),
            ("a canonical address", lambda a: field("url", a), "url", "url"),
        ]
    },
    "a source kind that is not a slug": (
        source(kind="Post Mortem"),
        "sources[0].kind",
        {"sources-0-kind": "Post Mortem"},
        "sources-0-kind",
        "Use lowercase letters, digits and single hyphens.",
    ),
    "a missing English title": (
        text("title", "en", ""),
        "title.en",
        {"title_en": ""},
        "title_en",
        "This field is required.",
    ),
    "a missing English summary": (
        text("summary", "en", ""),
        "summary.en",
        {"summary_en": ""},
        "summary_en",
        "This field is required.",
    ),
    "a remediation step without English": (
        lambda case: case["remediation"][0]["text"].update(en=""),
        "remediation[0].text.en",
        {"remediation_steps-0-text_en": ""},
        "remediation_steps-0-text_en",
        "This field is required.",
    ),
    "an over-long impact": (
        lambda case: case["impact"].update(scope=LONG),
        "impact.scope",
        {"impact_scope": LONG},
        "impact_scope",
        "Ensure this value has at most 4000 characters (it has 4001).",
    ),
    "a duration in words": (
        timeline("detected_after", "45 minutes"),
        "timeline.detected_after",
        {"detected_after": "45 minutes"},
        "detected_after",
        "Enter an ISO 8601 duration such as PT45M, PT8H or P2DT3H.",
    ),
    "a duration with an Arabic-Indic digit": (
        timeline("detected_after", "P\u0663D"),  # Python's \d would take it; the database not
        "timeline.detected_after",
        {"detected_after": "P\u0663D"},
        "detected_after",
        "Enter an ISO 8601 duration such as PT45M, PT8H or P2DT3H.",
    ),
    "a self-recurrence": (
        field("recurrence_of", "IL-0137"),
        "recurrence_of",
        {"recurrence_of": "IL-0137"},
        "recurrence_of",
        "A case cannot be a recurrence of itself.",
    ),
    "a recurrence chain that loops": (
        field("recurrence_of", "T-1"),  # T-1 is a recurrence of IL-0137
        "recurrence_of",
        {"recurrence_of": "T-1"},
        "recurrence_of",
        "The recurrence chain would loop back to this case.",
    ),
    "a recurrence of a case not in the library": (
        field("recurrence_of", "IL-9999"),
        "recurrence_of",
        {"recurrence_of": "IL-9999"},
        "recurrence_of",
        "Select a valid choice. That choice is not one of the available choices.",
    ),
    "a case related to itself": (
        field("related", ["IL-0137"]),
        "related",
        {"related_links-0-to_case": "IL-0137"},
        "related_links-0-to_case",
        "A case cannot be related to itself.",
    ),
    "further documents that are not a list": (
        field("docs", {"paper": "https://example.org"}),
        "docs",
        {"docs": '{"paper": "https://example.org"}'},
        "docs",
        "Enter a list (a JSON array) of further documents.",
    ),
    "NaN in further documents": (
        field("docs", [float("nan")]),
        "docs[0]",
        {"docs": "[NaN]"},
        "docs",
        "docs[0]: nan is not a finite number (NaN and Infinity are not JSON, and a "
        "number beyond a double's range such as 1e400 cannot be stored)",
    ),
    "a number too large in further documents": (
        field("docs", [{"size": float("inf")}]),  # what 1e400 reads as
        "docs[0].size",
        {"docs": '[{"size": 1e400}]'},
        "docs",
        "docs[0].size: inf is not a finite number (NaN and Infinity are not JSON, and a "
        "number beyond a double's range such as 1e400 cannot be stored)",
    ),
    "a NUL character in further documents": (
        field("docs", ["a\u0000b"]),
        "docs[0]",
        {"docs": '["a\\u0000b"]'},
        "docs",
        "docs[0]: contains a NUL character (\\u0000), which cannot be stored",
    ),
    "an unpaired surrogate in further documents": (
        field("docs", ["a\ud800b"]),
        "docs[0]",
        {"docs": '["a\\ud800b"]'},
        "docs",
        "docs[0]: contains an unpaired surrogate (\\ud800-\\udfff), which is not text",
    ),
    # Django's form fields refuse NUL in text, before the database sees it.
    "a NUL character in a text": (
        text("title", "ko", "a\u0000b"),
        "title.ko",
        {"title_ko": "a\u0000b"},
        "title_ko",
        "Null characters are not allowed.",
    ),
    # A title that shows nothing is a blank one (cases.models.shown_problems, for both).
    "an English title of a zero-width space": (
        text("title", "en", "\u200b"),
        "title.en",
        {"title_en": "\u200b"},
        "title_en",
        NOTHING_SHOWN,
    ),
    "a Korean title of Hangul fillers": (
        text("title", "ko", "\u3164\u3164"),
        "title.ko",
        {"title_ko": "\u3164\u3164"},
        "title_ko",
        NOTHING_SHOWN,
    ),
    "an English summary of a word joiner and a bidirectional mark": (
        text("summary", "en", "\u2060\u200f"),
        "summary.en",
        {"summary_en": "\u2060\u200f"},
        "summary_en",
        NOTHING_SHOWN,
    ),
}


@pytest.fixture
def library(db, tmp_path):
    """IL-0137 and T-1, a recurrence of it."""
    import_cases(
        write_json(
            tmp_path / "library.json",
            [make_case("IL-0137"), make_case("T-1", recurrence_of="IL-0137")],
        )
    )


def import_problems(tmp_path, change):
    case = make_case("IL-0137")
    change(case)
    # ASCII with escapes, which UTF-8 can hold even for an unpaired surrogate.
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(case), encoding="utf-8")
    return [str(p) for p in CaseImport([path]).run().problems]


def form_errors(response, name):
    if "-" not in name:
        return response.context["adminform"].form.errors.get(name, [])
    prefix, index, field_name = name.split("-")
    for inline in response.context["inline_admin_formsets"]:
        if inline.formset.prefix == prefix:
            return inline.formset.forms[int(index)].errors.get(field_name, [])
    raise AssertionError(f"no inline {prefix}")


@pytest.mark.parametrize("rule", RULES)
def test_the_import_and_the_admin_refuse_the_same_input(client, library, reviewer, tmp_path, rule):
    import_change, path, form_change, form_field, message = RULES[rule]
    before = exported("IL-0137")

    problems = import_problems(tmp_path, import_change)
    assert any(f": IL-0137: {path}: " in problem for problem in problems), problems

    logged_in(client, reviewer)
    response = client.post(change_url("IL-0137"), {**open_case(client, "IL-0137"), **form_change})
    assert response.status_code == 200
    assert form_errors(response, form_field) == [message]
    assert exported("IL-0137") == before


def test_the_admin_refuses_the_same_related_case_twice(client, library, reviewer, tmp_path):
    problems = import_problems(tmp_path, field("related", ["T-1", "T-1"]))
    assert any("related: lists the same value twice" in p for p in problems)
    logged_in(client, reviewer)
    data = open_case(client, "IL-0137")
    data.update(
        {
            "related_links-TOTAL_FORMS": "2",
            "related_links-0-to_case": "T-1",
            "related_links-1-to_case": "T-1",
            "related_links-1-from_case": "IL-0137",
        }
    )
    response = client.post(change_url("IL-0137"), data)
    assert response.status_code == 200
    related = next(
        i.formset
        for i in response.context["inline_admin_formsets"]
        if i.formset.prefix == "related_links"
    )
    assert related.non_form_errors() == ["Please correct the duplicate data for to_case."]
    assert not Case.objects.get(pk="IL-0137").related.exists()


def test_a_new_case_needs_an_id_in_the_format(client, library, django_user_model):
    logged_in(client, django_user_model.objects.create_superuser("root"))
    response = client.post("/admin/cases/case/add/", {"id": "il 1"})
    assert response.context["adminform"].form.errors["id"] == ["Enter a case id such as IL-0137."]


@pytest.mark.parametrize("name", ["", " ", "\u200b"], ids=["empty", "space", "zero-width"])
def test_a_review_by_a_name_that_shows_nothing_is_refused_by_both(
    client, library, reviewer, tmp_path, name
):
    def reviewed_by_nobody(case):
        case["review"].update(reviewed_at="2026-11-01T00:00:00Z", reviewed_by=name)

    problems = import_problems(tmp_path, reviewed_by_nobody)
    assert any(
        f": IL-0137: review.reviewed_by: {REVIEWER_NOT_SHOWN}" in problem for problem in problems
    ), problems

    # A case stored so before the rule: the admin saves it only once the review is mended.
    Case.objects.filter(pk="IL-0137").update(reviewed_by=name, reviewed_at="2026-11-01T00:00:00Z")
    before = exported("IL-0137")
    logged_in(client, reviewer)
    response = client.post(
        change_url("IL-0137"), {**open_case(client, "IL-0137"), "title_en": "Edited"}
    )
    assert response.status_code == 200
    assert response.context["adminform"].form.non_field_errors() == [REVIEWER_NOT_SHOWN]
    assert exported("IL-0137") == before


@pytest.mark.parametrize("address", MALFORMED_HOSTS)
def test_the_import_says_why_a_bracketed_host_is_refused_once(library, tmp_path, address):
    problems = import_problems(tmp_path, source(url=address))
    about_the_url = [p for p in problems if ": IL-0137: sources[0].url: " in p]
    assert len(about_the_url) == 1, problems
    assert about_the_url[0].endswith(
        f"sources[0].url: {address!r} is not an address whose host can be read: "
        "brackets must hold an IP address"
    )


def test_a_bracketed_ip_address_is_taken(library, tmp_path):
    assert import_problems(tmp_path, source(url="https://[2001:db8::1]:8443/report")) == []


@pytest.mark.parametrize(
    ("form_field", "value"),
    [
        ("organisation", "x"),
        ("organisation", "9" * 30),
        ("severity", "x"),
        ("root_cause", "x"),
        ("recurrence_of", "x" * 40),
        ("case_terms-0-term", "x"),
        ("related_links-0-to_case", "x"),
    ],
)
def test_a_forged_choice_is_a_form_error_not_a_500(client, library, reviewer, form_field, value):
    """The autocomplete selects looked a chosen value up unchecked: `organisation=x` (a
    number's column) was a 500."""
    before = exported("IL-0137")
    logged_in(client, reviewer)
    response = client.post(
        change_url("IL-0137"), {**open_case(client, "IL-0137"), form_field: value}
    )
    assert response.status_code == 200
    assert form_errors(response, form_field) == [
        "Select a valid choice. That choice is not one of the available choices."
    ]
    assert exported("IL-0137") == before
