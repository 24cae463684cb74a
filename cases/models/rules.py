"""The rules about a case that no column says alone, with their messages: a case's links,
and the texts that must show something."""

import unicodedata

from django.utils.translation import gettext_lazy as _

# The rules about a case's links, said once: the constraints, the admin (Case.clean) and the
# import (cases/exchange/checks.py, checks_across_cases.py) all use these.
OWN_RECURRENCE = _("A case cannot be a recurrence of itself.")
RELATED_TO_ITSELF = _("A case cannot be related to itself.")
RECURRENCE_LOOP = _("The recurrence chain would loop back to this case.")
# The review's rule: the constraint's message, and the import's (cases/exchange/checks.py).
REVIEW_BOTH_OR_NEITHER = _(
    "A reviewed case has both a reviewer and a review time; a draft has neither."
)


# What a case must show, said once: the admin (Case.clean) and the import
# (cases/exchange/checks.py) both use `shown_problems`.
NOTHING_SHOWN = _(
    "Enter text that shows: this holds only spaces or invisible characters (such as U+200B, "
    "a zero-width space)."
)
REVIEWER_NOT_SHOWN = _(
    "A reviewed case names its reviewer, and this name holds only spaces or invisible characters."
)
# The texts a reader finds a case by: a title or summary that shows nothing is a blank one.
SHOWN_TEXTS = ("title_en", "title_ko", "summary_en")
# Letters that show nothing (Hangul fillers, the blank Braille pattern).
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def shows_something(text):
    """Whether a text has a character that shows: not a space or separator (Z*), a control,
    format (U+200B, U+FEFF, the bidirectional marks), private or unassigned code point (C*),
    a mark with no letter to mark (M*), nor a blank letter."""
    return any(
        unicodedata.category(char)[0] not in "ZCM" and char not in _BLANK_LETTERS for char in text
    )


def shown_problems(values):
    """{column: message} for a case's columns (`values`: any of SHOWN_TEXTS, `reviewed_by`,
    `reviewed_at`) that must show something and do not: a text given with nothing to show,
    a reviewed case whose reviewer's name shows nothing ("" included)."""
    problems = {
        name: NOTHING_SHOWN
        for name in SHOWN_TEXTS
        if isinstance(values.get(name), str) and values[name] and not shows_something(values[name])
    }
    reviewer = values.get("reviewed_by")
    if values.get("reviewed_at") and isinstance(reviewer, str) and not shows_something(reviewer):
        problems["reviewed_by"] = REVIEWER_NOT_SHOWN
    return problems
