"""Import then export gives back the same JSON values, for the seed case and every fixture."""

import json
from io import StringIO

import pytest
from django.core.management import call_command

from cases.exchange.format import same_case

from .conftest import FIXTURES, SEED, import_cases, write_json

pytestmark = pytest.mark.django_db

FIXTURE_CASES = sorted((FIXTURES / "cases").glob("*.json"))


def exported_cases():
    out = StringIO()
    call_command("export_cases", stdout=out)
    return {value["id"]: value for value in json.loads(out.getvalue())}


def test_the_seed_case_round_trips_exactly(tmp_path):
    import_cases(SEED)
    assert exported_cases() == {"IL-0137": json.loads(SEED.read_text(encoding="utf-8"))}


@pytest.mark.parametrize("path", FIXTURE_CASES, ids=[p.stem for p in FIXTURE_CASES])
def test_every_fixture_round_trips(path):
    # The whole demo library is imported, since fixtures refer to each other.
    call_command("load_taxonomy", str(FIXTURES / "taxonomy.json"), stdout=StringIO())
    import_cases(FIXTURES / "cases", strict_taxonomy=True)
    original = json.loads(path.read_text(encoding="utf-8"))
    exported = exported_cases()[original["id"]]
    assert same_case(exported, original)
    assert exported.keys() == original.keys()


def test_reimporting_an_export_changes_nothing(tmp_path):
    import_cases(FIXTURES / "cases")
    first = exported_cases()
    export_file = tmp_path / "export.json"
    export_file.write_text(json.dumps(list(first.values()), ensure_ascii=False), encoding="utf-8")
    out = StringIO()
    call_command("import_cases", str(export_file), stdout=out)
    assert f"0 created, 0 updated, {len(first)} unchanged" in out.getvalue()
    assert exported_cases() == first


def test_a_docs_value_changed_only_in_its_json_type_is_stored(tmp_path):
    """`true` is not `1` in JSON (nor `false` `0`), though Python's True == 1: a file that
    changes only that is an update, not "unchanged"."""
    case = json.loads(SEED.read_text(encoding="utf-8"))
    case["docs"] = [{"pages": 1, "public": 0, "ratio": 2}]
    import_cases(write_json(tmp_path / "numbers.json", case))
    case["docs"] = [{"pages": True, "public": False, "ratio": 2.0}]
    out = StringIO()
    call_command("import_cases", str(write_json(tmp_path / "booleans.json", case)), stdout=out)
    assert "0 created, 1 updated, 0 unchanged" in out.getvalue()
    docs = exported_cases()["IL-0137"]["docs"]
    assert docs == [{"pages": True, "public": False, "ratio": 2}]
    assert {key: type(value) for key, value in docs[0].items()} == {
        "pages": bool,
        "public": bool,
        "ratio": float,  # as the file wrote it
    }
