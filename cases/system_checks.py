from django.conf import settings
from django.core.checks import Warning, register


@register()
def database_url_is_set(app_configs, **kwargs):
    """A warning, not an error: makemigrations and compilemessages need no database."""
    if settings.DATABASE_URL:
        return []
    return [
        Warning(
            "DATABASE_URL is not set.",
            hint=(
                "Use `make run` / `make test` (they start an embedded PostgreSQL when it is "
                "unset), `make manage ARGS='...'` for other commands, or set DATABASE_URL to "
                "postgres://USER:PASSWORD@HOST:PORT/NAME."
            ),
            id="cases.W001",
        )
    ]
