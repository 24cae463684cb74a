"""The judged corpus of bench/search_quality.py: every case imports under the taxonomy as it
is, and every query names cases of the corpus (a cross-language query's case has no Korean)."""

import pytest

from bench import search_quality
from cases.models import Case


@pytest.mark.django_db
def test_the_corpus_imports_whole_and_the_queries_name_its_cases():
    search_quality.load_corpus()

    cases = search_quality.corpus_cases()
    assert set(Case.objects.values_list("id", flat=True)) == set(cases)
    queries = search_quality.load_queries(cases)
    cross = [query for query in queries if query["cross"]]
    assert len(queries) >= 90 and len(cross) >= 20
    assert sum(not search_quality.has_korean(case) for case in cases.values()) >= 12
