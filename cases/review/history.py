"""A case's admin history in the reader's language.

Django stores each change message in English, as the labels of the form's fields
("Impact: users", the label capitalised), and translates it when shown, looking each label up
as it was stored. The catalogue holds the verbose names ("impact: users"), so Django's
lookup missed and a Korean history read "Impact: users 또한 Summary (Korean)가 변경되었습니다".
This reads a stored label as its verbose name when that is what translates, and a text
confirmed as still correct by its key ("summary"), in the reader's words. Approvals and
returns to draft are stored as plain English sentences (workflow.py) and translated whole.
"""

import json
import re

from django.contrib.admin.models import LogEntry
from django.utils.translation import gettext

from cases import translations

# A bilingual text's column, as models.english_text and korean_text name it: "Summary (Korean)".
COLUMN = re.compile(r"(.+) \((English|Korean)\)")


def _label(stored):
    """A stored field label in the reader's language: as stored, or as the verbose name it
    was capitalised from; a text's column as its text and its language."""
    if column := COLUMN.fullmatch(stored):
        return f"{_label(column[1])} ({gettext(column[2])})"
    translated = gettext(stored)
    if translated != stored or not stored[:1].isupper():
        return translated
    verbose_name = stored[0].lower() + stored[1:]
    translated = gettext(verbose_name)
    return translated if translated != verbose_name else stored


def change_message(entry):
    """The entry's message, translated as far as the catalogue can."""
    message = entry.change_message
    if not message.startswith("["):
        return gettext(message)
    try:
        parts = json.loads(message)
    except json.JSONDecodeError:
        return message
    for part in parts:
        for detail in part.values():
            if not detail:
                continue
            if "fields" in detail:
                detail["fields"] = [_label(field) for field in detail["fields"]]
            if detail.get("name") == translations.CONFIRMED:
                detail["object"] = gettext(translations.key_label(detail["object"]))
    return LogEntry(change_message=json.dumps(parts)).get_change_message()
