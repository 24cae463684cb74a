"""A case's similar cases as the worker keeps them (cases/discover/kept.py)."""

from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.db import models
from django.utils.translation import gettext_lazy as _


class SimilarCases(models.Model):
    """A case's similar cases as the worker last made them (cases/discover/kept.py), so that
    its page reads them instead of searching the whole library. Written by the worker only;
    no trigger sees it, so writing it changes no generation. Not a foreign key: a case
    deleted by any means leaves its row, which the worker deletes."""

    case_id = models.CharField(_("case id"), max_length=20, primary_key=True)
    # The case row's version (its xmin) the list was made from: another means a write since.
    case_version = models.CharField(max_length=20)
    # [[id, score, [shared term ids, most informative first]], ...], best first.
    found = models.JSONField(default=list)
    # The ids of `found`, to find the lists naming a case that changed.
    similar_ids = ArrayField(models.CharField(max_length=20), default=list)
    # When the list last changed (the page shows it), and when the worker last made it again
    # (finding the same cases leaves the row's list, its date and the page alone).
    made_at = models.DateTimeField(_("made at"))
    checked_at = models.DateTimeField(_("checked at"))

    class Meta:
        verbose_name = _("similar cases")
        verbose_name_plural = _("similar cases")
        indexes = [
            models.Index(fields=["checked_at", "case_id"], name="similarcases_checked_idx"),
            GinIndex(fields=["similar_ids"], name="similarcases_similar_ids_idx"),
        ]

    def __str__(self):
        return f"{self.case_id}: {', '.join(self.similar_ids)}"
