"""Imports inside one transaction (a test's, a script's) each write what they read."""

import pytest

from cases.models import Case

from .library import plain_case, store

pytestmark = pytest.mark.django_db


def test_two_imports_replacing_cases_in_one_transaction_both_write(tmp_path):
    store(tmp_path, plain_case("T-1"), name="first.json")
    store(tmp_path, plain_case("T-1", title={"en": "Second", "ko": None}), name="second.json")
    store(tmp_path, plain_case("T-1", title={"en": "Third", "ko": None}), name="third.json")
    case = Case.objects.get(id="T-1")
    assert (case.title_en, case.version) == ("Third", 3)
