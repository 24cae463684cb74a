from django.conf import settings
from django.core.checks import Error, register


@register("database")
def database_url_is_set(app_configs, **kwargs):
    if settings.DATABASE_URL:
        return []
    return [
        Error(
            "DATABASE_URL is not set.",
            hint=(
                "Use `make run` / `make test` (they start an embedded PostgreSQL when it is "
                "unset), `make manage ARGS='...'` for other commands, or set DATABASE_URL to "
                "postgres://USER:PASSWORD@HOST:PORT/NAME."
            ),
            id="cases.E001",
        )
    ]
