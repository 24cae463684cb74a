"""The library's one ranking: the order in which the search box, /diagnose/, similar cases and
a draft's likely duplicates put the cases that answer them.

A case's score is the sum of
- for each asked term it has (a symptom chosen on /diagnose/; a term of the case whose similar
  cases are sought): its facet's weight, FACET_WEIGHTS, times the term's rarity, `idf`;
- for the asked words (the search box, /diagnose/'s words, a draft's title and summary for its
  likely duplicates): `Search.score` (cases/listing/search.py), BM25-like: each word's rarity,
  `idf`, times how well the case has it, `saturated` (ts_rank: the title weighs most, repeats
  add less and less, and no more than a word's rarity however often the case says it), plus
  the case's similarity in meaning where its translation is missing.
Ties go to the newest case, then to the id.
"""

import math

from django.db.models import Case as DbCase
from django.db.models import FloatField, Value, When
from django.db.models.functions import Cast

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


# How well a case must have a word to count half of its rarity (saturated): a word said once in
# the title (ts_rank about 0.6), or in a few forms in the other texts, in a case of the usual
# length: TYPICAL_LENGTH words in its search vector, counting each form and each position (a
# case of the real corpus has 130 to 1,500, 680 on average). A longer case must have it better,
# a shorter one less: BM25's length normalisation (ts_rank's normalisation 2 divides the rank
# by that length, read from the vector ts_rank reads anyway).
HALF_SATURATION = 0.6
TYPICAL_LENGTH = 700
BY_LENGTH = 2


def saturated(rank, operands=1):
    """How well a case has a word, from 0 to 1, of its ts_rank divided by its length (`rank`,
    an expression: ts_rank with normalisation BY_LENGTH): BM25's saturation, rank / (rank +
    HALF_SATURATION) at the typical length, so that a long text saying a word in many forms
    (each form of a Korean word found by its prefix adds to ts_rank: `배포가`, `배포를`,
    `배포된`) does not outweigh a rarer word. ts_rank divides the rank of a query of
    alternatives (`'멈추':* | '멈췄':*`) by their number, `operands`: that is undone, so that a
    word read in several forms counts as much as one read in one."""
    rank = Cast(rank, FloatField()) * Value(float(operands * TYPICAL_LENGTH))
    return Value(1.0) - Value(HALF_SATURATION) / (rank + Value(HALF_SATURATION))
