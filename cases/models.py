"""The case library: cases, their organisations, sources, steps, taxonomy terms and links."""

import datetime
import unicodedata
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVectorField
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.core.validators import MaxLengthValidator, MinLengthValidator, RegexValidator
from django.db import connection, models
from django.db.models import Count, Deferrable, Exists, OuterRef, Q, Subquery, Sum
from django.db.models.expressions import RawSQL
from django.db.models.functions import Coalesce
from django.urls import reverse
from django.utils import timezone
from django.utils.text import format_lazy
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from cases.durations import DurationSeconds
from cases.languages import pick
from cases.patterns import (
    CASE_ID_PATTERN,
    DURATION_PATTERN,
    HTTP_URL_PATTERN,
    SLUG_PATTERN,
    whole,
)

TEXT_MAX_LENGTH = 100_000

validate_case_id = RegexValidator(whole(CASE_ID_PATTERN), _("Enter a case id such as IL-0137."))
validate_slug = RegexValidator(
    whole(SLUG_PATTERN), _("Use lowercase letters, digits and single hyphens.")
)
_http_url_shape = RegexValidator(
    whole(HTTP_URL_PATTERN), _("Enter an http:// or https:// address without spaces.")
)


def validate_http_url(value):
    """The one rule of an address a case or a source gives, for the import (its format's
    `http-url`, cases/exchange/checks.py), the admin and /sources/: the format's pattern
    (http or https, no spaces), and an address that `urlsplit` reads, as the pages do
    (address_forms): a host in brackets is an IP address (`https://[2001:db8::1]/`), its
    brackets closed; `https://[zz]/`, `http://[` and `https://[::1/` are not."""
    _http_url_shape(value)
    try:
        urlsplit(value)
    except ValueError:
        raise ValidationError(
            _("Enter an address whose host can be read: brackets must hold an IP address."),
            code="unreadable_host",
        ) from None


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


# The rules about a case's links, said once: the constraints, the admin (Case.clean) and the
# import (cases/exchange/checks.py, importer.py) all use these.
OWN_RECURRENCE = _("A case cannot be a recurrence of itself.")
RELATED_TO_ITSELF = _("A case cannot be related to itself.")
RECURRENCE_LOOP = _("The recurrence chain would loop back to this case.")


# What a case must show, said once: the admin (Case.clean) and the import
# (cases/exchange/checks.py) both use `shown_problems`.
NOTHING_SHOWN = _(
    "Enter text that shows: this holds only spaces or invisible characters (such as U+200B, "
    "a zero-width space)."
)
REVIEWER_NOT_SHOWN = _(
    "A reviewed case names its reviewer, and this name holds only spaces or invisible characters."
)
# The texts a reader finds a case by: a title or summary that shows nothing is a blank one.
SHOWN_TEXTS = ("title_en", "title_ko", "summary_en")
# Letters that show nothing (Hangul fillers, the blank Braille pattern).
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def shows_something(text):
    """Whether a text has a character that shows: not a space or separator (Z*), a control,
    format (U+200B, U+FEFF, the bidirectional marks), private or unassigned code point (C*),
    a mark with no letter to mark (M*), nor a blank letter."""
    return any(
        unicodedata.category(char)[0] not in "ZCM" and char not in _BLANK_LETTERS for char in text
    )


def shown_problems(values):
    """{column: message} for a case's columns (`values`: any of SHOWN_TEXTS, `reviewed_by`,
    `reviewed_at`) that must show something and do not: a text given with nothing to show,
    a reviewed case whose reviewer's name shows nothing ("" included)."""
    problems = {
        name: NOTHING_SHOWN
        for name in SHOWN_TEXTS
        if isinstance(values.get(name), str) and values[name] and not shows_something(values[name])
    }
    reviewer = values.get("reviewed_by")
    if values.get("reviewed_at") and isinstance(reviewer, str) and not shows_something(reviewer):
        problems["reviewed_by"] = REVIEWER_NOT_SHOWN
    return problems


