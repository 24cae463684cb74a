"""A case's ordered bilingual lists: its remediation steps and action items."""

from django.db import models
from django.db.models import Deferrable, Q
from django.utils.translation import gettext_lazy as _

from cases.languages import pick
from cases.models.fields import english_text, korean_text
from cases.models.terms import Facet, Term


class CaseStep(models.Model):
    """One item of an ordered bilingual list of a case (remediation, action items)."""

    position = models.PositiveSmallIntegerField(_("position"), default=0)
    text_en = english_text(_("text"), required=True)
    text_ko = korean_text(_("text"))

    class Meta:
        abstract = True
        ordering = ["position", "id"]

    def __str__(self):
        return self.text_en

    def text(self, language):
        return pick({"en": self.text_en, "ko": self.text_ko}, language)


def step_constraints(prefix):
    """The constraints of one CaseStep table: one item per position, an English text."""
    return [
        models.UniqueConstraint(
            fields=["case", "position"],
            name=f"{prefix}_position_unique",
            deferrable=Deferrable.DEFERRED,
        ),
        models.CheckConstraint(condition=~Q(text_en=""), name=f"{prefix}_text_en"),
    ]


class RemediationStep(CaseStep):
    # Looked up by remediation_position_unique (case, position).
    case = models.ForeignKey(
        "Case", models.CASCADE, related_name="remediation_steps", db_index=False
    )
    # What kind of fix the step is (a term of the `fix` facet), if said. The database counts
    # it among the case's terms (Case.term_ids, cases/migrations/).
    kind = models.ForeignKey(
        Term,
        models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        limit_choices_to={"facet": Facet.FIX},
        verbose_name=_("kind of fix"),
    )

    class Meta(CaseStep.Meta):
        verbose_name = _("remediation step")
        verbose_name_plural = _("remediation")
        constraints = step_constraints("remediation")


class ActionItem(CaseStep):
    # Looked up by action_item_position_unique (case, position).
    case = models.ForeignKey("Case", models.CASCADE, related_name="action_items", db_index=False)

    class Meta(CaseStep.Meta):
        verbose_name = _("action item")
        verbose_name_plural = _("action items")
        constraints = step_constraints("action_item")
