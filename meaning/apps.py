from django.apps import AppConfig


class MeaningConfig(AppConfig):
    name = "meaning"
    verbose_name = "Meaning (sentence vectors)"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from django.db.models.signals import post_save

        from cases.models import Case
        from cases.signals import cases_written
        from meaning.tasks import defer_embedding

        post_save.connect(defer_embedding, sender=Case, dispatch_uid="meaning-case-saved")
        cases_written.connect(defer_embedding, sender=Case, dispatch_uid="meaning-cases-written")
