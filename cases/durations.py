"""ISO 8601 durations (PT45M, P2DT3H) as words in the reader's language."""

import re

from django.utils.translation import ngettext

PARTS = re.compile(r"^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$")


def duration_in_words(value):
    """'P2DT3H' -> '2 days 3 hours' (or '2일 3시간'); '' for no duration."""
    match = PARTS.match(value or "")
    if not value or not match:
        return ""
    days, hours, minutes, seconds = (int(part) if part else 0 for part in match.groups())
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
