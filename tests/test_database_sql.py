"""The database runs every function as the migrations wrote it last.

The functions and triggers the database keeps its derived data with are SQL text in the
migrations (cases' squashed 0001 and any later one that changes a function with CREATE OR
REPLACE), never read from a file: each function's body in the database is the one the last
migration to define it gave.
"""

import re

import pytest
from django.db import connection
from django.db.migrations.loader import MigrationLoader
from django.db.migrations.operations import RunSQL

from .library import DRAFT, plain_case, store

# The project's own apps (procrastinate's migrations keep functions of their own).
APPS = {"cases", "ingest", "meaning"}
FUNCTION = re.compile(r"CREATE (?:OR REPLACE )?FUNCTION (\w+)\(.*?AS \$\$(.*?)\$\$;", re.S)


def functions_as_the_migrations_wrote_them():
    """{name: body} of every function a migration's SQL defines, the last definition kept."""
    graph = MigrationLoader(None, ignore_no_migrations=True).graph
    plan = []
    for leaf in graph.leaf_nodes():
        plan += [key for key in graph.forwards_plan(leaf) if key not in plan]
    functions = {}
    for key in (key for key in plan if key[0] in APPS):
        for operation in graph.nodes[key].operations:
            if isinstance(operation, RunSQL):
                texts = [operation.sql] if isinstance(operation.sql, str) else operation.sql
                for text in texts:
                    functions.update(FUNCTION.findall(text))
    return functions


@pytest.mark.django_db
def test_every_function_of_the_migrations_is_the_databases_own():
    functions = functions_as_the_migrations_wrote_them()
    assert len(functions) >= 10
    with connection.cursor() as cursor:
        for name, body in functions.items():
            cursor.execute("SELECT prosrc FROM pg_proc WHERE proname = %s", [name])
            assert cursor.fetchall() == [(body,)], name


@pytest.mark.django_db(transaction=True)
def test_each_committed_write_gives_the_library_a_generation_never_given_before(tmp_path):
    from cases.models import Case, Library

    before = Library.objects.state()
    store(tmp_path, plain_case("G-1", review=DRAFT))
    after_import = Library.objects.state()
    Case.objects.filter(id="G-1").update(title_en="Another title")
    after_update = Library.objects.state()
    assert before.generation < after_import.generation < after_update.generation
    assert after_update.changed_at >= after_import.changed_at
    assert not after_update.writing


@pytest.mark.django_db
def test_a_transaction_that_wrote_is_told_so(tmp_path):
    from cases.models import Library

    assert not Library.objects.state().writing
    store(tmp_path, plain_case("G-1", review=DRAFT))
    assert Library.objects.state().writing


@pytest.mark.django_db
def test_the_longest_texts_the_format_allows_are_indexed(tmp_path):
    """A tsvector holds at most 1 MB: a long Korean text gives its words, not their endings."""
    from cases.listing import search
    from cases.models import Case

    words = " ".join(f"스토리지{n}번이" for n in range(12_000))[:100_000]
    one_word = "가" * 100_000
    store(
        tmp_path,
        plain_case(
            "L-1",
            summary={"en": "metadata " * 11_000, "ko": words},
            lessons={"en": None, "ko": one_word},
            remediation=[{"text": {"en": "x", "ko": words}} for _ in range(3)],
        ),
    )
    found = search.matching(Case.objects.all(), "스토리지7번이").values_list("id", flat=True)
    assert list(found) == ["L-1"]


@pytest.mark.django_db
def test_search_vectors_are_stored_without_an_attempt_at_compressing_them(tmp_path):
    """STORAGE EXTERNAL (the cases migration): stored out of line as they are. Even a vector
    that would compress is not compressed (the attempt costs an import a sixth of its writes)."""
    from cases.listing import search
    from cases.models import Case

    words = " ".join(f"storage{n:05d}" for n in range(3_000))
    store(tmp_path, plain_case("Z-1", summary={"en": words, "ko": "한국어 요약"}))
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_column_compression(search_vector), pg_column_size(search_vector) "
            "FROM cases_case WHERE id = 'Z-1'"
        )
        method, size = cursor.fetchone()
    assert method is None
    assert size > 30_000
    found = search.matching(Case.objects.all(), "storage02999").values_list("id", flat=True)
    assert list(found) == ["Z-1"]
