from django.db import migrations

# Reviewers follow sources and review what they draft (dismissing an item changes it).
REVIEWER_PERMISSIONS = {
    "followedsource": ["view", "add", "change"],
    "item": ["view", "change"],
}


def give_reviewers(apps, schema_editor):
    """The Reviewer group (cases migration 0002) may follow sources and dismiss items."""
    from django.contrib.auth.management import create_permissions
    from django.contrib.contenttypes.management import create_contenttypes

    # Permissions are normally made after all migrations; the group needs them now.
    app_config = apps.get_app_config("ingest")
    app_config.models_module = True
    create_contenttypes(app_config, apps=apps, verbosity=0)
    create_permissions(app_config, apps=apps, verbosity=0)
    app_config.models_module = None
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