def recurrence_loops(case_id, recurrence_of, parent_of):
    """Whether making `case_id` a recurrence of `recurrence_of` closes a loop.

    `parent_of(id)` gives the case `id` is a recurrence of, or None. The walk up the chain
    stops at a loop that does not pass through `case_id` (stored data can hold none, but a
    run being imported might).
    """
    seen, current = set(), recurrence_of
    while current and current not in seen:
        if current == case_id:
            return True
        seen.add(current)
        current = parent_of(current)
    return False


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


class OrganisationQuerySet(models.QuerySet):
    def most_cases(self, limit):
        """The `limit` organisations with the most cases (drafts too), most first, as the facet
        counts the database keeps say (FacetCount); two small queries."""
        keys = FacetCount.objects.organisations().values_list("key", flat=True)[:limit]
        ids = [-key for key in keys]
        by_id = self.in_bulk(ids)
        return [by_id[id] for id in ids if id in by_id]

    def public(self):
        """The organisations the public sees: those with a public case (the first one found
        is enough)."""
        return self.filter(Exists(Case.objects.published().filter(organisation=OuterRef("pk"))))


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


# A reviewed case; ~REVIEWED, a draft.
REVIEWED = Q(reviewed_at__isnull=False)


def address_forms(url):
    """The forms of an address that name the same page, as a reader may paste it: as given,
    with its scheme and host in small letters (they are case-blind), and each with or
    without a trailing slash when it has no query."""
    parts = urlsplit(url)
    lowered = urlunsplit(parts._replace(scheme=parts.scheme.lower(), netloc=parts.netloc.lower()))
    forms = {url, lowered}
    if not parts.query and not parts.fragment:
        forms |= {form[:-1] if form.endswith("/") else form + "/" for form in forms}
    return sorted(forms)


class CaseQuerySet(models.QuerySet):
    def published(self):
        """The cases the public may see: all, or only reviewed ones when drafts are hidden."""
        if settings.INCIDENTLIB_HIDE_DRAFTS:
            return self.filter(REVIEWED)
        return self

    def hidden(self):
        """The cases the public may not see: published()'s others (the drafts when drafts are
        hidden, else none)."""
        if settings.INCIDENTLIB_HIDE_DRAFTS:
            return self.exclude(REVIEWED)
        return self.none()

    def for_page(self):
        """Everything the case page and the export show, in a fixed number of queries."""
        return (
            self.defer("search_vector")
            .select_related("organisation", "severity", "root_cause", "recurrence_of", "reviewer")
            .prefetch_related(
                models.Prefetch("sources", queryset=Source.objects.with_citations()),
                models.Prefetch(
                    "remediation_steps",
                    queryset=RemediationStep.objects.select_related("kind"),
                ),
                "action_items",
                models.Prefetch("case_terms", queryset=CaseTerm.objects.select_related("term")),
                models.Prefetch(
                    "related_links",
                    queryset=RelatedCase.objects.select_related("to_case").only(
                        "from_case_id",
                        "to_case_id",
                        "position",
                        "to_case__id",
                        "to_case__title_en",
                        "to_case__title_ko",
                        "to_case__reviewed_at",
                    ),
                ),
            )
        )

    def for_list(self):
        """What a row of a case list shows: organisation, severity, root cause and tags."""
        return (
            self.defer("search_vector")
            .select_related("organisation", "severity", "root_cause")
            .prefetch_related(
                models.Prefetch("case_terms", queryset=CaseTerm.objects.select_related("term"))
            )
        )

    def citing(self, url):
        """The cases with a source at this address (/sources/?url=...), in any of the forms
        that name the same page (address_forms)."""
        return self.filter(
            Exists(Source.objects.filter(case=OuterRef("pk"), url__in=address_forms(url)))
        )

    def recurrence_chain(self, case):
        """Every case the public may see linked to `case` by recurrence_of, earlier and
        later, as a list in the order of the links: each case after the one it repeats,
        whatever their dates (a recurrence may be dated before its original); cases
        repeating the same one, oldest first. The order is made with the hidden drafts, which
        are then left out: a draft between two cases leaves them in their order. (So call it
        on all cases, not on published().)

        One query: a recursive walk up (what it repeats) and down (what repeated it).
        """
        table = Case._meta.db_table
        walk = RawSQL(
            f"""
            WITH RECURSIVE earlier(id, recurrence_of_id) AS (
                SELECT id, recurrence_of_id FROM {table} WHERE id = %s
                UNION
                SELECT c.id, c.recurrence_of_id
                FROM {table} c JOIN earlier e ON c.id = e.recurrence_of_id
            ), later(id) AS (
                SELECT id FROM {table} WHERE id = %s
                UNION
                SELECT c.id FROM {table} c JOIN later l ON c.recurrence_of_id = l.id
            )
            SELECT id FROM earlier UNION SELECT id FROM later
            """,
            [case.id, case.id],
        )
        hidden = Exists(Case.objects.hidden().filter(id=OuterRef("id")))
        linked = self.filter(id__in=walk).annotate(is_hidden=hidden).order_by("date", "id")
        return [other for other in in_link_order(linked) if not other.is_hidden]


