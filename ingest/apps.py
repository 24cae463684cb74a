from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class IngestConfig(AppConfig):
    name = "ingest"
    verbose_name = _("Followed sources")
    default_auto_field = "django.db.models.BigAutoField"
