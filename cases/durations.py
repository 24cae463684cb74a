"""ISO 8601 durations (PT45M, P2DT3H): as words in the reader's language, and in buckets.

A case's `detected_after` and `resolved_after` are durations kept as written. /stats/ draws
how many cases fall in each bucket (under 15 minutes, ..., over a week, not known) and
/cases/ selects the cases of one (`?detected_after=1h-4h`): both read the case's seconds,
which the database computes by `DurationSeconds` (generated columns), with the same edges
(`DURATION_BUCKETS`), so that a bar counts exactly the cases its link lists.
"""

import re

from django.db.models import FloatField, Func, Q
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext, pgettext_lazy

from cases.patterns import DURATION_PATTERN, whole

# The format's duration (cases/patterns.py), and its parts: each a number and its unit. The
# format has days, then after T hours, minutes and seconds, so each letter names one unit.
DURATION = re.compile(whole(DURATION_PATTERN))
PART = re.compile(r"([0-9]+)([DHMS])")


def duration_in_words(value):
    """'P2DT3H' -> '2 days 3 hours' (or '2일 3시간'); '' for no duration."""
    if not value or not DURATION.match(value):
        return ""
    parts = {unit: int(number) for number, unit in PART.findall(value)}
    days, hours, minutes, seconds = (parts.get(unit, 0) for unit in "DHMS")
    words = []
    if days:
        words.append(ngettext("%(count)d day", "%(count)d days", days) % {"count": days})
    if hours:
        words.append(ngettext("%(count)d hour", "%(count)d hours", hours) % {"count": hours})
    if minutes:
        words.append(
            ngettext("%(count)d minute", "%(count)d minutes", minutes) % {"count": minutes}
        )
    if seconds:
        words.append(
            ngettext("%(count)d second", "%(count)d seconds", seconds) % {"count": seconds}
        )
    return " ".join(words) or ngettext("%(count)d minute", "%(count)d minutes", 0) % {"count": 0}


# The buckets: (key, label, from, to) in seconds, from inclusive, to exclusive.
DURATION_BUCKETS = (
    ("under-15m", _("under 15 minutes"), None, 900),
    ("15m-1h", _("15 minutes to 1 hour"), 900, 3600),
    ("1h-4h", _("1 to 4 hours"), 3600, 14400),
    ("4h-1d", _("4 hours to 1 day"), 14400, 86400),
    ("1d-1w", _("1 day to 1 week"), 86400, 604800),
    ("over-1w", _("over a week"), 604800, None),
)
# The bucket of the cases that give no duration.
UNKNOWN_BUCKET = "unknown"
UNKNOWN_LABEL = pgettext_lazy("duration", "not known")
BUCKET_CHOICES = [
    *((key, label) for key, label, _from, _to in DURATION_BUCKETS),
    (UNKNOWN_BUCKET, UNKNOWN_LABEL),
]


class DurationSeconds(Func):
    """The seconds of a duration column (PT45M: 2700, P2DT3H: 183600; NULL for none).

    The case keeps them as generated columns (`detected_seconds`, `resolved_seconds`, indexed)
    that PostgreSQL computes from this whenever a duration is written. A cast to `interval`
    would read the text too, but it is STABLE (a generated column or an index needs
    IMMUTABLE) and refuses durations the format allows (P99999999999999999999D); a regular
    expression per part costs three times these `split_part`s. The format has days, then
    after T hours, minutes and seconds (no years, months or weeks): each part is the digits
    before its letter, after the letter of the part before it.
    """

    template = (
        "(CASE WHEN %(expressions)s IS NOT NULL THEN"
        " coalesce(nullif(split_part(split_part(%(expressions)s, 'D', -2), 'P', -1),"
        " '')::float8, 0) * 86400"
        " + coalesce(nullif(split_part(split_part(%(expressions)s, 'H', -2), 'T', -1),"
        " '')::float8, 0) * 3600"
        " + coalesce(nullif(split_part(split_part(split_part(%(expressions)s, 'M', -2),"
        " 'T', -1), 'H', -1), '')::float8, 0) * 60"
        " + coalesce(nullif(split_part(split_part(split_part(split_part(%(expressions)s,"
        " 'S', -2), 'T', -1), 'H', -1), 'M', -1), '')::float8, 0) END)"
    )
    output_field = FloatField()
    arity = 1


def bucket_condition(seconds_column, key):
    """The condition a case meets when its duration (`seconds_column`, a column of
    DurationSeconds) is in the bucket `key`."""
    if key == UNKNOWN_BUCKET:
        return Q(**{f"{seconds_column}__isnull": True})
    [(start, end)] = [(start, end) for k, _label, start, end in DURATION_BUCKETS if k == key]
    condition = Q()
    if start is not None:
        condition &= Q(**{f"{seconds_column}__gte": start})
    if end is not None:
        condition &= Q(**{f"{seconds_column}__lt": end})
    return condition
