"""A case's links: its terms (tags) and the cases it names as related."""

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Deferrable, Q
from django.utils.translation import gettext_lazy as _

from cases.models.rules import RELATED_TO_ITSELF
from cases.models.terms import Term


class CaseTerm(models.Model):
    # Looked up by case_term_once (case, term) and case_term_by_term_idx (term, case): an
    # index of their own would only slow each write (an import writes millions of rows).
    case = models.ForeignKey("Case", models.CASCADE, related_name="case_terms", db_index=False)
    term = models.ForeignKey(
        Term,
        models.PROTECT,
        related_name="case_links",
        verbose_name=_("taxonomy term"),
        db_index=False,
    )
    position = models.PositiveSmallIntegerField()

    class Meta:
        # As the admin's history and delete pages name it.
        verbose_name = _("term of a case")
        verbose_name_plural = _("terms of cases")
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["case", "term"], name="case_term_once"),
            models.UniqueConstraint(
                fields=["case", "position"],
                name="case_term_position_unique",
                deferrable=Deferrable.DEFERRED,
            ),
        ]
        indexes = [
            # Filtering the case list by a term: cases having term X.
            models.Index(fields=["term", "case"], name="case_term_by_term_idx"),
        ]

    def __str__(self):
        return f"{self.case_id} {self.term}"


class RelatedCase(models.Model):
    # Looked up by related_case_once (from_case, to_case), and to_case by its own index.
    from_case = models.ForeignKey(
        "Case", models.CASCADE, related_name="related_links", db_index=False
    )
    to_case = models.ForeignKey(
        "Case",
        models.PROTECT,
        related_name="related_from_links",
        verbose_name=_("related case"),
        db_index=False,
    )
    position = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["position"]
        verbose_name = _("related case")
        verbose_name_plural = _("related cases")
        constraints = [
            models.UniqueConstraint(fields=["from_case", "to_case"], name="related_case_once"),
            models.UniqueConstraint(
                fields=["from_case", "position"],
                name="related_case_position_unique",
                deferrable=Deferrable.DEFERRED,
            ),
            models.CheckConstraint(
                condition=~Q(from_case=models.F("to_case")),
                name="related_case_not_itself",
                violation_error_message=RELATED_TO_ITSELF,
            ),
        ]
        indexes = [
            # The cases relating to one (its page; a deletion's protection). A plain index:
            # the one a ForeignKey makes comes with a second for LIKE, never used here.
            models.Index(fields=["to_case"], name="related_case_to_idx"),
        ]

    def __str__(self):
        return f"{self.from_case_id} → {self.to_case_id}"

    def clean(self):
        # The constraint says it too, but a form leaves from_case out of constraint checks.
        if self.from_case_id and self.from_case_id == self.to_case_id:
            raise ValidationError({"to_case": RELATED_TO_ITSELF})
