"""Followed sources and the items read from them (docs/ingest.md).

A `FollowedSource` is an address the worker polls on its schedule (ingest/polling.py); each
incident it lists is an `Item`, unique per source and the source's own id for it, which
drafts (and keeps up to date) one draft case of the library (ingest/drafting.py).
"""

import datetime

from django.core.validators import MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from cases.models import Case, validate_http_url


class Kind(models.TextChoices):
    """The readers (ingest/readers/), by the name `manage.py follow_source` takes."""

    STATUSPAGE = "statuspage", _("Atlassian Statuspage")
    GCP = "gcp", _("Google Cloud incidents.json")
    SLACK = "slack", _("Slack status history")
    FEED = "feed", _("Atom or RSS feed")
    MARKDOWN = "markdown", _("Markdown list of postmortems")
    AIID = "aiid", _("AI Incident Database snapshot (CSV)")
    ARTICLE = "article", _("One article (a pasted address)")


class Impact(models.TextChoices):
    """Statuspage's impacts, least first: a source keeps incidents of at least one."""

    NONE = "none", _("none")
    MINOR = "minor", _("minor")
    MAJOR = "major", _("major")
    CRITICAL = "critical", _("critical")


IMPACT_ORDER = [value for value, _label in Impact.choices]


class Language(models.TextChoices):
    ENGLISH = "en", _("English")
    KOREAN = "ko", _("Korean")


