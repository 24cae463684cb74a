"""The importer on generated near-valid cases: each is imported exactly as given, or refused
with its file, case id and field path; never a traceback, never half a library."""

import copy
import json

import pytest
from django.core.management import CommandError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cases.exchange.format import same_case

from .conftest import exported, import_cases, library_state
from .library import plain_case

pytestmark = pytest.mark.django_db

# Values to put where a field was: of other types, malformed, extreme, unstorable.
ODD_VALUES = [
    None, "", " ", "x" * 300, 0, -1, 10**30, 1.5, float("inf"), True, [], {}, ["a"], {"en": None},
    "2026-13-45", "P", "PT", "javascript:alert(1)", "IL-0137", "il-0137", "\x00", "\ud800",
    "high\n", "스토리지", {"en": "t", "ko": None, "fr": "x"}, [{"text": {"en": "", "ko": None}}],
]  # fmt: skip


def fields_of(value, path=()):
    """Every (path, value) inside a case, to pick one to spoil."""
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from fields_of(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from fields_of(item, (*path, index))


def spoiled(case, path, replacement, drop):
    case = copy.deepcopy(case)
    parent = case
    for part in path[:-1]:
        parent = parent[part]
    if drop and isinstance(parent, dict):
        parent.pop(path[-1], None)
    else:
        parent[path[-1]] = replacement
    return case


BASE = plain_case(
    "F-1",
    remediation=[{"text": {"en": "Roll back", "ko": "되돌림"}}],
    sources=[{"url": "https://example.com/a", "kind": "blog", "license": None, "archived": None}],
    docs=[{"title": "x"}],
)
PATHS = [path for path, _value in fields_of(BASE) if path]


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    path=st.sampled_from(PATHS),
    replacement=st.sampled_from(ODD_VALUES),
    drop=st.booleans(),
)
def test_a_near_valid_case_is_imported_exactly_or_refused_by_name(
    tmp_path, capsys, path, replacement, drop
):
    case = spoiled(BASE, path, replacement, drop)
    # ASCII-escaped, so that a lone surrogate is written as JSON text for the import to judge.
    file = tmp_path / "case.json"
    file.write_text(json.dumps(case, ensure_ascii=True), encoding="utf-8")
    before = library_state()
    try:
        import_cases(file)
    except CommandError:
        errors = capsys.readouterr().err
        assert library_state() == before
        assert f"{file}:" in errors
        problems = [line for line in errors.splitlines() if line.startswith(f"{file}:")]
        assert problems and all("Traceback" not in line for line in problems)
        if isinstance(case.get("id"), str) and case["id"] == "F-1":
            assert any("F-1" in line for line in problems), errors
    else:
        stored = exported("F-1")
        # Which English each Korean translates: the library's own records, which an import
        # keeps or makes (an earlier example changed an English text under its Korean).
        stored.pop("translations", None)
        assert same_case(stored, json.loads(json.dumps(case))), (path, replacement, drop)
