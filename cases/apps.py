from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CasesConfig(AppConfig):
    name = "cases"
    verbose_name = _("Incident cases")

    def ready(self):
        from django.db.models.signals import post_save

        from . import system_checks  # noqa: F401  (registers them)
        from .models import Case
        from .signals import cases_written
        from .tasks import defer_keeping

        # The worker keeps each case's similar cases (cases/discover/kept.py).
        post_save.connect(defer_keeping, sender=Case, dispatch_uid="cases-similar-saved")
        cases_written.connect(defer_keeping, sender=Case, dispatch_uid="cases-similar-written")
