"""What the page of one case (/cases/<id>) shows beside the case itself: the cases around it
(its recurrence chain, related cases both ways, similar cases), its terms under their
headings, its citation, the state of each translation, and the one notice of what is shown
in English for want of a translation. The view (views.case_detail) only fetches the case
and renders this."""

from functools import cached_property

from django.utils import timezone
from django.utils.translation import gettext_lazy

from cases import translations
from cases.discover import citations
from cases.discover.kept import SIMILAR_CASES_MAX_AGE, kept_similar
from cases.discover.similar import similar_cases
from cases.languages import FALLBACK_LANGUAGE, known_value
from cases.models import Case, Facet

# The parts of a case page that can be shown in English on a page in another language, in
# the order the page reads, named for the one notice at its top.
TEXT_PARTS = (
    ("title", gettext_lazy("the title")),
    ("summary", gettext_lazy("what happened")),
    ("trigger", gettext_lazy("the trigger")),
    ("symptoms_text", gettext_lazy("the symptoms")),
    ("detection", gettext_lazy("how it was noticed")),
)
# Shown under "Why" (the root cause, the contributing factors), not under "Classification".
WHY_FACETS = (Facet.ROOT_CAUSE, Facet.CONTRIBUTING)


class CasePage:
    """The page of `case` (fetched with Case.objects.for_page()) in `language`; `address`,
    the case page's absolute address (for its citation)."""

    def __init__(self, case, language, address):
        self.case, self.language, self.address = case, language, address

    @cached_property
    def recurrence_chain(self):
        """The chain of recurrences the case is in, in order (one query); none when alone."""
        chain = Case.objects.only(
            "id", "title_en", "title_ko", "date", "recurrence_of_id", "reviewed_at"
        ).recurrence_chain(self.case)
        return chain if len(chain) > 1 else []

    @cached_property
    def related(self):
        """The public cases this one relates to, in its order."""
        return [link.to_case for link in self.case.related_links.all() if link.to_case.is_published]

    @cached_property
    def related_from(self):
        """The public cases that relate to this one, and that it does not relate to."""
        return list(
            Case.objects.published()
            .filter(related_links__to_case=self.case)
            .exclude(id__in=[link.to_case_id for link in self.case.related_links.all()])
            .only("id", "title_en", "title_ko")
            .order_by("id")
        )

    @cached_property
    def _similar(self):
        """(similar cases other than those related either way, when they were made): as the
        worker kept them (cases/discover/kept.py), or made now if it has not yet."""
        related_ids = [link.to_case_id for link in self.case.related_links.all()]
        excluded = [*related_ids, *(other.id for other in self.related_from)]
        # A case fetched without knowing (no `similar_kept`) asks for the kept list.
        kept = None
        if getattr(self.case, "similar_kept", True):
            kept = kept_similar(self.case, exclude_ids=excluded)
        if kept is not None:
            return kept
        return similar_cases(self.case, exclude_ids=excluded), timezone.now()

    @property
    def similar(self):
        return self._similar[0]

    @cached_property
    def facets(self):
        """(facet, terms) under "Classification": every facet but those shown under "Why"."""
        return [(facet, self.case.terms_of(facet)) for facet in Facet if facet not in WHY_FACETS]

    @cached_property
    def citation(self):
        return citations.reference(self.case, self.address, self.language)

    def parts_in_english(self):
        """What the page shows in English for want of a translation, named in the reader's
        words. Empty on an English page. The page marks each such text lang="en"; this list
        is the one notice that says so, instead of a note under every text."""
        if self.language == FALLBACK_LANGUAGE:
            return []
        case, language = self.case, self.language

        def falls_back(texts):
            return any(text.is_fallback for text in texts)

        parts = [name for field, name in TEXT_PARTS if case.text(field, language).is_fallback]
        if falls_back(step.text(language) for step in case.remediation_steps.all()):
            parts.append(gettext_lazy("what fixed it"))
        if case.text("lessons", language).is_fallback:
            parts.append(gettext_lazy("the lessons"))
        if falls_back(item.text(language) for item in case.action_items.all()):
            parts.append(gettext_lazy("the action items"))
        others = [
            *self.related,
            *self.related_from,
            *(other for other in self.recurrence_chain if other.id != case.id),
            *(found.case for found in self.similar),
        ]
        if falls_back(other.text("title", language) for other in others):
            parts.append(gettext_lazy("titles of other cases"))
        shown_terms = [
            *(case.terms_of(facet) for facet in WHY_FACETS),
            *(terms for _facet, terms in self.facets),
        ]
        if falls_back(term.label(language) for terms in shown_terms for term in terms):
            parts.append(gettext_lazy("names of some terms"))
        return [str(part) for part in parts]

    def impact_in_english(self):
        """Whether the page shows an impact value in English. The exchange format has one
        language for them (a known word, "global", is translated): not a translation to
        come."""
        case = self.case
        values = (case.impact_scope, case.impact_users, case.impact_region)
        return self.language != FALLBACK_LANGUAGE and any(
            known_value(value).is_fallback for value in values if value
        )

    def context(self):
        return {
            "case": self.case,
            "facets": self.facets,
            "related": self.related,
            "related_from": self.related_from,
            "recurrence_chain": self.recurrence_chain,
            "similar": self.similar,
            # The similar cases may lag behind the library (cases/discover/kept.py): the page
            # says when they were made, and the bound.
            "similar_as_of": self._similar[1],
            "similar_max_hours": SIMILAR_CASES_MAX_AGE // 3600,
            "citation": self.citation,
            "highwire_tags": citations.highwire_tags(self.citation),
            # From the case and its prefetched lists: no query (cases/translations.py).
            "translation_states": translations.case_states(self.case),
            "parts_in_english": self.parts_in_english(),
            "impact_in_english": self.impact_in_english(),
        }
