"""Marking a Korean text whose English moved on since it was translated (cases/translations.py)."""

import datetime

from django import template
from django.utils.translation import gettext as _

from cases.exchange.format import parse_timestamp
from cases.languages import reader_language
from cases.translations import item_key

register = template.Library()

# The id of the section of the case page (and the side-by-side view) each text is in.
ANCHORS = {"symptoms_text": "symptoms", "action_items": "action-items"}


def _date(stamp, fallback):
    """The day of an RFC 3339 time, or of `fallback` (a datetime) when it is not known."""
    if stamp:
        try:
            return parse_timestamp(stamp).date()
        except ValueError:
            pass
    return fallback.date() if isinstance(fallback, datetime.datetime) else fallback


@register.inclusion_tag("includes/stale_note.html")
def stale_note(case, states, name, position=None, inline=False):
    """On a Korean page, a quiet note under a stale text: since when, and a link to the English
    beside it in the side-by-side view. Nothing on an English page, nor for a current or missing
    text (a missing one falls back to English, marked as such)."""
    key = name if position is None else item_key(name, position)
    text = states.get(key) if states else None
    if text is None or not text.is_stale or reader_language() != "ko":
        return {"stale": False}
    return {
        "stale": True,
        "case": case,
        "anchor": ANCHORS.get(name, name),
        "inline": inline,
        "changed_on": _date(text.english_at, case.updated_at),
    }


@register.simple_tag
def both_state(text, case):
    """The state of one text in the side-by-side view, with the dates known of it."""
    translated = _date(text.translated_at, None) if text.translated_at else None
    if text.is_missing:
        return _("Missing: not yet translated; the page shows the English.")
    if text.is_stale:
        changed = _date(text.english_at, case.updated_at)
        if translated:
            return _("Stale: translated on %(translated)s; the English changed by %(changed)s.") % {
                "translated": translated.isoformat(),
                "changed": changed.isoformat(),
            }
        return _("Stale: the English changed by %(changed)s.") % {"changed": changed.isoformat()}
    if not text.known:
        return _("Not known: nothing records which English this Korean translates.")
    if translated:
        return _("Current: translated on %(translated)s.") % {"translated": translated.isoformat()}
    return _("Current.")
