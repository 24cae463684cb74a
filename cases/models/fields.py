"""The shapes of the library's columns: their validators and the bilingual text columns."""

from django.core.validators import MaxLengthValidator, MinLengthValidator, RegexValidator
from django.db import models
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from cases.patterns import (
    CASE_ID_PATTERN,
    DURATION_PATTERN,
    SLUG_PATTERN,
    whole,
)

TEXT_MAX_LENGTH = 100_000
# The width of the timeline's duration columns (Case.detected_after, resolved_after); the
# import refuses a longer duration (cases/exchange/checks.py).
DURATION_MAX_LENGTH = 32

validate_case_id = RegexValidator(whole(CASE_ID_PATTERN), _("Enter a case id such as IL-0137."))
validate_slug = RegexValidator(
    whole(SLUG_PATTERN), _("Use lowercase letters, digits and single hyphens.")
)
validate_duration = RegexValidator(
    whole(DURATION_PATTERN), _("Enter an ISO 8601 duration such as PT45M, PT8H or P2DT3H.")
)


def english_text(verbose_name, required=False):
    """The English column of a bilingual text; null keeps 'not written' apart from ''."""
    return models.TextField(
        format_lazy("{} ({})", verbose_name, _("English")),
        **({} if required else {"null": True, "blank": True}),
        validators=[MaxLengthValidator(TEXT_MAX_LENGTH)]
        + ([MinLengthValidator(1)] if required else []),
    )


def korean_text(verbose_name):
    """The Korean column of a bilingual text: never required (English is the fallback)."""
    return models.TextField(
        format_lazy("{} ({})", verbose_name, _("Korean")),
        null=True,
        blank=True,
        validators=[MaxLengthValidator(TEXT_MAX_LENGTH)],
    )
