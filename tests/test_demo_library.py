"""The demo library in fixtures/: complete, bilingual, and loaded idempotently by load_demo."""

import json
import re
from io import StringIO

import pytest
from django.core.management import call_command

from cases.exchange.checks_across_cases import FACET_FIELDS, term_slugs
from cases.models import Case, Facet

from .conftest import FIXTURES, SEED, library_state

CASES = [
    json.loads(p.read_text(encoding="utf-8")) for p in sorted((FIXTURES / "cases").glob("*.json"))
]
TAXONOMY = json.loads((FIXTURES / "taxonomy.json").read_text(encoding="utf-8"))


def test_the_seed_case_is_in_the_demo_library_unchanged_but_for_its_kinds_of_fix():
    """The demo's IL-0137 is the seed with a kind on each remediation step (the seed, which
    the tests build their cases from, has none: a file without kinds imports as before)."""
    demo = json.loads((FIXTURES / "cases" / "IL-0137.json").read_text(encoding="utf-8"))
    seed = json.loads(SEED.read_text(encoding="utf-8"))
    assert [step.pop("kind") for step in demo["remediation"]] == [
        "shard-data-files",
        "asynchronous-deletion",
        "tune-readahead",
    ]
    assert demo == seed


def test_every_remediation_step_of_the_demo_has_a_kind_of_fix():
    fix_terms = {t["slug"] for t in TAXONOMY if t["facet"] == "fix"}
    assert {"shard-data-files", "roll-back", "add-capacity", "rate-limit"} <= fix_terms
    for case in CASES:
        assert case["remediation"], case["id"]
        for step in case["remediation"]:
            assert step.get("kind") in fix_terms, (case["id"], step)


def test_the_demo_library_has_reviewed_cases_drafts_and_links():
    assert len(CASES) >= 13
    assert any(c["review"]["reviewed_at"] for c in CASES)
    assert any(not c["review"]["reviewed_at"] for c in CASES)
    assert sum(1 for c in CASES if c["related"]) >= 2
    assert sum(1 for c in CASES if c["recurrence_of"]) >= 2
    for facet in (*FACET_FIELDS, Facet.FIX):
        assert len({slug for c in CASES for f, slug in term_slugs(c) if f == facet}) >= 2, facet


def test_every_demo_case_is_written_in_both_languages():
    for case in CASES:
        assert case["title"]["en"] and case["title"]["ko"], case["id"]
        assert case["summary"]["en"] and case["summary"]["ko"], case["id"]


@pytest.mark.parametrize("language", ["en", "ko"])
def test_no_two_terms_of_the_taxonomy_share_a_label(language):
    """A case's tags list terms of several facets side by side: two with one label
    (데이터베이스, a domain and a component) read as one tag said twice."""
    labels = [t["label"][language] for t in TAXONOMY if t["label"].get(language)]
    assert sorted(label for label in set(labels) if labels.count(label) > 1) == []


def korean_texts(value):
    """Every Korean text in a case or a term, however deep."""
    if isinstance(value, dict):
        if isinstance(value.get("ko"), str):
            yield value["ko"]
        for key, item in value.items():
            if key != "ko":
                yield from korean_texts(item)
    elif isinstance(value, list):
        for item in value:
            yield from korean_texts(item)


# A particle (은/는, 이/가, 을/를, 의, 에, 와/과, (으)로, ...) after a Latin word, a number or
# a sign, written apart from it: "Cloudflare 는" for "Cloudflare는", "85% 가" for "85%가".
PARTICLE_APART = re.compile(
    r"(?<=[A-Za-z0-9)'’%$]) (?:는|은|가|이|를|을|의|에|에서|에는|에도|로|으로|와|과|도|나|이나|까지"
    r"|처럼|보다|라는|별로|용|다|였다)(?=[ ,.)]|$)"
)


def test_no_korean_particle_stands_apart_from_its_word():
    """Korean writes a particle onto the word it follows, a foreign one included."""
    found = [
        (item.get("id") or item.get("slug"), match.group(0), text[: match.start()][-12:])
        for item in [*CASES, *TAXONOMY, json.loads(SEED.read_text(encoding="utf-8"))]
        for text in korean_texts(item)
        for match in PARTICLE_APART.finditer(text)
    ]
    assert found == []


def test_the_taxonomy_labels_every_term_used_in_both_languages():
    terms = {(t["facet"], t["slug"]): t for t in TAXONOMY}
    used = {key for case in CASES for key in term_slugs(case)}
    assert used <= terms.keys(), used - terms.keys()
    for term in TAXONOMY:
        assert term["label"]["en"] and term["label"]["ko"], term["slug"]
        assert term["description"]["en"] and term["description"]["ko"], term["slug"]


@pytest.mark.django_db
def test_loading_the_demo_twice_changes_nothing():
    out = StringIO()
    call_command("load_demo", stdout=out, stderr=StringIO())
    assert f"Cases: {len(CASES)} created" in out.getvalue()
    first = library_state()
    out = StringIO()
    call_command("load_demo", stdout=out, stderr=StringIO())
    assert "Terms: 0 created, 0 updated" in out.getvalue()
    assert "0 created, 0 updated" in out.getvalue()
    assert library_state() == first
    assert Case.objects.count() == len(CASES)


@pytest.mark.django_db
def test_load_demo_leaves_cases_edited_in_the_library_alone():
    call_command("load_demo", stdout=StringIO(), stderr=StringIO())
    Case.objects.filter(id="IL-0137").update(title_en="Edited by a curator")
    call_command("load_demo", stdout=StringIO(), stderr=StringIO())
    assert Case.objects.get(id="IL-0137").title_en == "Edited by a curator"


def test_the_benchmark_names_the_demos_organisations_as_the_demo_does():
    """The README's way to try a large library after `make run` imports a generated file
    onto the demo: an organisation has one name, so a generated case of Knight Capital
    named otherwise than the demo's IL-0001 would be refused."""
    import importlib.util

    from .conftest import ROOT

    spec = importlib.util.spec_from_file_location("generate", ROOT / "bench" / "generate.py")
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    generated = {
        slug: name
        for name, slug, _domain in (
            line.split("|") for line in generate.REAL_ORGS.strip().splitlines()
        )
    }
    demo = {case["org_slug"]: case["org"] for case in CASES}
    shared = demo.keys() & generated.keys()
    assert "knight-capital" in shared
    assert {slug: generated[slug] for slug in shared} == {slug: demo[slug] for slug in shared}


@pytest.mark.django_db
def test_a_benchmark_library_imports_onto_the_demo(tmp_path):
    """And so the import takes a generated file onto the demo library."""
    import subprocess
    import sys

    from .conftest import ROOT

    generated = tmp_path / "bench.jsonl"
    subprocess.run(
        [sys.executable, str(ROOT / "bench" / "generate.py"), "400", str(generated)],
        check=True,
        capture_output=True,
    )
    call_command("load_demo", stdout=StringIO(), stderr=StringIO())
    demo = Case.objects.count()
    call_command("import_cases", str(generated), verbosity=0, stdout=StringIO())
    assert Case.objects.count() == demo + 400
