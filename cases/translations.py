"""Whether each Korean text of a case still translates its English: the one rule.

A case's `translations` maps each bilingual text to the English its Korean was written
against: {"summary": {"source": "<hash>", "at": "<time>"}, "remediation[0]": {...}}, where
`source` is `source_hash(english)` and `at` when the Korean was written or confirmed. The
admin records it when a Korean text is written or "still correct" is ticked, and, when the
English of a text with an unrecorded Korean changes, records the English it replaced; an
import stores what its file says (the exchange format's optional `translations` member).

A text is
- **missing** when it has no Korean (the page falls back to English, as it always has);
- **stale** when its Korean has a recorded source that is not the hash of its English now;
- **current** otherwise, a Korean with no record included: "not known" is never stale. The
  pages say a text is current only when it is known (`TextState.known`: a record says which
  English its Korean translates); of a Korean with no record they say that it is not known.

The admin, the import, the case pages, the JSON and the queue all use this module; the
queue's SQL (`stale_sql`, `missing_sql`) says the same rule for PostgreSQL.
"""

import hashlib
from dataclasses import dataclass

from django.db.models import BooleanField, Q
from django.db.models.expressions import RawSQL
from django.utils.translation import gettext_lazy as _
from django.utils.translation import gettext_noop

from cases.models import BILINGUAL_FIELDS, ActionItem, Case, RemediationStep

# Texts stored as <name>_en / <name>_ko columns of a case (as the exchange format names them).
CASE_FIELDS = BILINGUAL_FIELDS
# The case's ordered lists of bilingual items, by their exchange name and related name.
REMEDIATION = ("remediation", "remediation_steps")
LISTS = (REMEDIATION, ("action_items", "action_items"))

CURRENT, STALE, MISSING = "current", "stale", "missing"
# What the history calls a text confirmed as still correct ("Changed Korean still correct for
# translation “What happened”").
CONFIRMED = gettext_noop("translation")
STATE_LABELS = {CURRENT: _("current"), STALE: _("stale"), MISSING: _("missing")}

SOURCE_LENGTH = 16


def source_hash(english):
    """What a Korean text records of the English it translates: 16 hex digits of its SHA-256."""
    return hashlib.sha256((english or "").encode()).hexdigest()[:SOURCE_LENGTH]


def item_key(list_name, position):
    """The key of one item of a list: 'remediation[0]' (its position, from 0)."""
    return f"{list_name}[{position}]"


def state(record, english, korean):
    """The state of one text: its record (or None), its English and its Korean now."""
    if not korean:
        return MISSING
    if record and record.get("source") and record["source"] != source_hash(english):
        return STALE
    return CURRENT


@dataclass(frozen=True)
class TextState:
    """One bilingual text of a case with its state, as the pages and the queue show it."""

    key: str
    english: str | None
    korean: str | None
    state: str
    translated_at: str | None  # when the Korean was written or confirmed, when known
    english_at: str | None  # when the English moved on, when known
    known: bool = True  # whether a record says which English the Korean translates

    @property
    def is_stale(self):
        return self.state == STALE

    @property
    def is_missing(self):
        return self.state == MISSING

    @property
    def label(self):
        return STATE_LABELS[self.state]


def text_state(translations, key, english, korean):
    record = (translations or {}).get(key) or {}
    return TextState(
        key,
        english,
        korean,
        state(record, english, korean),
        record.get("at"),
        record.get("english_at"),
        bool(record.get("source")),
    )


def case_texts(case, fields=CASE_FIELDS, lists=LISTS):
    """(key, english, korean) of every bilingual text of the case (or of those `fields` and
    `lists` only) that has some text, in the order the page reads; uses the case's
    prefetched lists (no query when prefetched)."""
    texts = [(name, getattr(case, f"{name}_en"), getattr(case, f"{name}_ko")) for name in fields]
    for list_name, related_name in lists:
        texts += [
            (item_key(list_name, item.position), item.text_en, item.text_ko)
            for item in getattr(case, related_name).all()
        ]
    return [(key, en, ko) for key, en, ko in texts if en or ko]


