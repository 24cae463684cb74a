"""The case list's filters: each a plain GET parameter, so that every selection is a URL.

`/cases/`, the term and organisation pages, the feed and `/api/cases/` all read the same
parameters through `CaseFilter`:

- `domain`, `symptoms`, `components`, `root_cause`, `contributing`, `severity`, `fix`: term
  slugs of that facet, repeated for several (a case having any of them; `fix`, a kind of fix,
  is had by a case one of whose remediation steps is of that kind);
- `org`: slugs of organisations with a public case, likewise; `reviewed`: `yes` or `no`;
- `year_from`, `year_to`: the case's year, inclusive; `updated_since`: an ISO 8601 time
  (within the range of cases/moments.py), the cases the library changed since (`changed_at`,
  the server's time of each write);
- `detected_after`, `resolved_after`: a bucket of the time to detect or to resolve
  (`1h-4h`, `over-1w`, `unknown`: cases/durations.py), the buckets of /stats/'s charts;
- `q`: words to search for (cases/listing/search.py); `sort`: `relevance`, `date` or `updated`,
  newest first (by default relevance when searching, else date; with `updated_since` and no
  `sort`, the latest change by the library first: a case changed while a sync pages through
  moves to the first page, already read, and no case slips past the sync).

The facet filters (the taxonomy, `org` and `reviewed`) are kept apart from the others as
conditions, one per parameter, because facet counts (cases/listing/facet_counts.py) need the
selection without each of them in turn; the others too are conditions, for the empty state's
counts.
"""

from functools import cached_property

import django_filters
from django import forms
from django.core.exceptions import ValidationError
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from cases.durations import BUCKET_CHOICES, bucket_condition
from cases.models import REVIEWED, Case, Facet, Organisation, Term, validate_slug
from cases.moments import MomentFilter

from . import search

TERM_PARAMS = tuple(Facet.values)
# Parameters shown as facets, with counts: the taxonomy, then organisations and review.
FACET_PARAMS = (*TERM_PARAMS, "org", "reviewed")
# Parameters a reader can choose several values of (a case matching any of them).
MULTIPLE_PARAMS = (*TERM_PARAMS, "org")
# Parameters choosing a bucket of a duration: {parameter: the case's column of its seconds}.
DURATION_PARAMS = {"detected_after": "detected_seconds", "resolved_after": "resolved_seconds"}


SORTS = [
    ("relevance", _("relevance")),
    ("date", _("date")),
    ("updated", _("last update")),
]
# The order of `updated_since` without `sort`: not a choice of `sort`, but named as the others.
CHANGED_ORDER_LABEL = _("latest change in the library")

REVIEW_STATES = [("yes", _("reviewed")), ("no", _("draft"))]
# A value that is none of a parameter's, said in words that read in Korean too (Django's
# "bogus 이/가 선택가능항목에 없습니다" cannot know which particle a value takes).
NOT_A_CHOICE = {"invalid_choice": _("“%(value)s” is not one of the values to choose from.")}


class SlugListField(forms.Field):
    """Several values of one parameter (`?org=a&org=b`), each a slug."""

    widget = forms.MultipleHiddenInput

    def to_python(self, value):
        if not value:
            return []
        return [str(item) for item in value]

    def validate(self, value):
        super().validate(value)
        for item in value:
            validate_slug(item)


class OrganisationListField(SlugListField):
    """Several organisation slugs, each of an organisation the public sees (one query).

    An unknown one is refused as an unknown term is; `names` keeps the names of the others.
    """

    default_error_messages = NOT_A_CHOICE

    def validate(self, value):
        super().validate(value)
        self.names = {}
        if value:
            self.names = dict(
                Organisation.objects.public().filter(slug__in=value).values_list("slug", "name")
            )
        for slug in value:
            if slug not in self.names:
                raise ValidationError(
                    self.error_messages["invalid_choice"],
                    code="invalid_choice",
                    params={"value": slug},
                )


class OrganisationListFilter(django_filters.Filter):
    field_class = OrganisationListField


class YearFilter(django_filters.Filter):
    field_class = forms.IntegerField


def facet_condition(param, value, terms):
    """The condition a case meets for one facet parameter's cleaned value; `terms`, the
    TermIndex, gives the ids of term slugs (a case's terms are its `term_ids`)."""
    if param in TERM_PARAMS:
        return Q(term_ids__overlap=terms.ids(param, value))
    if param == "org":
        return Q(organisation__in=Organisation.objects.filter(slug__in=value))
    if param == "reviewed":
        return REVIEWED if value == "yes" else ~REVIEWED
    raise ValueError(f"{param} is not a facet parameter")


class SearchFilter(django_filters.CharFilter):
    field_class = search.SearchField


def _term_filter(facet):
    return django_filters.MultipleChoiceFilter(
        label=facet.label, choices=[], error_messages=NOT_A_CHOICE
    )


def has_feed(selection):
    """Whether a selection (CaseFilter.selection()) has a feed: the feed holds reviewed
    cases, so `reviewed=no` has none."""
    return selection.get("reviewed") != "no"


