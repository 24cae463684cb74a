import pytest
from django.core.management import call_command

from cases.listing import search
from cases.models import Case

from .library import plain_case, store


@pytest.mark.django_db
def test_every_model_change_has_a_migration():
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)


@pytest.mark.django_db
def test_the_version_migration_takes_who_last_changed_a_case_from_the_history(seeded):
    import datetime
    import importlib

    from django.apps import apps
    from django.contrib.admin.models import CHANGE, LogEntry
    from django.contrib.auth.models import User
    from django.contrib.contenttypes.models import ContentType

    from cases.models import Case

    migration = importlib.import_module("cases.migrations.0004_case_version")
    updated_at = seeded.updated_at
    hour = datetime.timedelta(hours=1)
    for username, action_time in (("olga", updated_at - hour), ("alice", updated_at + hour)):
        LogEntry.objects.create(
            user=User.objects.create_user(username),
            content_type=ContentType.objects.get_for_model(Case),
            object_id="IL-0137",
            object_repr="IL-0137",
            action_flag=CHANGE,
            action_time=action_time,
        )
    Case.objects.update(changed_by=None)
    migration.record_last_writes(apps, None)
    case = Case.objects.get(pk="IL-0137")
    assert (case.changed_by, case.changed_at) == ("alice", updated_at)
    LogEntry.objects.filter(user__username="alice").delete()
    migration.record_last_writes(apps, None)
    assert Case.objects.get(pk="IL-0137").changed_by is None  # an import, as before


@pytest.mark.django_db
def test_the_derived_columns_migration_derives_them_for_the_stored_cases(tmp_path):
    """Back to 0004 (before the search vector took Korean endings' Latin part, before term
    ids) and forward again: the stored cases get their search vectors and term ids anew."""
    korean_only = {"en": "Something failed.", "ko": "NFS의 메타데이터가 멈췄다."}
    store(tmp_path, plain_case("M-1", summary=korean_only))
    from django.db import connection

    with connection.cursor() as cursor:
        # The test's transaction holds the import's deferred triggers, which ALTER TABLE
        # refuses to run past: fire them now, as a commit would.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    call_command("migrate", "cases", "0004_case_version", verbosity=0)
    call_command("migrate", "cases", verbosity=0)
    assert list(search.matching(Case.objects.all(), "NFS").values_list("id", flat=True)) == ["M-1"]
    case = Case.objects.get(id="M-1")
    expected = sorted(
        [case.severity_id, case.root_cause_id, *case.terms.values_list("id", flat=True)]
    )
    assert case.term_ids == expected


@pytest.mark.django_db(transaction=True)  # each write and the migration commit on their own
@pytest.mark.parametrize(
    ("before", "after"),
    [("데이터베이스", "데이터베이스 서버"), ("DB 서버", "DB 서버")],  # a curator's own: kept
)
def test_the_component_database_takes_its_own_korean_label(before, after):
    from cases.models import Library, Term

    call_command("migrate", "cases", "0019_organisation_pages_by_date", verbosity=0)
    Term.objects.update_or_create(
        facet="components",
        slug="database",
        defaults={"label_en": "Database", "label_ko": before},
    )
    generation = Library.objects.state().generation
    call_command("migrate", "cases", verbosity=0)
    assert Term.objects.get(facet="components", slug="database").label_ko == after
    # No page cached with the old label outlives the migration.
    assert (Library.objects.state().generation > generation) == (before != after)