def case_states(case, fields=CASE_FIELDS, lists=LISTS):
    """{key: TextState} of every bilingual text of the case (or of those `fields` and `lists`
    only, as case_texts)."""
    return {
        key: text_state(case.translations, key, en, ko)
        for key, en, ko in case_texts(case, fields, lists)
    }


def affected(case):
    """{'stale': [keys], 'missing': [keys]} of the case, in the order the page reads."""
    states = case_states(case).values()
    return {
        STALE: [s.key for s in states if s.is_stale],
        MISSING: [s.key for s in states if s.is_missing],
    }


# Recording ----------------------------------------------------------------------------


@dataclass(frozen=True)
class TextEdit:
    """One bilingual text as an edit leaves it: its key before and after (an item may move;
    None before for a new one), its texts before and after, and whether "still correct" was
    ticked."""

    key_before: str | None
    key_after: str
    english_before: str | None
    english_after: str | None
    korean_before: str | None
    korean_after: str | None
    confirmed: bool = False


def after_edit(translations, edits, at):
    """The case's translations after an edit (the admin's): `edits` lists every text the case
    still has; a text not listed (a deleted item) loses its record.

    - Korean written (changed, and not emptied) or confirmed: its source is the English now.
    - No Korean: no record (it is missing, whatever was recorded).
    - English changed under a Korean left as it was: the record keeps its source (the text
      is stale), and says when; a Korean with no record gets the English it was shown
      beside, so that it is stale too.
    """
    translations = translations or {}
    result = {}
    for edit in edits:
        record = dict(translations.get(edit.key_before) or {}) if edit.key_before else {}
        if not edit.korean_after:
            continue
        if edit.confirmed or edit.korean_after != edit.korean_before:
            record = {"source": source_hash(edit.english_after), "at": at}
        elif (edit.english_after or "") != (edit.english_before or ""):
            if not record.get("source"):
                record = {"source": source_hash(edit.english_before)}
            if record["source"] != source_hash(edit.english_after):
                record["english_at"] = at
            else:
                record.pop("english_at", None)
        if record:
            result[edit.key_after] = record
    return result


def exchange_texts(case):
    """{key: (english, korean)} of every bilingual text of a case in the exchange format."""
    texts = {name: (case[name]["en"], case[name]["ko"]) for name in CASE_FIELDS}
    for list_name, _related_name in LISTS:
        for position, item in enumerate(case[list_name]):
            texts[item_key(list_name, position)] = (item["text"]["en"], item["text"]["ko"])
    return texts


def dated_by_import(stored, data, at):
    """The exchange case `data` an import writes over `stored` (both in the exchange format),
    with the date its stale Korean texts need: a record the file leaves undated gets, when the
    import changes the text's English, `at` as its `english_at`; when the English stays, the
    date already stored (so that importing an export again changes nothing)."""
    records = data.get("translations") or {}
    before_texts, before_records = exchange_texts(stored), stored.get("translations") or {}
    dated = {}
    for key, (english, korean) in exchange_texts(data).items():
        record = records.get(key)
        if not record or "english_at" in record or state(record, english, korean) != STALE:
            continue
        english_before = before_texts.get(key, (None, None))[0]
        before = before_records.get(key) or {}
        if (english_before or "") != (english or ""):
            dated[key] = {**record, "english_at": at}
        elif before.get("source") == record["source"] and before.get("english_at"):
            dated[key] = {**record, "english_at": before["english_at"]}
    return {**data, "translations": {**records, **dated}} if dated else data


