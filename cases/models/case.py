"""A case: its columns, constraints and rules, and the queries that read cases."""

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVectorField
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.core.validators import MaxLengthValidator
from django.db import models
from django.db.models import Exists, OuterRef, Q
from django.db.models.expressions import RawSQL
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from cases.durations import DurationSeconds
from cases.json_values import field_path, unstorable_values
from cases.languages import pick
from cases.models.addresses import address_forms, validate_http_url
from cases.models.fields import (
    DURATION_MAX_LENGTH,
    english_text,
    korean_text,
    validate_case_id,
    validate_duration,
)
from cases.models.links import CaseTerm, RelatedCase
from cases.models.organisations import Organisation
from cases.models.recurrence import chain_ids, in_link_order, loops_back
from cases.models.rules import (
    OWN_RECURRENCE,
    RECURRENCE_LOOP,
    REVIEW_BOTH_OR_NEITHER,
    SHOWN_TEXTS,
    shown_problems,
)
from cases.models.sources import Source
from cases.models.steps import RemediationStep
from cases.models.terms import Facet, Term
from cases.patterns import (
    CASE_ID_PATTERN,
    DURATION_PATTERN,
    HTTP_URL_PATTERN,
)

# A reviewed case; ~REVIEWED, a draft.
REVIEWED = Q(reviewed_at__isnull=False)


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
        """What a row of a case list shows: organisation, severity, root cause and tags; and
        the version of the row as read (`row_version`, its xmin), which a list's cache keeps
        (cases/caching.py)."""
        return (
            self.defer("search_vector")
            .annotate(row_version=RawSQL(f"{self.model._meta.db_table}.xmin::text", ()))
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
        hidden = Exists(Case.objects.hidden().filter(id=OuterRef("id")))
        linked = (
            self.filter(id__in=chain_ids(Case, case.id))
            .annotate(is_hidden=hidden)
            .order_by("date", "id")
        )
        return [other for other in in_link_order(linked) if not other.is_hidden]


class DateKind(models.TextChoices):
    OCCURRED = "occurred", _("occurred")
    DETECTED = "detected", _("detected")
    REPORTED = "reported", _("reported")
    PUBLISHED = "published", _("published")


# The bilingual texts of a case: each a <name>_en and a <name>_ko column, named as in the
# exchange format. The export, the import, the translations' records and the search read
# them from here.
BILINGUAL_FIELDS = ("title", "summary", "trigger", "symptoms_text", "detection", "lessons")


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
        _("detected after"),
        max_length=DURATION_MAX_LENGTH,
        null=True,
        blank=True,
        validators=[validate_duration],
    )
    resolved_after = models.CharField(
        _("resolved after"),
        max_length=DURATION_MAX_LENGTH,
        null=True,
        blank=True,
        validators=[validate_duration],
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
    # the database at every write (cases/migrations/, cases_case_derive), never cleared.
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
    # Written by the database, never by Django (cases/migrations/): rebuilt whenever the
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
                violation_error_message=REVIEW_BOTH_OR_NEITHER,
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
        elif self.recurrence_of_id and loops_back(Case, self.id, self.recurrence_of_id):
            errors["recurrence_of"] = RECURRENCE_LOOP
        for name, problem in shown_problems(
            {name: getattr(self, name) for name in (*SHOWN_TEXTS, "reviewed_by", "reviewed_at")}
        ).items():
            # The review is read-only in the admin: its problem is the form's own.
            errors[NON_FIELD_ERRORS if name == "reviewed_by" else name] = problem
        if not isinstance(self.docs, list):
            errors["docs"] = _("Enter a list (a JSON array) of further documents.")
        else:
            # The import's check of the same values (cases/exchange/checks.py).
            problems = [
                f"{field_path(('docs', *path))}: {problem}"
                for path, problem in unstorable_values(self.docs)
            ]
            if problems:
                errors["docs"] = problems
        if errors:
            raise ValidationError(errors)

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