class OneValueEachForm(forms.Form):
    """A form of the pages' parameters (the filters, /diagnose/): a parameter of one value
    given twice (`reviewed=yes&reviewed=no`) is refused, not read as its last value."""

    def clean(self):
        cleaned = super().clean()
        for name, field in self.fields.items():
            several = isinstance(field, forms.MultipleChoiceField) or isinstance(
                field.widget, forms.MultipleHiddenInput
            )
            if not several and len(self.data.getlist(name)) > 1:
                self.add_error(name, _("is given more than once: give one value."))
        return cleaned


class CaseFilter(django_filters.FilterSet):
    q = SearchFilter(label=_("Search"))
    domain = _term_filter(Facet.DOMAIN)
    symptoms = _term_filter(Facet.SYMPTOMS)
    components = _term_filter(Facet.COMPONENTS)
    root_cause = _term_filter(Facet.ROOT_CAUSE)
    contributing = _term_filter(Facet.CONTRIBUTING)
    severity = _term_filter(Facet.SEVERITY)
    fix = _term_filter(Facet.FIX)
    org = OrganisationListFilter(label=_("Organisation"))
    reviewed = django_filters.ChoiceFilter(
        label=_("Review"), choices=REVIEW_STATES, error_messages=NOT_A_CHOICE
    )
    year_from = YearFilter(label=_("From year"), min_value=1, max_value=9999)
    year_to = YearFilter(label=_("To year"), min_value=1, max_value=9999)
    updated_since = MomentFilter(label=_("Updated since"))
    detected_after = django_filters.ChoiceFilter(
        label=_("Time to detect"), choices=BUCKET_CHOICES, error_messages=NOT_A_CHOICE
    )
    resolved_after = django_filters.ChoiceFilter(
        label=_("Time to resolve"), choices=BUCKET_CHOICES, error_messages=NOT_A_CHOICE
    )
    sort = django_filters.ChoiceFilter(
        label=_("Sort by"), choices=SORTS, error_messages=NOT_A_CHOICE
    )

    class Meta:
        model = Case
        fields = []
        form = OneValueEachForm

    def __init__(self, data=None, queryset=None, *, terms=None, **kwargs):
        """`terms`: the TermIndex (every taxonomy term, loaded once): the valid slugs."""
        super().__init__(data, queryset, **kwargs)
        self.terms = terms if terms is not None else Term.objects.public().index()
        for facet in TERM_PARAMS:
            self.filters[facet].extra["choices"] = [
                (term.slug, term.label_en) for term in self.terms.of(facet)
            ]

    @property
    def search_text(self):
        return self.form.cleaned_data.get("q") or ""

    @cached_property
    def search(self):
        """The Search of `q` (made once: it counts its words' cases once), or None."""
        return search.Search(self.search_text) if self.search_text else None

    @property
    def organisation_names(self):
        """{slug: name} of the organisations `org` names (read when it was checked)."""
        return getattr(self.form.fields["org"], "names", {})

    @property
    def sort_order(self):
        """The list's order: `sort` if given (relevance only when searching), else the latest
        change by the library with `updated_since` ("changed"), else relevance when
        searching, else date."""
        chosen = self.form.cleaned_data.get("sort")
        if chosen == "relevance" and not self.search_text:
            chosen = None
        if chosen:
            return chosen
        if "updated_since" in self.selection():
            return "changed"
        return "relevance" if self.search_text else "date"

    def selection(self):
        """The parameters in use, by name, with their cleaned values."""
        return {
            name: value
            for name, value in self.form.cleaned_data.items()
            if value not in (None, "", [])
        }

    def facet_conditions(self):
        """{parameter: condition} for each facet parameter in use."""
        return {
            param: facet_condition(param, value, self.terms)
            for param, value in self.selection().items()
            if param in FACET_PARAMS
        }

    def other_conditions(self):
        """{parameter: condition} for each parameter in use that is not a facet one."""
        selection = self.selection()
        conditions = {}
        if self.search_text:
            conditions["q"] = self.search.condition()
        if "year_from" in selection:
            conditions["year_from"] = Q(date__year__gte=selection["year_from"])
        if "year_to" in selection:
            conditions["year_to"] = Q(date__year__lte=selection["year_to"])
        if "updated_since" in selection:
            # The library's own time of the write, not updated_at: an import keeps the
            # updated_at its file gives, and a copy kept in sync must still learn of it.
            conditions["updated_since"] = Q(changed_at__gte=selection["updated_since"])
        for param, seconds_column in DURATION_PARAMS.items():
            if param in selection:
                conditions[param] = bucket_condition(seconds_column, selection[param])
        return conditions

    def narrow(self, cases):
        """The cases matching every parameter except the facet ones."""
        for condition in self.other_conditions().values():
            cases = cases.filter(condition)
        return cases

    def filter_queryset(self, queryset):
        cases = self.narrow(queryset)
        for condition in self.facet_conditions().values():
            cases = cases.filter(condition)
        return self.ordered(cases)

    def ordered(self, cases):
        """The cases in the list's order (`sort_order`)."""
        if self.sort_order == "changed":
            return cases.order_by("-changed_at", "id")
        if self.sort_order == "relevance":
            return self.search.ordered(cases)
        if self.sort_order == "updated":
            return cases.order_by("-updated_at", "id")
        return cases.order_by("-date", "id")
