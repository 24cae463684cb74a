import copy
import json
import os
from pathlib import Path

import pytest
from django.core.management import call_command

from cases.exchange import case_to_exchange
from cases.models import Case, Organisation, Term

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
SEED = Path(__file__).resolve().parent / "data" / "seed-IL-0137.json"


def seed_case():
    """The real case IL-0137, as the shared data holds it."""
    return json.loads(SEED.read_text(encoding="utf-8"))


def make_case(case_id="T-1", **changes):
    """A valid exchange case built from the seed, with its id and any top-level fields changed."""
    case = copy.deepcopy(seed_case())
    case["id"] = case_id
    case.update(changes)
    return case


def url_of_test_database():
    """DATABASE_URL for a subprocess that must see the test database, not the development one."""
    from urllib.parse import urlsplit, urlunsplit

    from django.db import connection

    url = urlsplit(os.environ["DATABASE_URL"])
    return urlunsplit(url._replace(path="/" + connection.settings_dict["NAME"]))


def write_json(path, value):
    path.write_text(json.dumps(value, ensure_ascii=False, indent=2), encoding="utf-8")
    return path


def import_cases(*paths, **options):
    call_command("import_cases", *map(str, paths), verbosity=0, **options)


def exported(case_id):
    return case_to_exchange(Case.objects.for_page().get(id=case_id))


def library_state():
    """Everything an import can change, to show that a failed one changed nothing."""
    return (
        [case_to_exchange(c) for c in Case.objects.for_page().order_by("id")],
        list(Organisation.objects.values_list("slug", "name").order_by("slug")),
        list(Term.objects.values_list("facet", "slug", "label_en").order_by("facet", "slug")),
    )


@pytest.fixture
def seeded(db, tmp_path):
    """The library holding just the seed case IL-0137."""
    import_cases(write_json(tmp_path / "seed.json", seed_case()))
    return Case.objects.get(id="IL-0137")
