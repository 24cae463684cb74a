"""The migrations: none missing, a fresh database made by them, and a database of the release
before (cases at 0025, since squashed) taken as it is."""

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.exceptions import NodeNotFoundError
from django.db.migrations.loader import MigrationLoader
from django.db.migrations.recorder import MigrationRecorder

SQUASHED = ("cases", "0001_squashed_0025_imported_change")


@pytest.mark.django_db
def test_every_model_change_has_a_migration():
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)


def squashed_migration():
    return MigrationLoader(None, ignore_no_migrations=True).disk_migrations[SQUASHED]


def record_the_last_rounds_migrations(names):
    """The recorder's rows as a database of the release before holds them: cases' 0001 to 0025
    one by one (these names), not the squash (which a fresh database records with them).
    The migrations after 0025 stay applied (their tables are in the test database)."""
    MigrationRecorder.Migration.objects.filter(app="cases", name__lt="0026").delete()
    for _app, name in names:
        MigrationRecorder(connection).record_applied("cases", name)


@pytest.mark.django_db
def test_a_database_at_the_last_rounds_0025_takes_the_squash_as_applied():
    record_the_last_rounds_migrations(squashed_migration().replaces)
    call_command("migrate", verbosity=0)
    assert MigrationRecorder.Migration.objects.filter(app="cases", name=SQUASHED[1]).exists()
    call_command("migrate", "--check", verbosity=0)  # nothing left to apply


@pytest.mark.django_db
def test_a_database_short_of_0025_is_refused():
    """CHANGELOG.md: such a database migrates to 0025 with the release before, first."""
    record_the_last_rounds_migrations(squashed_migration().replaces[:-1])
    with pytest.raises(NodeNotFoundError, match="some of the replaced migrations"):
        call_command("migrate", verbosity=0)


@pytest.mark.django_db
def test_a_fresh_database_migrates_back_and_forth():
    """Unapplied (every table and function of the squash dropped) and applied again: the
    functions, triggers and the Reviewer group come back, and the library has a generation."""
    from django.contrib.auth.models import Group

    from cases.models import Library

    def functions():
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_proc WHERE proname LIKE 'cases\\_%%' "
                "AND pronamespace = 'public'::regnamespace"
            )
            return cursor.fetchone()[0]

    made = functions()
    assert made >= 10
    call_command("migrate", "cases", "zero", verbosity=0)
    assert functions() == 0
    call_command("migrate", verbosity=0)
    assert functions() == made
    assert Group.objects.get(name="Reviewer").permissions.filter(codename="review_case")
    assert Library.objects.state().generation >= 1
