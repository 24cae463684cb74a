import pytest
from django.core.management import call_command


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
