""" "I'm seeing this" (/diagnose/): from the symptoms a reader sees to the cases that looked
like that, how they were noticed, why they happened and what fixed them.

The reader picks symptoms, and optionally components and domains, and may add free words.
The matching cases are those having any chosen term (with no term chosen, those the words
find as /cases/ finds them). They are in the library's one ranking (cases/ranking.py): the
sum of the weights of the chosen terms each has (a term's rarity times its facet's weight:
symptoms weigh most, so a case sharing two rare symptoms ranks above one sharing a common
one), plus the words' BM25-like score, then newest first, then by id.

Above the results, the root causes and the kinds of fix (of the remediation steps) most
frequent among the matches, with counts; each links to this page narrowed to it
(`root_cause=`, `fix=`), which lists exactly those cases. (A /cases/ link could not: there
the chosen symptoms, components and domains would all have to apply, here any of them does.)

Queries, whatever the size of the library: the taxonomy terms (the form, valid slugs); how
many cases have each chosen term, with the library's size (the weights); the matches
counted by root cause and by kind of fix (one pass over their `term_ids`); one page of them
with organisation, severity and root cause; their remediation steps.
"""

import math
import re
from dataclasses import dataclass
from functools import cached_property

from django import forms
from django.conf import settings
from django.db import connections, router
from django.db.models import F, Prefetch
from django.http import QueryDict
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from cases import ranking, translations
from cases.languages import reader_language
from cases.listing import search
from cases.listing.selection import NOT_A_CHOICE, OneValueEachForm
from cases.models import Case, CaseTerm, Facet, RemediationStep

# The facets of the form; a chosen term counts as the library's one ranking says
# (cases/ranking.py).
FORM_FACETS = (Facet.SYMPTOMS, Facet.COMPONENTS, Facet.DOMAIN)
# Free words read, at most (each is one indexed search).
MAX_WORDS = 8
WORD = re.compile(r"\w[\w.'-]*")
# Root causes and kinds of fix shown above the results, at most (each).
TOP_TERMS = 5
# The facets of the summary above the results, each a parameter narrowing the matches.
SUMMARY_FACETS = (Facet.ROOT_CAUSE, Facet.FIX)
# The bilingual texts of a case a result shows, besides its remediation steps.
SHOWN_TEXTS = ("title", "detection")


class DiagnoseForm(OneValueEachForm):
    symptoms = forms.MultipleChoiceField(
        label=Facet.SYMPTOMS.label,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        error_messages=NOT_A_CHOICE,
    )
    components = forms.MultipleChoiceField(
        label=Facet.COMPONENTS.label,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        error_messages=NOT_A_CHOICE,
    )
    domain = forms.MultipleChoiceField(
        label=Facet.DOMAIN.label,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        error_messages=NOT_A_CHOICE,
    )
    q = search.SearchField(label=_("Words"), required=False)
    root_cause = forms.ChoiceField(
        label=Facet.ROOT_CAUSE.label, required=False, error_messages=NOT_A_CHOICE
    )
    fix = forms.ChoiceField(label=Facet.FIX.label, required=False, error_messages=NOT_A_CHOICE)
    page = forms.IntegerField(label=_("Page"), required=False, min_value=1, max_value=10**6)

    def __init__(self, data, *, terms):
        super().__init__(data)
        self.terms = terms
        for facet in (*FORM_FACETS, *SUMMARY_FACETS):
            choices = [(term.slug, term.label_en) for term in terms.of(facet)]
            if facet in SUMMARY_FACETS:
                choices = [("", ""), *choices]
            self.fields[facet].choices = choices

    def chosen_terms(self):
        """The chosen terms of the form's facets, by facet, in the taxonomy's order."""
        return [
            self.terms.get(facet, slug)
            for facet in FORM_FACETS
            for slug in self.cleaned_data.get(facet) or []
        ]

    @property
    def words(self):
        return WORD.findall(self.cleaned_data.get("q") or "")[:MAX_WORDS]


@dataclass
class Result:
    case: Case
    score: float
    shared_symptoms: list
    # The translation states of the texts a result shows (title, detection, remediation).
    translation_states: dict


@dataclass
class Choice:
    """A checkbox of the form: its term, whether it is ticked, and how many public cases have
    the term (the count the list's sidebar shows for it on the unfiltered list; 0: greyed)."""

    term: object
    chosen: bool
    count: int


@dataclass
class TermCount:
    term: object
    count: int
    url: str
    chosen: bool


