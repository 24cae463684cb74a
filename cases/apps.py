from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CasesConfig(AppConfig):
    name = "cases"
    verbose_name = _("Incident cases")

    def ready(self):
        from . import system_checks  # noqa: F401  (registers them)
