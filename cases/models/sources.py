"""The sources a case cites."""

from django.db import models
from django.db.models import Count, Deferrable, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.utils.translation import gettext_lazy as _

from cases.models.addresses import validate_http_url
from cases.models.fields import validate_slug
from cases.patterns import (
    HTTP_URL_PATTERN,
    SLUG_PATTERN,
)


class SourceQuerySet(models.QuerySet):
    def with_citations(self):
        """Each source with `citations`: how many public cases cite its address."""
        cases = self.model._meta.get_field("case").related_model.objects
        citing = (
            Source.objects.filter(url=OuterRef("url"), case__in=cases.published())
            .order_by()
            .values("url")
            .annotate(cases=Count("case", distinct=True))
            .values("cases")
        )
        return self.annotate(citations=Coalesce(Subquery(citing), 0))


# Labels for the source kinds in use; any other slug is shown as it is.
SOURCE_KIND_LABELS = {
    "paper": _("paper"),
    "postmortem": _("postmortem"),
    "blog": _("blog post"),
    "news": _("news article"),
    "talk": _("talk"),
    "report": _("report"),
    "status-page": _("status page"),
}


class Source(models.Model):
    # Looked up by source_position_unique (case, position).
    case = models.ForeignKey("Case", models.CASCADE, related_name="sources", db_index=False)
    position = models.PositiveSmallIntegerField(_("position"), default=0)
    url = models.CharField(_("address"), max_length=2000, validators=[validate_http_url])
    kind = models.CharField(_("kind"), max_length=64, validators=[validate_slug])
    license = models.CharField(_("licence"), max_length=200, null=True, blank=True)
    archived = models.CharField(
        _("archived copy"), max_length=2000, null=True, blank=True, validators=[validate_http_url]
    )

    objects = SourceQuerySet.as_manager()

    class Meta:
        ordering = ["position", "id"]
        verbose_name = _("source")
        verbose_name_plural = _("sources")
        constraints = [
            models.UniqueConstraint(
                fields=["case", "position"],
                name="source_position_unique",
                deferrable=Deferrable.DEFERRED,
            ),
            models.CheckConstraint(
                condition=Q(url__regex=HTTP_URL_PATTERN), name="source_url_is_http"
            ),
            models.CheckConstraint(
                condition=Q(archived__isnull=True) | Q(archived__regex=HTTP_URL_PATTERN),
                name="source_archived_is_http",
            ),
            models.CheckConstraint(
                condition=Q(kind__regex=SLUG_PATTERN), name="source_kind_format"
            ),
        ]
        indexes = [
            # /sources/?url=...: every case citing one address; with the case's id, so that a
            # case page's key (cases/caching.py) reads which cases cite its sources from the
            # index alone.
            models.Index(fields=["url"], include=["case"], name="source_url_case_idx"),
        ]

    def __str__(self):
        return self.url

    @property
    def kind_label(self):
        return SOURCE_KIND_LABELS.get(self.kind, self.kind)