class Diagnosis:
    def __init__(self, params, *, terms, path=None, counts=None):
        """`counts`: the library's facet counts (cases/listing/facet_counts.py library_counts),
        which the form's choices show."""
        self.params = params
        self.terms = terms
        self.counts = counts
        self.path = path or reverse("cases:diagnose")
        self.form = DiagnoseForm(params, terms=terms)
        self.results = []
        self.total = 0
        self.root_causes = []
        self.fixes = []
        self.page_number = 1
        self.pages = 0
        self.weights = {}

    def is_valid(self):
        return self.form.is_valid()

    def error_list(self):
        """Each choice that could not be used, named by its label (in the page's language),
        with the values given and its problems."""
        fields = self.form.fields
        return [
            {
                "name": fields[name].label if name in fields else name,
                "values": self.params.getlist(name),
                "messages": messages,
            }
            for name, messages in self.form.errors.items()
        ]

    @property
    def chosen(self):
        return self.form.chosen_terms()

    @property
    def asked(self):
        """Whether the reader has asked anything (a term or a word)."""
        return bool(self.chosen or self.form.words)

    def chosen_in(self, facet):
        """The term chosen to narrow the matches by a facet of the summary, or None."""
        slug = self.form.cleaned_data.get(facet)
        return self.terms.get(facet, slug) if slug else None

    def chosen_root_cause(self):
        return self.chosen_in(Facet.ROOT_CAUSE)

    def chosen_fix(self):
        return self.chosen_in(Facet.FIX)

    # The queries ---------------------------------------------------------------------------

    def _term_weights(self):
        """{term id: weight} of the chosen terms, from how many cases have each (one query)."""
        chosen = self.chosen
        if not chosen:
            return {}
        with connections[router.db_for_read(Case)].cursor() as cursor:
            cursor.execute(
                f"""
                SELECT term.id,
                       (SELECT count(*) FROM {CaseTerm._meta.db_table} AS tag
                         WHERE tag.term_id = term.id),
                       (SELECT count(*) FROM {Case._meta.db_table})
                  FROM unnest(%s::integer[]) AS term(id)
                """,
                [[term.id for term in chosen]],
            )
            having = {term_id: (cases, size) for term_id, cases, size in cursor.fetchall()}
        weights = {}
        for term in chosen:
            cases, size = having.get(term.id, (0, 0))
            weights[term.id] = ranking.FACET_WEIGHTS[term.facet] * ranking.idf(cases, size)
        return weights

    def _matches(self):
        cases = Case.objects.published()
        if self.chosen:
            cases = cases.filter(term_ids__overlap=[term.id for term in self.chosen])
        else:
            cases = cases.filter(self.search.condition())
        for facet in SUMMARY_FACETS:
            term = self.chosen_in(facet)
            if term:
                cases = cases.filter(term_ids__contains=[term.id])
        return cases

    def _summary_counts(self, matches):
        """{term id: matching cases} for the root causes and kinds of fix (one query)."""
        summary_ids = [term.id for facet in SUMMARY_FACETS for term in self.terms.of(facet)]
        matches_sql, params = matches.order_by().values("term_ids").query.sql_with_params()
        with connections[matches.db].cursor() as cursor:
            cursor.execute(
                f"""
                SELECT term_id, count(*)
                  FROM ({matches_sql}) AS matches, unnest(matches.term_ids) AS term_id
                 WHERE term_id = ANY(%s::integer[])
                 GROUP BY term_id
                """,
                [*params, summary_ids],
            )
            return dict(cursor.fetchall())

    @cached_property
    def search(self):
        """The Search of the free words (any of them finds a case), or None."""
        return search.Search(" ".join(self.form.words)) if self.form.words else None

    def _ranked(self, matches):
        """The matches in the library's one ranking (cases/ranking.py): the chosen terms
        they have, and the free words."""
        score = ranking.term_score(self.weights)
        if self.search:
            score = score + self.search.score()
        # A constant (no term, no word) cannot be an ORDER BY term: it is left out.
        order = [F("score").desc()] if self.weights or self.search else []
        return matches.annotate(score=score).order_by(*order, "-date", "id")

    def load(self):
        """Run the queries; False for a page past the last."""
        if not self.asked:
            return True
        self.weights = self._term_weights()
        matches = self._matches()
        counts = self._summary_counts(matches)
        # Every case has one root cause, among its term ids.
        self.total = sum(counts.get(term.id, 0) for term in self.terms.of(Facet.ROOT_CAUSE))
        self.root_causes = self._term_counts(Facet.ROOT_CAUSE, counts)
        self.fixes = self._term_counts(Facet.FIX, counts)
        page_size = settings.INCIDENTLIB_PAGE_SIZE
        self.pages = math.ceil(self.total / page_size)
        self.page_number = self.form.cleaned_data.get("page") or 1
        if self.page_number > max(self.pages, 1):
            return False
        start = (self.page_number - 1) * page_size
        # The order is found over the matches' ids and scores alone (narrow rows), and only
        # the page's cases are read whole: sorting every match with all its columns and
        # joins costs several times more at 100,000 cases.
        page_ids = self._ranked(matches).values("id")[start : start + page_size]
        page = (
            self._ranked(Case.objects.filter(id__in=page_ids))
            .defer("search_vector", "title_vector")
            .select_related("organisation", "severity", "root_cause")
            .prefetch_related(
                Prefetch(
                    "remediation_steps",
                    queryset=RemediationStep.objects.order_by("position", "id"),
                )
            )
        )
        chosen_symptoms = [term for term in self.chosen if term.facet == Facet.SYMPTOMS]
        self.results = [
            Result(
                case=case,
                score=case.score,
                shared_symptoms=[t for t in chosen_symptoms if t.id in set(case.term_ids)],
                translation_states=translations.case_states(
                    case, fields=SHOWN_TEXTS, lists=[translations.REMEDIATION]
                ),
            )
            for case in page
        ]
        return True

    def _term_counts(self, facet, counts):
        """The terms of `facet` most frequent among the matches, each with its link."""
        chosen = self.chosen_in(facet)
        found = [(term, counts[term.id]) for term in self.terms.of(facet) if counts.get(term.id)]
        found.sort(key=lambda pair: (-pair[1], pair[0].slug))
        return [
            TermCount(term, cases, self.url_with(**{facet.value: term.slug}), term == chosen)
            for term, cases in found[:TOP_TERMS]
        ]

    # Links ---------------------------------------------------------------------------------

    def url_with(self, **changes):
        """This page with some parameters changed (None removes one); back to page 1."""
        params = QueryDict(mutable=True)
        for name, values in self.params.lists():
            if name not in ("page", "lang"):
                params.setlist(name, values)
        for name, value in changes.items():
            params.pop(name, None)
            if value is not None:
                params[name] = value
        query = params.urlencode()
        return f"{self.path}?{query}" if query else self.path

    def page_url(self, number):
        params = self.params.copy()
        params.pop("lang", None)
        params["page"] = number
        return f"{self.path}?{params.urlencode()}"

    def printed_choice(self):
        """What was chosen, as a printout says it (print hides the form): [(facet label,
        [terms])] of the form's facets and the narrowing root cause and kind of fix."""
        chosen = [
            (facet.label, list(dict.fromkeys(t for t in self.chosen if t.facet == facet)))
            for facet in FORM_FACETS
        ]
        chosen += [
            (facet.label, [term]) for facet in SUMMARY_FACETS if (term := self.chosen_in(facet))
        ]
        return [(label, terms) for label, terms in chosen if terms]

    @cached_property
    def words_unsearchable(self):
        """Why the words alone (no term chosen) matched nothing whatever the library holds,
        or None (search.unsearchable: `the`)."""
        if self.chosen or not self.form.words or self.total:
            return None
        return search.unsearchable(" ".join(self.form.words))

    @property
    def without_root_cause_url(self):
        """This page without its root cause, if one is chosen."""
        return self.url_with(root_cause=None) if self.chosen_root_cause() else ""

    @property
    def without_fix_url(self):
        """This page without its kind of fix, if one is chosen."""
        return self.url_with(fix=None) if self.chosen_fix() else ""

    @property
    def previous_url(self):
        return self.page_url(self.page_number - 1) if self.page_number > 1 else ""

    @property
    def next_url(self):
        return self.page_url(self.page_number + 1) if self.page_number < self.pages else ""

    def form_facets(self):
        """(facet, [Choice]) for the form's checkboxes, by label in the page's language."""
        chosen = {term.id for term in self.chosen} if self.form.is_valid() else set()
        language = reader_language()

        def count(term):
            return self.counts.count(term.facet, term.slug) if self.counts else 0

        return [
            (
                facet,
                [
                    Choice(term, term.id in chosen, count(term))
                    for term in self.terms.by_label(facet, language)
                ],
            )
            for facet in FORM_FACETS
        ]