def carried_by_import(stored, data, at):
    """The exchange case `data` an import writes over `stored`, with the records the file
    does not give for a Korean it leaves as it was, made as the admin makes them for an edit
    (after_edit): the library's record kept while the English stays, and, when the import
    changes the English, the Korean marked stale, whether or not a record existed. A Korean
    the file changes has only the record the file gives: which English it translates is not
    known otherwise."""
    records = data.get("translations") or {}
    before = exchange_texts(stored)
    edits = [
        TextEdit(key, key, before[key][0], english, before[key][1], korean)
        for key, (english, korean) in exchange_texts(data).items()
        if key not in records and key in before and korean and korean == before[key][1]
    ]
    if not edits:
        return data
    carried = after_edit(stored.get("translations"), edits, at)
    return {**data, "translations": {**records, **carried}} if carried else data


# The queue's SQL ----------------------------------------------------------------------


def _hash_sql(column):
    return (
        f"left(encode(sha256(convert_to(coalesce({column}, ''), 'UTF8')), 'hex'), {SOURCE_LENGTH})"
    )


def _stale_condition(record, english, korean):
    return (
        f"(coalesce({korean}, '') <> '' AND coalesce({record} ->> 'source', '') <> '' "
        f"AND {record} ->> 'source' <> {_hash_sql(english)})"
    )


def stale_sql(case_table, list_tables):
    """A condition on `case_table` (its alias): some text of the case is stale.

    `list_tables` is {list name: table} of the item tables.
    """
    conditions = [
        _stale_condition(
            f"{case_table}.translations -> '{name}'",
            f"{case_table}.{name}_en",
            f"{case_table}.{name}_ko",
        )
        for name in CASE_FIELDS
    ]
    for list_name, table in list_tables.items():
        record = f"{case_table}.translations -> ('{list_name}[' || item.position || ']')"
        conditions.append(
            f"EXISTS (SELECT 1 FROM {table} item WHERE item.case_id = {case_table}.id AND "
            f"{_stale_condition(record, 'item.text_en', 'item.text_ko')})"
        )
    return "(" + " OR ".join(conditions) + ")"


def missing_sql(case_table, list_tables):
    """A condition on `case_table`: some text of the case has English and no Korean."""
    conditions = [
        f"(coalesce({case_table}.{name}_en, '') <> '' "
        f"AND coalesce({case_table}.{name}_ko, '') = '')"
        for name in CASE_FIELDS
    ]
    for table in list_tables.values():
        conditions.append(
            f"EXISTS (SELECT 1 FROM {table} item WHERE item.case_id = {case_table}.id "
            "AND coalesce(item.text_ko, '') = '')"
        )
    return "(" + " OR ".join(conditions) + ")"


# Names ----------------------------------------------------------------------------------

TEXT_LABELS = {
    "title": _("Title"),
    "summary": _("What happened"),
    "trigger": _("Trigger"),
    "symptoms_text": _("Symptoms"),
    "detection": _("How it was noticed"),
    "lessons": _("Lessons"),
}
ITEM_LABELS = {
    "remediation": _("What fixed it, step %(number)d"),
    "action_items": _("Action item %(number)d"),
}


def key_label(key):
    """A text's key in the reader's words: 'What happened', 'What fixed it, step 2'."""
    if key in TEXT_LABELS:
        return str(TEXT_LABELS[key])
    list_name, _bracket, rest = key.partition("[")
    if list_name in ITEM_LABELS and rest[:-1].isdigit():
        return str(ITEM_LABELS[list_name]) % {"number": int(rest[:-1]) + 1}
    return key


def _condition(sql):
    return Q(RawSQL(sql, [], output_field=BooleanField()))


_LIST_TABLES = {
    "remediation": RemediationStep._meta.db_table,
    "action_items": ActionItem._meta.db_table,
}
_STALE = _condition(stale_sql(Case._meta.db_table, _LIST_TABLES))
_MISSING = _condition(missing_sql(Case._meta.db_table, _LIST_TABLES))
# Cases by the state of their translations: some text stale, some missing, all current (the
# admin's translation queue).
CASES_BY_STATE = {STALE: _STALE, MISSING: _MISSING, CURRENT: ~_STALE & ~_MISSING}
