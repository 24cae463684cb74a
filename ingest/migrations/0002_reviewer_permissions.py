from django.db import migrations

from cases.migrations._permissions import create_permissions_now

# Reviewers follow sources and review what they draft (dismissing an item changes it).
REVIEWER_PERMISSIONS = {
    "followedsource": ["view", "add", "change"],
    "item": ["view", "change"],
}


def give_reviewers(apps, schema_editor):
    """The Reviewer group (cases migration 0002) may follow sources and dismiss items."""
    create_permissions_now(apps, "ingest")
    group = apps.get_model("auth", "Group").objects.filter(name="Reviewer").first()
    if group is None:
        return
    Permission = apps.get_model("auth", "Permission")
    codenames = [f"{action}_{model}" for model, actions in REVIEWER_PERMISSIONS.items() for action in actions]
    group.permissions.add(
        *Permission.objects.filter(content_type__app_label="ingest", codename__in=codenames)
    )


class Migration(migrations.Migration):
    dependencies = [
        ("ingest", "0001_initial"),
        ("cases", "0002_review_permission"),
    ]

    operations = [migrations.RunPython(give_reviewers, migrations.RunPython.noop)]
