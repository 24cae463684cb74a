"""The taxonomy: its facets and their terms."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from cases.languages import pick
from cases.models.facet_counts import FacetCount
from cases.models.fields import validate_slug
from cases.patterns import (
    SLUG_PATTERN,
)


class Facet(models.TextChoices):
    DOMAIN = "domain", _("Domain")
    SYMPTOMS = "symptoms", _("Symptoms")
    COMPONENTS = "components", _("Components")
    ROOT_CAUSE = "root_cause", _("Root cause")
    CONTRIBUTING = "contributing", _("Contributing factors")
    SEVERITY = "severity", _("Severity")
    # The kind of each remediation step (RemediationStep.kind): a case has the kinds of its
    # steps, as it has its tags.
    FIX = "fix", _("Kind of fix")


# The severities a case may have, least severe first (the exchange format's description
# lists them; a typo must not become a new severity term). Shown most severe first.
SEVERITIES = ("unknown", "low", "medium", "high", "critical")
MOST_SEVERE_FIRST = SEVERITIES[::-1]


# Facets a case has several terms of (kept in order); the others have exactly one.
LIST_FACETS = (Facet.DOMAIN, Facet.SYMPTOMS, Facet.COMPONENTS, Facet.CONTRIBUTING)


class TermIndex:
    """Every taxonomy term, loaded in one query (`Term.objects.index()`), by facet, slug and id."""

    def __init__(self, terms):
        self.all = list(terms)
        self._by_key = {(term.facet, term.slug): term for term in self.all}
        self.by_id = {term.id: term for term in self.all}

    def of(self, facet):
        return [term for term in self.all if term.facet == facet]

    def by_label(self, facet, language):
        """The facet's terms in the order of their labels in `language`, as a reader looks one
        up (the taxonomy page, the diagnose form); severities most severe first."""
        terms = sorted(self.of(facet), key=lambda term: str(term.label(language)).lower())
        if facet == Facet.SEVERITY:
            rank = {slug: n for n, slug in enumerate(MOST_SEVERE_FIRST)}
            terms.sort(key=lambda term: rank.get(term.slug, len(rank)))
        return terms

    def get(self, facet, slug):
        return self._by_key.get((facet, slug))

    def ids(self, facet, slugs):
        """The ids of the facet's terms with these slugs (unknown slugs left out)."""
        return [self._by_key[(facet, slug)].id for slug in slugs if (facet, slug) in self._by_key]


class TermQuerySet(models.QuerySet):
    def index(self):
        return TermIndex(self)

    def public(self):
        """The terms the public sees: every one, less, when drafts are hidden, those that
        only hidden drafts have (FacetCount.drafts_only: a subquery of the same query). A term
        that no case has yet is the taxonomy's own, and is shown."""
        if not settings.INCIDENTLIB_HIDE_DRAFTS:
            return self
        return self.exclude(id__in=FacetCount.objects.drafts_only())


class Term(models.Model):
    """A taxonomy term: one slug of one facet, with labels and descriptions in both languages."""

    facet = models.CharField(_("facet"), max_length=20, choices=Facet.choices)
    slug = models.CharField(_("slug"), max_length=64, validators=[validate_slug])
    label_en = models.CharField(_("label (English)"), max_length=200)
    label_ko = models.CharField(_("label (Korean)"), max_length=200, blank=True)
    description_en = models.TextField(_("description (English)"), blank=True)
    description_ko = models.TextField(_("description (Korean)"), blank=True)
    # An import creates a term it does not know with a label made from its slug ("Cdn edge"):
    # such a term is marked until someone gives it real labels (the admin, load_taxonomy,
    # load_demo). True by default, so that whatever creates a term without saying so marks it.
    needs_label = models.BooleanField(
        _("needs a label"),
        default=True,
        help_text=_("Made by an import, with a label made from its slug."),
    )

    objects = TermQuerySet.as_manager()

    class Meta:
        ordering = ["facet", "slug"]
        verbose_name = _("taxonomy term")
        verbose_name_plural = _("taxonomy terms")
        constraints = [
            models.UniqueConstraint(fields=["facet", "slug"], name="term_one_slug_per_facet"),
            models.CheckConstraint(condition=Q(facet__in=Facet.values), name="term_facet_is_known"),
            models.CheckConstraint(condition=Q(slug__regex=SLUG_PATTERN), name="term_slug_format"),
            models.CheckConstraint(condition=~Q(label_en=""), name="term_label_en_not_empty"),
        ]

    def __str__(self):
        # In the reader's language: the admin's selects and autocomplete show terms so.
        return f"{self.get_facet_display()}: {self.label(get_language())}"

    def get_absolute_url(self):
        return reverse("cases:term", args=[self.facet, self.slug])

    def label(self, language):
        return pick({"en": self.label_en, "ko": self.label_ko}, language)

    def description(self, language):
        return pick({"en": self.description_en, "ko": self.description_ko}, language)
