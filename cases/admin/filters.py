"""The list filters of the admin: the terms' labels, and the cases' review status,
translation, facets and organisation.

The cases' filters are each one condition on the case row (ConditionFilter), which both
narrows the list and counts every choice in one pass when the counts are asked for.
"""

from django.contrib import admin
from django.db.models import Count, Q
from django.utils.functional import lazy
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _

from cases import translations
from cases.listing.selection import facet_condition
from cases.models import REVIEWED, Organisation, Term


class TermLabelFilter(admin.SimpleListFilter):
    """Terms an import made with a label from their slug, and terms with no Korean label."""

    title = gettext_lazy("labels")
    parameter_name = "labels"

    def lookups(self, request, model_admin):
        return [
            ("missing", _("Needing a label")),
            ("from_slug", _("Made from the slug by an import")),
            ("no_korean", _("No Korean label")),
        ]

    def queryset(self, request, queryset):
        condition = TERMS_NEEDING_LABELS.get(self.value())
        return queryset.filter(condition) if condition is not None else queryset


TERMS_NEEDING_LABELS = {
    "missing": Q(needs_label=True) | Q(label_ko=""),
    "from_slug": Q(needs_label=True),
    "no_korean": Q(label_ko=""),
}


class ConditionFilter(admin.SimpleListFilter):
    """A filter each of whose choices is one condition on the case row (`condition`), which
    both narrows the list and, when the counts are asked for, counts in one pass over the
    selection: not Django's one subquery per choice, minutes at 100,000 cases."""

    def condition(self, value):
        raise NotImplementedError

    def queryset(self, request, queryset):
        value = self.value()
        if value not in {str(choice) for choice, _label in self.lookup_choices}:
            return queryset  # none, or not one of the choices: the list unfiltered
        return queryset.filter(self.condition(value))

    def get_facet_counts(self, pk_attname, filtered_qs):
        return {
            f"{number}__c": Count(pk_attname, filter=self.condition(value))
            for number, (value, _label) in enumerate(self.lookup_choices)
        }


class ReviewStatusFilter(ConditionFilter):
    title = gettext_lazy("status")
    parameter_name = "status"

    def lookups(self, request, model_admin):
        return [("draft", _("Draft")), ("reviewed", _("Reviewed"))]

    def condition(self, value):
        return ~REVIEWED if value == "draft" else REVIEWED


class TranslationFilter(ConditionFilter):
    """The translation queue: cases with a stale or missing Korean text, oldest change first
    (CaseAdmin.get_ordering)."""

    title = gettext_lazy("translation")
    parameter_name = "translation"

    def lookups(self, request, model_admin):
        return [
            (translations.STALE, _("Stale: the English changed since")),
            (translations.MISSING, _("Missing: some text has no Korean")),
            (translations.CURRENT, _("Current")),
        ]

    def condition(self, value):
        return translations.CASES_BY_STATE[value]


# "By domain", as Django writes "By status": translated when shown, then lowercased.
lowercase = lazy(lambda text: str(text).lower(), str)


class FacetFilter(ConditionFilter):
    """Cases having one term of a facet; `for_facet` makes the filter of each facet."""

    facet = None

    @classmethod
    def for_facet(cls, facet):
        return type(
            f"{facet.name.title().replace('_', '')}Filter",
            (cls,),
            {"facet": facet, "title": lowercase(facet.label), "parameter_name": facet.value},
        )

    def lookups(self, request, model_admin):
        language = get_language()
        return [(term.slug, str(term.label(language))) for term in _terms(request).of(self.facet)]

    def condition(self, value):
        # As the public list filters: the case's term ids, GIN-indexed (tags, severity, root
        # cause and the kinds of its remediation steps alike).
        return facet_condition(self.facet, [value], _terms(self.request))


def _terms(request):
    """The TermIndex, read once a request: the admin builds its filters several times a
    request (once more for each filter's counts)."""
    if not hasattr(request, "term_index"):
        request.term_index = Term.objects.order_by("slug").index()
    return request.term_index


# Organisations the filter lists: those with the most cases (a library has thousands; the
# others are found with the search box, which reads their names).
FILTER_ORGANISATIONS = 20


class OrganisationFilter(ConditionFilter):
    title = gettext_lazy("organisation")
    parameter_name = "organisation"

    def lookups(self, request, model_admin):
        # Read once a request, as the terms are (see _terms).
        if not hasattr(request, "organisations"):
            organisations = Organisation.objects.most_cases(FILTER_ORGANISATIONS)
            chosen = self.value()
            if chosen and chosen not in {organisation.slug for organisation in organisations}:
                organisations += Organisation.objects.filter(slug=chosen)
            request.organisations = organisations
        return [(organisation.slug, organisation.name) for organisation in request.organisations]

    def condition(self, value):
        return Q(organisation__slug=value)