def in_link_order(cases):
    """`cases` (oldest first), each followed by the cases repeating it, depth first. A case
    whose original is not among them starts a chain of its own."""
    cases = list(cases)
    ids = {case.id for case in cases}
    repeating = {}
    for case in cases:
        original = case.recurrence_of_id if case.recurrence_of_id in ids else None
        repeating.setdefault(original, []).append(case)
    ordered, seen = [], set()
    to_visit = list(reversed(repeating.get(None, [])))
    while to_visit:  # depth first, without recursion: a chain may be long
        case = to_visit.pop()
        if case.id not in seen:  # stored data holds no loop; a walk never repeats anyway
            seen.add(case.id)
            ordered.append(case)
            to_visit.extend(reversed(repeating.get(case.id, [])))
    return ordered


class DateKind(models.TextChoices):
    OCCURRED = "occurred", _("occurred")
    DETECTED = "detected", _("detected")
    REPORTED = "reported", _("reported")
    PUBLISHED = "published", _("published")


class Case(models.Model):
    DateKind = DateKind

    id = models.CharField(
        _("case id"), max_length=20, primary_key=True, validators=[validate_case_id]
    )
    organisation = models.ForeignKey(
        Organisation,
        models.PROTECT,
        related_name="cases",
        verbose_name=_("organisation"),
        db_index=False,  # case_organisation_date_idx begins with it
    )
    date = models.DateField(_("date"))
    date_kind = models.CharField(_("what the date is"), max_length=20, choices=DateKind.choices)

    title_en = english_text(_("title"), required=True)
    title_ko = korean_text(_("title"))
    summary_en = english_text(_("summary"), required=True)
    summary_ko = korean_text(_("summary"))
    trigger_en = english_text(_("trigger"))
    trigger_ko = korean_text(_("trigger"))
    symptoms_text_en = english_text(_("symptoms"))
    symptoms_text_ko = korean_text(_("symptoms"))
    detection_en = english_text(_("detection"))
    detection_ko = korean_text(_("detection"))
    lessons_en = english_text(_("lessons"))
    lessons_ko = korean_text(_("lessons"))

    impact_scope = models.TextField(
        _("impact: scope"), null=True, blank=True, validators=[MaxLengthValidator(4000)]
    )
    impact_users = models.TextField(
        _("impact: users"), null=True, blank=True, validators=[MaxLengthValidator(4000)]
    )
    impact_region = models.TextField(
        _("impact: region"), null=True, blank=True, validators=[MaxLengthValidator(4000)]
    )

    severity = models.ForeignKey(
        Term,
        models.PROTECT,
        related_name="+",
        limit_choices_to={"facet": Facet.SEVERITY},
        verbose_name=_("severity"),
    )
    root_cause = models.ForeignKey(
        Term,
        models.PROTECT,
        related_name="+",
        limit_choices_to={"facet": Facet.ROOT_CAUSE},
        verbose_name=_("root cause"),
    )
    terms = models.ManyToManyField(
        Term, through="CaseTerm", related_name="cases", blank=True, verbose_name=_("tags")
    )

    # ISO 8601 durations kept as written, so that export gives back the same text.
    detected_after = models.CharField(
        _("detected after"), max_length=32, null=True, blank=True, validators=[validate_duration]
    )
    resolved_after = models.CharField(
        _("resolved after"), max_length=32, null=True, blank=True, validators=[validate_duration]
    )
    # Their seconds, computed by the database whenever they are written (NULL for none): the
    # buckets of /stats/ and the `detected_after`/`resolved_after` filters (cases/durations.py).
    detected_seconds = models.GeneratedField(
        expression=DurationSeconds("detected_after"),
        output_field=models.FloatField(),
        db_persist=True,
        verbose_name=_("seconds to detect"),
    )
    resolved_seconds = models.GeneratedField(
        expression=DurationSeconds("resolved_after"),
        output_field=models.FloatField(),
        db_persist=True,
        verbose_name=_("seconds to resolve"),
    )

    related = models.ManyToManyField(
        "self",
        through="RelatedCase",
        symmetrical=False,
        related_name="related_from",
        blank=True,
        verbose_name=_("related cases"),
    )
    recurrence_of = models.ForeignKey(
        "self",
        models.PROTECT,
        null=True,
        blank=True,
        related_name="recurrences",
        verbose_name=_("recurrence of"),
        db_index=False,  # case_recurrence_of_idx, without the LIKE index of a ForeignKey's
    )
    docs = models.JSONField(_("further documents"), default=list, blank=True)
    url = models.CharField(
        _("canonical address"),
        max_length=2000,
        null=True,
        blank=True,
        validators=[validate_http_url],
    )

    written_by = models.CharField(_("written by"), max_length=150, null=True, blank=True)
    reviewed_by = models.CharField(_("reviewed by"), max_length=150, null=True, blank=True)
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("reviewer account"),
    )
    reviewed_at = models.DateTimeField(_("reviewed at"), null=True, blank=True)
    # Whether the case is or was ever reviewed, so that the public may have seen it: kept by
    # the database at every write (cases/database.sql, cases_case_derive), never cleared.
    once_reviewed = models.BooleanField(_("once reviewed"), default=False, editable=False)
    updated_at = models.DateTimeField(_("updated at"))
    created_at = models.DateTimeField(_("added to the library"), auto_now_add=True)
    # The stored version, raised by every write (admin, approval, return, import): a form
    # saves only over the version it was opened at. updated_at cannot be that version, since
    # an import sets it to what its file says, which may be unchanged or earlier.
    version = models.PositiveIntegerField(_("version"), default=1, editable=False)
    # Who wrote that version (a username; null for an import) and when, for "changed by".
    changed_by = models.CharField(
        _("changed by"), max_length=150, null=True, blank=True, editable=False
    )
    changed_at = models.DateTimeField(_("changed at"), default=timezone.now, editable=False)
    # Which English each Korean text was written against (cases/translations.py): set by the
    # admin when a Korean text is written or confirmed, and by an import as its file says.
    translations = models.JSONField(_("translations"), default=dict, blank=True, editable=False)
    # Written by the database, never by Django (cases/database.sql): rebuilt whenever the
    # case, its remediation steps or its organisation's name change.
    search_vector = SearchVectorField(null=True, editable=False)
    # The id and title alone (a part of search_vector), for title matches first.
    title_vector = SearchVectorField(null=True, editable=False)
    # Written by the database too: the ids of every term of the case (tags, severity, root
    # cause, its remediation steps' kinds), sorted, for the list filters and facet counts
    # (cases/listing/).
    term_ids = ArrayField(models.IntegerField(), default=list, editable=False)

    objects = CaseQuerySet.as_manager()

    class Meta:
        ordering = ["-date", "id"]
        verbose_name = _("case")
        verbose_name_plural = _("cases")
        permissions = [("review_case", _("Can approve a case or return it to draft"))]
        constraints = [
            models.CheckConstraint(condition=Q(id__regex=CASE_ID_PATTERN), name="case_id_format"),
            models.CheckConstraint(
                condition=Q(date_kind__in=DateKind.values), name="case_date_kind_is_known"
            ),
            models.CheckConstraint(
                condition=~Q(title_en="") & ~Q(summary_en=""),
                name="case_english_title_and_summary",
                violation_error_message=_("A case needs an English title and summary."),
            ),
            models.CheckConstraint(
                condition=Q(reviewed_at__isnull=True, reviewed_by__isnull=True)
                | Q(reviewed_at__isnull=False, reviewed_by__isnull=False),
                name="case_review_both_or_neither",
                violation_error_message=_(
                    "A reviewed case has both a reviewer and a review time; a draft has neither."
                ),
            ),
            models.CheckConstraint(
                condition=~Q(recurrence_of=models.F("id")),
                name="case_not_own_recurrence",
                violation_error_message=OWN_RECURRENCE,
            ),
            models.CheckConstraint(
                condition=Q(url__isnull=True) | Q(url__regex=HTTP_URL_PATTERN),
                name="case_url_is_http",
            ),
            models.CheckConstraint(
                condition=Q(detected_after__isnull=True)
                | Q(detected_after__regex=DURATION_PATTERN),
                name="case_detected_after_format",
            ),
            models.CheckConstraint(
                condition=Q(resolved_after__isnull=True)
                | Q(resolved_after__regex=DURATION_PATTERN),
                name="case_resolved_after_format",
            ),
        ]
        indexes = [
            # The case list sorted by date (the default order) and by last update.
            models.Index(fields=["-date", "id"], name="case_date_idx"),
            # An organisation's page, by date: its first page without reading all its cases.
            models.Index(fields=["organisation", "-date", "id"], name="case_organisation_date_idx"),
            models.Index(fields=["-updated_at"], name="case_updated_idx"),
            # Incremental sync (?updated_since=): the library's own time of writes, oldest first.
            models.Index(fields=["changed_at", "id"], name="case_changed_idx"),
            # The feed (reviewed cases, latest review first) and the reviewed=yes|no filter.
            models.Index(fields=["-reviewed_at"], name="case_reviewed_idx"),
            # Full-text search (cases/listing/search.py): search_vector @@ query.
            GinIndex(fields=["search_vector"], name="case_search_idx"),
            # Searches matching most of the library: title matches first.
            GinIndex(fields=["title_vector"], name="case_title_search_idx"),
            # The list filters by term (term_ids && ARRAY[...]).
            GinIndex(fields=["term_ids"], name="case_term_ids_idx"),
            # The list filters by time to detect and to resolve (?detected_after=1h-4h).
            models.Index(fields=["detected_seconds"], name="case_detected_seconds_idx"),
            models.Index(fields=["resolved_seconds"], name="case_resolved_seconds_idx"),
            # The recurrences of a case (its page, the chain, a deletion's protection).
            models.Index(fields=["recurrence_of"], name="case_recurrence_of_idx"),
        ]

    def __str__(self):
        return f"{self.id}: {self.title_en}"

    def get_absolute_url(self):
        return reverse("cases:detail", args=[self.id])

    @property
    def is_draft(self):
        return self.reviewed_at is None

    @property
    def is_published(self):
        """Whether the public may see this case: CaseQuerySet.published() for one case."""
        return not (settings.INCIDENTLIB_HIDE_DRAFTS and self.is_draft)

    def clean(self):
        """The import's rules about one case that no field or constraint can say, on their field."""
        errors = {}
        if self.recurrence_of_id and self.recurrence_of_id == self.id:
            errors["recurrence_of"] = OWN_RECURRENCE
        elif self.recurrence_of_id and recurrence_loops(
            self.id, self.recurrence_of_id, Case.stored_recurrence_of
        ):
            errors["recurrence_of"] = RECURRENCE_LOOP
        for name, problem in shown_problems(
            {name: getattr(self, name) for name in (*SHOWN_TEXTS, "reviewed_by", "reviewed_at")}
        ).items():
            # The review is read-only in the admin: its problem is the form's own.
            errors[NON_FIELD_ERRORS if name == "reviewed_by" else name] = problem
        if not isinstance(self.docs, list):
            errors["docs"] = _("Enter a list (a JSON array) of further documents.")
        else:
            # The import's check of the same values (here, not imported at the top:
            # cases/exchange/checks.py reads the exchange format, which reads these models).
            from cases.exchange.checks import unstorable_values
            from cases.exchange.files import field_path

            problems = [
                f"{field_path(('docs', *path))}: {problem}"
                for path, problem in unstorable_values(self.docs)
            ]
            if problems:
                errors["docs"] = problems
        if errors:
            raise ValidationError(errors)

    @staticmethod
    def stored_recurrence_of(case_id):
        """The id of the case the stored case `case_id` is a recurrence of, or None."""
        return Case.objects.filter(id=case_id).values_list("recurrence_of_id", flat=True).first()

    def text(self, name, language):
        """One of the bilingual texts ('title', 'summary', ...) in the reader's language."""
        return pick(
            {"en": getattr(self, f"{name}_en"), "ko": getattr(self, f"{name}_ko")}, language
        )

    def terms_of(self, facet):
        """The case's terms of one facet, in order (from prefetched links when there are some)."""
        if facet == Facet.SEVERITY:
            return [self.severity]
        if facet == Facet.ROOT_CAUSE:
            return [self.root_cause]
        if facet == Facet.FIX:
            # The kinds of the remediation steps, each once, in the steps' order.
            steps = self.remediation_steps.all()
            kinds = {step.kind_id: step.kind for step in steps if step.kind_id}
            return list(kinds.values())
        return [link.term for link in self.case_terms.all() if link.term.facet == facet]


