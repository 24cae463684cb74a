"""Permissions a migration needs before Django makes them, after all migrations: a helper of
migrations cases 0001_squashed_0025_imported_change and ingest 0002_reviewer_permissions,
frozen with them (Django's migration loader skips a module whose name starts with "_")."""


def create_permissions_now(apps, app_label):
    """Make the content types and permissions of `app_label`'s models as they are at this
    point of the migrations, so that a group can be given them."""
    from django.contrib.auth.management import create_permissions
    from django.contrib.contenttypes.management import create_contenttypes

    app_config = apps.get_app_config(app_label)
    app_config.models_module = True
    create_contenttypes(app_config, apps=apps, verbosity=0)
    create_permissions(app_config, apps=apps, verbosity=0)
    app_config.models_module = None