class FollowedSource(models.Model):
    name = models.SlugField(
        _("name"), max_length=64, unique=True, help_text=_("A short name: letters, digits, -.")
    )
    kind = models.CharField(_("kind"), max_length=20, choices=Kind.choices)
    url = models.CharField(
        _("address"),
        max_length=2000,
        validators=[validate_http_url],
        help_text=_(
            "For a status page, the page's own address (https://www.githubstatus.com); for the "
            "others, the address of the file, feed or article."
        ),
    )
    licence = models.CharField(
        _("licence"),
        max_length=200,
        blank=True,
        help_text=_("Kept on every case drafted from this source (CC BY-SA 4.0, ...)."),
    )
    language = models.CharField(
        _("language"),
        max_length=2,
        choices=Language.choices,
        default=Language.ENGLISH,
        help_text=_(
            "The language the source writes in: a Korean source's text goes to the Korean "
            "fields; drafts from an English one wait in the translation queue."
        ),
    )
    every_minutes = models.PositiveIntegerField(
        _("look every (minutes)"), default=60, validators=[MinValueValidator(1)]
    )
    active = models.BooleanField(_("followed"), default=True)
    # Which incidents to keep.
    min_impact = models.CharField(
        _("least impact kept"),
        max_length=10,
        choices=Impact.choices,
        default=Impact.NONE,
        help_text=_("Status pages: only incidents of at least this impact."),
    )
    postmortem_only = models.BooleanField(
        _("only with a postmortem"),
        default=False,
        help_text=_("Status pages: only incidents whose postmortem is published."),
    )
    words = models.CharField(
        _("words or tags"),
        max_length=500,
        blank=True,
        help_text=_(
            "Feeds: keep only entries whose title, summary or tags hold one of these "
            "comma-separated words (postmortem, 회고, 장애); empty keeps all."
        ),
    )

    # The worker's state.
    next_poll_at = models.DateTimeField(_("next look"), default=timezone.now)
    etag = models.CharField(max_length=500, blank=True, editable=False)
    last_modified = models.CharField(max_length=100, blank=True, editable=False)
    # The hash of the last body read: the same body again is not read item by item.
    read_hash = models.CharField(max_length=64, blank=True, editable=False)
    last_run_at = models.DateTimeField(_("last run"), null=True, blank=True, editable=False)
    last_outcome = models.CharField(_("last outcome"), max_length=300, blank=True, editable=False)
    last_error = models.TextField(_("last error"), blank=True, editable=False)
    last_error_at = models.DateTimeField(_("last error at"), null=True, editable=False)
    errors_in_a_row = models.PositiveIntegerField(default=0, editable=False)
    # How many items it listed at its last good read; a read listing far fewer is flagged.
    items_listed = models.PositiveIntegerField(_("items listed"), default=0, editable=False)
    shrunk = models.TextField(_("listed far fewer items"), blank=True, editable=False)
    # Totals since it was followed (the metrics read them).
    runs = models.PositiveIntegerField(_("runs"), default=0, editable=False)
    drafted = models.PositiveIntegerField(_("drafted"), default=0, editable=False)
    updated = models.PositiveIntegerField(_("updated"), default=0, editable=False)
    skipped = models.PositiveIntegerField(_("unchanged or left out"), default=0, editable=False)
    flagged = models.PositiveIntegerField(_("changed after an edit"), default=0, editable=False)
    refused = models.PositiveIntegerField(_("refused"), default=0, editable=False)
    errors = models.PositiveIntegerField(_("errors"), default=0, editable=False)
    created_at = models.DateTimeField(_("followed since"), auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("followed source")
        verbose_name_plural = _("followed sources")
        indexes = [
            models.Index(
                fields=["next_poll_at"], name="ingest_source_due_idx", condition=Q(active=True)
            )
        ]

    def __str__(self):
        return self.name

    def keyword_list(self):
        return [word.strip().lower() for word in self.words.split(",") if word.strip()]

    def keeps_impact(self, impact):
        if impact not in IMPACT_ORDER:
            return self.min_impact == Impact.NONE
        return IMPACT_ORDER.index(impact) >= IMPACT_ORDER.index(self.min_impact)

    def schedule_next(self, now, *, failed):
        """After a run: again in `every_minutes`; after errors in a row, twice as long for
        each (at most a day), so that a source that is down is not hammered."""
        minutes = self.every_minutes
        if failed:
            minutes = min(minutes * 2 ** min(self.errors_in_a_row, 10), 24 * 60)
        self.next_poll_at = now + datetime.timedelta(minutes=minutes)


class ItemState(models.TextChoices):
    DRAFTED = "drafted", _("drafted")
    DISMISSED = "dismissed", _("dismissed")
    REFUSED = "refused", _("refused")


class Item(models.Model):
    """One incident of a source, by the source's own id for it, and its draft case."""

    source = models.ForeignKey(
        FollowedSource, models.CASCADE, related_name="items", verbose_name=_("source")
    )
    item_id = models.CharField(_("id at the source"), max_length=500)
    url = models.CharField(_("address"), max_length=2000, blank=True)
    title = models.TextField(_("title"), blank=True)
    state = models.CharField(
        _("state"), max_length=10, choices=ItemState.choices, default=ItemState.DRAFTED
    )
    # Provenance: when it was read, and the hash of what was read (ingest/readers/entry.py).
    content_hash = models.CharField(_("hash of what was read"), max_length=64)
    fetched_at = models.DateTimeField(_("fetched at"))
    # What was read last, as the draft was made from it: the difference shown when it changes.
    read = models.JSONField(_("what was read"), default=dict)
    case = models.ForeignKey(
        Case,
        models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("draft case"),
    )
    # The case's version as this item last wrote it: a higher one is someone's edit.
    case_version = models.PositiveIntegerField(null=True, editable=False)
    changed_at_source = models.TextField(
        _("changed at the source"),
        blank=True,
        help_text=_(
            "The source changed this incident after the draft was edited: what changed, "
            "left for the reviewer (the draft keeps the reviewer's text)."
        ),
    )
    problem = models.TextField(_("why it was refused"), blank=True)
    first_seen_at = models.DateTimeField(_("first seen"), auto_now_add=True)

    class Meta:
        ordering = ["-first_seen_at", "id"]
        verbose_name = _("item read")
        verbose_name_plural = _("items read")
        constraints = [
            # Two workers polling at once draft nothing twice.
            models.UniqueConstraint(fields=["source", "item_id"], name="ingest_item_once"),
        ]
        indexes = [models.Index(fields=["case"], name="ingest_item_case_idx")]

    def __str__(self):
        return f"{self.source.name}: {self.item_id}"