class CaseTerm(models.Model):
    # Looked up by case_term_once (case, term) and case_term_by_term_idx (term, case): an
    # index of their own would only slow each write (an import writes millions of rows).
    case = models.ForeignKey(Case, models.CASCADE, related_name="case_terms", db_index=False)
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
        Case, models.CASCADE, related_name="related_links", db_index=False
    )
    to_case = models.ForeignKey(
        Case,
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


class SourceQuerySet(models.QuerySet):
    def with_citations(self):
        """Each source with `citations`: how many public cases cite its address."""
        citing = (
            Source.objects.filter(url=OuterRef("url"), case__in=Case.objects.published())
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
    case = models.ForeignKey(Case, models.CASCADE, related_name="sources", db_index=False)
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
    case = models.ForeignKey(Case, models.CASCADE, related_name="remediation_steps", db_index=False)
    # What kind of fix the step is (a term of the `fix` facet), if said. The database counts
    # it among the case's terms (Case.term_ids, cases/database.sql).
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
    case = models.ForeignKey(Case, models.CASCADE, related_name="action_items", db_index=False)

    class Meta(CaseStep.Meta):
        verbose_name = _("action item")
        verbose_name_plural = _("action items")
        constraints = step_constraints("action_item")


class DeletedCaseQuerySet(models.QuerySet):
    def since(self, moment=None):
        """(case id, time) of each case that left the public library at or after `moment`
        (every one without it), latest first (/api/cases/deleted/): the cases deleted, and
        when drafts are hidden the drafts changed since (a case returned to draft among them);
        when drafts are hidden, only cases once reviewed: the public never saw the others."""
        deleted = self if moment is None else self.filter(deleted_at__gte=moment)
        hidden = Case.objects.hidden()
        if settings.INCIDENTLIB_HIDE_DRAFTS:  # a draft the public never saw is never named
            deleted = deleted.filter(once_reviewed=True)
            hidden = hidden.filter(once_reviewed=True)
        if moment is not None:
            hidden = hidden.filter(changed_at__gte=moment)
        return (
            deleted.values_list("case_id", "deleted_at")
            .union(hidden.values_list("id", "changed_at"), all=True)
            .order_by("-deleted_at", "case_id")
        )


class DeletedCase(models.Model):
    """A case deleted from the library, kept so that a copy kept in sync learns of it.

    Written by the database only (cases/database.sql), whatever deletes the case: the admin,
    SQL. A case made again under the same id takes its id out of this table.
    """

    case_id = models.CharField(_("case id"), max_length=20, primary_key=True)
    # The database's time of the deleting transaction: a sync time (exchange.export.sync_time)
    # taken before it is never later.
    deleted_at = models.DateTimeField(_("deleted at"))
    # Whether the case was ever reviewed (Case.once_reviewed): with drafts hidden, a deleted
    # draft that never was is a case the public never saw, and is not named.
    once_reviewed = models.BooleanField(_("once reviewed"), default=True)

    objects = DeletedCaseQuerySet.as_manager()

    class Meta:
        verbose_name = _("deleted case")
        verbose_name_plural = _("deleted cases")
        indexes = [
            # /api/cases/deleted/?since=: the deletions since a time, latest first.
            models.Index(fields=["-deleted_at", "case_id"], name="deleted_case_since_idx"),
        ]

    def __str__(self):
        return self.case_id


class ImportedChange(models.Model):
    """One import's change to a case, for the case's admin history: Django's history
    (LogEntry) is of users' actions, and an import has no user. Written by the import
    (cases/exchange/importer.py), one row for each case it creates or changes."""

    CREATED, RETURNED_TO_DRAFT = "created", "returned-to-draft"
    NEWER_REVIEW, OLDER_REVIEW = "newer-review", "older-review"

    case_id = models.CharField(_("case id"), max_length=20)
    imported_at = models.DateTimeField(_("imported at"))
    file = models.TextField(_("file"))
    # The paths of what changed in the exchange format ("lessons.ko", "sources"); none for a
    # case the import created.
    fields = ArrayField(models.TextField(), verbose_name=_("fields"), default=list)
    # CREATED, or what the change did to the case's review (review_lapses), or "".
    outcome = models.CharField(_("outcome"), max_length=20, blank=True, default="")

    class Meta:
        verbose_name = _("imported change")
        verbose_name_plural = _("imported changes")
        indexes = [
            models.Index(fields=["case_id", "imported_at"], name="imported_change_case_idx"),
        ]

    def __str__(self):
        return f"{self.case_id} {self.imported_at:%Y-%m-%d %H:%M} {self.file}"


@dataclass(frozen=True)
class LibraryState:
    """The library as a request sees it: its generation, when it last changed, and whether
    the request's own transaction has written to the database (its changes are not yet
    anybody else's, nor under any generation: nothing may be cached or served from a cache)."""

    generation: int
    changed_at: datetime.datetime | None
    writing: bool

    @property
    def version(self):
        """The generation with the time it was given: unique even if a restored backup gives
        the sequence's numbers again (the cache may hold pages of the lost ones)."""
        stamp = int(self.changed_at.timestamp() * 1_000_000) if self.changed_at else 0
        return f"{self.generation}.{stamp}"


class LibraryManager(models.Manager):
    def state(self):
        """The LibraryState, in one query; generation 0 before the first write."""
        with connection.cursor() as cursor:
            cursor.execute(
                f"""
                SELECT (SELECT generation FROM {self.model._meta.db_table}),
                       (SELECT changed_at FROM {self.model._meta.db_table}),
                       pg_current_xact_id_if_assigned() IS NOT NULL
                """
            )
            generation, changed_at, writing = cursor.fetchone()
        return LibraryState(generation or 0, changed_at, writing)

    def raise_generation(self):
        """A new generation at once, for a write the database's triggers do not see (a case's
        sentence vectors, meaning/embedding.py, change what searches find)."""
        with connection.cursor() as cursor:
            cursor.execute("SELECT cases_raise_generation()")


class Library(models.Model):
    """The library's generation: one row, written by the database only (cases/database.sql).

    Every committed change to a case, its lists, a term or an organisation gives it a new
    generation, never given before, and sets `changed_at`. Cached pages and counts are kept
    under the generation (cases/caching.py): a write makes them unreachable at once.
    """

    generation = models.BigIntegerField(_("generation"))
    changed_at = models.DateTimeField(_("changed at"))

    objects = LibraryManager()

    class Meta:
        verbose_name = _("library state")
        constraints = [models.CheckConstraint(condition=Q(id=1), name="library_one_row")]

    def __str__(self):
        return f"generation {self.generation}"


# A case's keys in the facet counts (cases_case_keys, cases/database.sql): its term ids, its
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
    folds at every write (cases/database.sql): the facet counts over the whole library
    (`within` WHOLE_LIBRARY), and over the cases having one term (`within` its id), without
    counting them. A key is a term's id, an organisation's id negated, or the review key
    (cases/listing/counts.py)."""

    within = models.IntegerField(default=WHOLE_LIBRARY)
    key = models.IntegerField()
    reviewed = models.BooleanField()
    cases = models.IntegerField()
    # The transaction that added this change, until its commit folds it (cases/database.sql).
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
