"""The library's one ranking: the order in which the search box, /diagnose/, similar cases and
a draft's likely duplicates put the cases that answer them.

A case's score is the sum of
- for each asked term it has (a symptom chosen on /diagnose/; a term of the case whose similar
  cases are sought): its facet's weight, FACET_WEIGHTS, times the term's rarity, `idf`;
- for the asked words (the search box, /diagnose/'s words, a draft's title and summary for its
  likely duplicates): `Search.score` (cases/listing/search.py), BM25-like: each word's rarity,
  `idf`, times how well the case has it (ts_rank: the title weighs most, repeats add less and
  less), plus the case's similarity in meaning where its translation is missing.
Ties go to the newest case, then to the id.
"""

import math

from django.db.models import Case as DbCase
from django.db.models import FloatField, Value, When

from cases.models import Facet

# How much an asked term of each facet counts, times its rarity. Severity says little about
# what happened, and is left out.
FACET_WEIGHTS = {
    Facet.SYMPTOMS: 1.5,
    Facet.ROOT_CAUSE: 1.2,
    Facet.FIX: 1.0,
    Facet.COMPONENTS: 1.0,
    Facet.CONTRIBUTING: 0.8,
    Facet.DOMAIN: 0.6,
}


def idf(having, size):
    """The rarity of a term or word that `having` of the library's `size` cases have: BM25's
    inverse document frequency, always above zero."""
    return math.log(1 + (size - having + 0.5) / (having + 0.5))


def term_score(weights):
    """The score of the asked terms a case has: {term id: weight} summed over its `term_ids`."""
    return sum(
        (
            DbCase(
                When(term_ids__contains=[term_id], then=Value(weight)),
                default=Value(0.0),
                output_field=FloatField(),
            )
            for term_id, weight in weights.items()
        ),
        Value(0.0, output_field=FloatField()),
    )
