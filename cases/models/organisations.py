"""The organisations whose incidents the cases tell."""

from django.db import models
from django.db.models import Exists, OuterRef, Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from cases.models.fields import validate_slug
from cases.patterns import (
    SLUG_PATTERN,
)


class OrganisationQuerySet(models.QuerySet):
    def most_cases(self, limit):
        """The `limit` organisations with the most cases (drafts too), most first, as the facet
        counts the database keeps say (FacetCount); two small queries."""
        # By name: cases/models/facet_counts.py imports this module.
        facet_counts = self.model._meta.apps.get_model("cases", "FacetCount")
        keys = facet_counts.objects.organisations().values_list("key", flat=True)[:limit]
        ids = [-key for key in keys]
        by_id = self.in_bulk(ids)
        return [by_id[id] for id in ids if id in by_id]

    def public(self):
        """The organisations the public sees: those with a public case (the first one found
        is enough)."""
        cases = self.model._meta.get_field("cases").related_model.objects
        return self.filter(Exists(cases.published().filter(organisation=OuterRef("pk"))))


class Organisation(models.Model):
    slug = models.CharField(_("slug"), max_length=64, unique=True, validators=[validate_slug])
    name = models.CharField(_("name"), max_length=200)

    objects = OrganisationQuerySet.as_manager()

    class Meta:
        ordering = ["name"]
        verbose_name = _("organisation")
        verbose_name_plural = _("organisations")
        constraints = [
            models.CheckConstraint(
                condition=Q(slug__regex=SLUG_PATTERN), name="organisation_slug_format"
            ),
            models.CheckConstraint(condition=~Q(name=""), name="organisation_name_not_empty"),
        ]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("cases:org", args=[self.slug])
