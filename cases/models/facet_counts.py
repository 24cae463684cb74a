"""The facet counts the database keeps, and how a case's keys in them are encoded."""

from django.conf import settings
from django.db import models
from django.db.models import OuterRef, Q, Subquery, Sum
from django.db.models.functions import Coalesce
from django.utils.translation import gettext_lazy as _

from cases.models.organisations import Organisation

# A case's keys in the facet counts (cases_case_keys, cases/migrations/): its term ids, its
# organisation's id negated, and one of these two for its review state.
DRAFT_KEY, REVIEWED_KEY = 0, -(2**31 - 1)


# FacetCount.within of the counts over the whole library (the others are a term's id).
WHOLE_LIBRARY = 0


class FacetCountQuerySet(models.QuerySet):
    def totals(self):
        """Per key, how many cases of these rows have it (`total`: the rows summed); keys with
        none left out."""
        return self.values("key").annotate(total=Sum("cases")).filter(total__gt=0).order_by()

    def drafts_only(self):
        """The term ids that drafts have and no reviewed case, over the whole library."""
        return (
            self.filter(within=WHOLE_LIBRARY, key__gt=0)
            .values("key")
            .annotate(
                reviewed_cases=Coalesce(Sum("cases", filter=Q(reviewed=True)), 0),
                all_cases=Sum("cases"),
            )
            .filter(reviewed_cases=0, all_cases__gt=0)
            .values("key")
        )

    def organisations(self):
        """Per organisation's key, how many cases (drafts too) it has, most first."""
        return (
            self.filter(within=WHOLE_LIBRARY, key__lt=DRAFT_KEY, key__gt=REVIEWED_KEY)
            .totals()
            .order_by("-total", "key")
        )

    def public(self, within=WHOLE_LIBRARY, reviewed=None):
        """totals() of the public cases (those of reviewed cases only when drafts are hidden,
        as Case.objects.published()) of the whole library, or of those having the term whose
        id is `within`; of one review state only if `reviewed` is not None."""
        rows = self.filter(within=within)
        if settings.INCIDENTLIB_HIDE_DRAFTS:
            rows = rows.filter(reviewed=True)
        if reviewed is not None:
            rows = rows.filter(reviewed=reviewed)
        return rows.totals()

    def library(self, within=WHOLE_LIBRARY, reviewed=None):
        """[(key, total, organisation slug, organisation name)] of public(within, reviewed),
        an organisation's slug and name with its key; one query."""
        organisation = Organisation.objects.filter(id=-OuterRef("key"))
        return list(
            self.public(within, reviewed)
            .annotate(
                slug=Subquery(organisation.values("slug")[:1]),
                name=Subquery(organisation.values("name")[:1]),
            )
            .values_list("key", "total", "slug", "name")
        )


class FacetCount(models.Model):
    """How many cases have a key, by review state, as rows of changes the database adds and
    folds at every write (cases/migrations/): the facet counts over the whole library
    (`within` WHOLE_LIBRARY), and over the cases having one term (`within` its id), without
    counting them. A key is a term's id, an organisation's id negated, or the review key
    (cases/listing/facet_counts.py)."""

    within = models.IntegerField(default=WHOLE_LIBRARY)
    key = models.IntegerField()
    reviewed = models.BooleanField()
    cases = models.IntegerField()
    # The transaction that added this change, until its commit folds it (cases/migrations/).
    txid = models.BigIntegerField(null=True, editable=False)

    objects = FacetCountQuerySet.as_manager()

    class Meta:
        verbose_name = _("facet count")
        indexes = [
            models.Index(fields=["within", "key"], name="facetcount_within_idx"),
            models.Index(
                fields=["txid"], name="facetcount_unfolded_idx", condition=Q(txid__isnull=False)
            ),
        ]

    def __str__(self):
        state = "reviewed" if self.reviewed else "draft"
        return f"{self.key} within {self.within} ({state}): {self.cases:+d}"
