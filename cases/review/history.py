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
from cases.models import ImportedChange

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


def imported_change_message(change):
    """What one import did to a case (an ImportedChange), in the reader's language: created
    it, or changed these fields (the exchange format's names: `lessons.ko`), and what became
    of its review."""
    if change.outcome == ImportedChange.CREATED:
        return gettext("Created by the import.")
    said = gettext("Changed by the import: %(fields)s.") % {"fields": ", ".join(change.fields)}
    if change.outcome == ImportedChange.RETURNED_TO_DRAFT:
        said += " " + gettext("Returned to draft: the review did not cover the new content.")
    elif change.outcome == ImportedChange.OLDER_REVIEW:
        said += " " + gettext(
            "Left a draft: the file's review is older than the library's version it changes."
        )
    elif change.outcome == ImportedChange.NEWER_REVIEW:
        said += " " + gettext("Reviewed again: the file carries a newer review.")
    return said
