"""A draft's likely duplicates: the existing cases most likely to be the same incident, shown
to its reviewer on the admin's change form (templates/admin/cases/case/likely_duplicates.html).

A case is a likely duplicate of the draft when
- it cites one of the draft's source addresses, in any form that names the same page (the rule
  of /sources/?url=: Case.objects.citing, models.address_forms); or
- it is of the same organisation, dated at most DAYS_APART days before or after the draft,
  and its text is like the draft's: the library's one ranking (cases/ranking.py) finds it
  with the words of the draft's title and summary, in both languages (Search.condition: a
  rare word they share, or, for a case lacking a translation, its meaning).
The cases citing the same address come first, then by that ranking's score (Search.score),
then the newest, then by id; LIKELY_DUPLICATES at most.

A fixed number of queries whatever the size of the library: the draft's addresses, the words
that are not stopwords, the Search's own (how many cases have each word; the sentence vectors
written since the process last looked), and one for the cases. The candidates are found by
indexes alone (the source addresses' btree, the organisation and date's btree) before any text
is scored, so the score is computed for a handful of cases.
"""

import datetime
import re
from dataclasses import dataclass
from functools import reduce
from itertools import chain, zip_longest
from operator import or_

from django.db import connection
from django.db.models import BooleanField, ExpressionWrapper, F, Func, Q, Value
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from cases.listing.search import Search
from cases.models import Case

# How far apart the dates of the same organisation's two cases may be, in days, for them to
# be the same incident (a report and a later postmortem, two sources' dates of one outage).
DAYS_APART = 7
LIKELY_DUPLICATES = 5
# The cases citing one address that are scored, at most: those nearest in date to the draft.
# A status page or a news site's front page may be cited by thousands, and scoring each of
# them (ts_rank over its search vector) would take seconds at 100,000 cases.
CITING = 20

# A word of a text as a search's unit: a run of characters that are neither spaces nor the
# search's syntax (a quote, `|`); a leading minus is dropped (`-5%` would exclude a word).
_WORD = re.compile(r'[^\s"|]+')


@dataclass
class LikelyDuplicate:
    case: Case  # with its organisation
    same_source: bool  # cites one of the draft's source addresses
    days_apart: int | None  # same organisation within DAYS_APART days, similar text; else None

    @property
    def reasons(self):
        """Why the case is shown, in the reader's language."""
        reasons = []
        if self.same_source:
            reasons.append(_("same source address"))
        if self.days_apart is not None:
            if self.days_apart == 0:
                reasons.append(_("same organisation, same day, similar text"))
            else:
                reasons.append(
                    ngettext(
                        "same organisation, %(days)d day apart, similar text",
                        "same organisation, %(days)d days apart, similar text",
                        self.days_apart,
                    )
                    % {"days": self.days_apart}
                )
        return reasons


def _words(case):
    """The words of the case's title and summary, as plain units of a search: the titles'
    first (both languages), then the summaries' taken in turn from either language; each
    once, stopwords (`the`, `of`: no lexeme in the 'english' configuration) left out. One
    query. Search weighs the first of them (its MAX_UNITS)."""

    def of(text):
        return [word.lstrip("-") for word in _WORD.findall(text or "")]

    summaries = zip_longest(of(case.summary_en), of(case.summary_ko))
    words, seen = [], set()
    for word in chain(of(case.title_en), of(case.title_ko), chain.from_iterable(summaries)):
        if word and word.lower() not in seen and word.lower() != "or":
            seen.add(word.lower())
            words.append(word)
    if not words:
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT array_agg(word ORDER BY position) FROM unnest(%s::text[]) WITH ORDINALITY"
            " AS words(word, position) WHERE numnode(plainto_tsquery('english', word)) > 0",
            [words],
        )
        return cursor.fetchone()[0] or []


def _days_from(date):
    """How many days a case's date is from `date`, either way (PostgreSQL's date - date)."""
    return Func(F("date"), Value(date), template="abs(%(expressions)s)", arg_joiner=" - ")


def likely_duplicates(case, limit=LIKELY_DUPLICATES):
    """The LikelyDuplicate of the stored case `case` (its title, summary, organisation and date
    as they are on the instance; its sources as stored), most likely first."""
    addresses = list(case.sources.order_by().values_list("url", flat=True).distinct())
    cited = [
        Case.objects.citing(url).order_by(_days_from(case.date), "id").values("pk")[:CITING]
        for url in addresses
    ]
    words = _words(case)
    search = Search(" ".join(words)) if words else None
    near = Case.objects.none()
    if search is not None and case.organisation_id and case.date:
        margin = datetime.timedelta(days=DAYS_APART)
        near = Case.objects.filter(
            search.condition(),
            organisation_id=case.organisation_id,
            date__range=(case.date - margin, case.date + margin),
        )
    candidates = near.order_by().values("pk")
    if cited:
        candidates = candidates.union(*cited)
    elif search is None:
        return []
    same_source = reduce(or_, (Q(pk__in=ids) for ids in cited), Q(pk__in=[]))
    found = (
        Case.objects.filter(pk__in=candidates)
        .exclude(pk=case.pk)
        .select_related("organisation")
        .only(
            "id",
            "title_en",
            "title_ko",
            "date",
            "reviewed_at",
            "organisation__name",
            "organisation__slug",
            "organisation_id",
        )
        .annotate(
            same_source=ExpressionWrapper(same_source, output_field=BooleanField()),
            near=ExpressionWrapper(
                Q(pk__in=near.order_by().values("pk")), output_field=BooleanField()
            ),
        )
    )
    if search is not None:
        found = found.annotate(score=search.score()).order_by(
            F("same_source").desc(), F("score").desc(), "-date", "id"
        )
    else:
        found = found.order_by(F("same_source").desc(), "-date", "id")
    return [
        LikelyDuplicate(
            case=other,
            same_source=other.same_source,
            days_apart=abs((other.date - case.date).days) if other.near else None,
        )
        for other in found[:limit]
    ]
