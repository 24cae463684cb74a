"""A case as the exchange format has it (cases/schema/case.schema.json), both ways.

`case_to_exchange` turns a stored case into the JSON value that export and
/cases/<id>.json give; `case_fields_from_exchange` turns a validated JSON case into the
column values import stores. The two mirror each other so that a round trip gives back
the same JSON values.
"""

import datetime
import json
from functools import cache

from django.conf import settings

from cases.models import BILINGUAL_FIELDS, LIST_FACETS, Facet
from cases.patterns import case_schema


@cache
def key_order():
    """The format's own field order (its `required` list), used for every case we write."""
    return tuple(case_schema()["required"])


def format_timestamp(value):
    """An aware datetime as RFC 3339 in UTC, 'Z'-suffixed, microseconds only when present."""
    if value is None:
        return None
    return value.astimezone(datetime.UTC).isoformat().replace("+00:00", "Z")


def parse_timestamp(text):
    return datetime.datetime.fromisoformat(text.replace("z", "Z"))


def _bilingual(en, ko):
    return {"en": en, "ko": ko}


def remediation_item(step):
    """A remediation step as the format has it: its text, and its kind's slug only when it
    has one (`kind` is optional: a file without it exports as it was imported)."""
    item = {"text": _bilingual(step.text_en, step.text_ko)}
    if step.kind_id is not None:
        item["kind"] = step.kind.slug
    return item


def case_to_exchange(case):
    """The case in the exchange format; expects a case from `Case.objects.for_page()`."""
    terms = {facet: [t.slug for t in case.terms_of(facet)] for facet in LIST_FACETS}
    value = {
        "id": case.id,
        "org": case.organisation.name,
        "org_slug": case.organisation.slug,
        "date": case.date.isoformat(),
        "date_kind": case.date_kind,
        **{
            name: _bilingual(getattr(case, f"{name}_en"), getattr(case, f"{name}_ko"))
            for name in BILINGUAL_FIELDS
        },
        "impact": {
            "scope": case.impact_scope,
            "users": case.impact_users,
            "region": case.impact_region,
        },
        "severity": case.severity.slug,
        "root_cause": case.root_cause.slug,
        "domain": terms[Facet.DOMAIN],
        "symptoms": terms[Facet.SYMPTOMS],
        "components": terms[Facet.COMPONENTS],
        "contributing": terms[Facet.CONTRIBUTING],
        "timeline": {"detected_after": case.detected_after, "resolved_after": case.resolved_after},
        "remediation": [remediation_item(step) for step in case.remediation_steps.all()],
        "action_items": [
            {"text": _bilingual(item.text_en, item.text_ko)} for item in case.action_items.all()
        ],
        "sources": [
            {"url": s.url, "kind": s.kind, "license": s.license, "archived": s.archived}
            for s in case.sources.all()
        ],
        "docs": case.docs,
        "related": [link.to_case_id for link in case.related_links.all()],
        "recurrence_of": case.recurrence_of_id,
        "review": {
            "written_by": case.written_by,
            "reviewed_at": format_timestamp(case.reviewed_at),
            "reviewed_by": case.reviewed_by,
        },
        "updated_at": format_timestamp(case.updated_at),
        "url": case.url,
    }
    value = {key: value[key] for key in key_order()}
    # Optional, so that every file written before it stays valid and exports as it was.
    if case.translations:
        value["translations"] = case.translations
    return value


def case_fields_from_exchange(data):
    """Column values of the Case row for a validated exchange case (relations excluded)."""
    fields = {
        "date": datetime.date.fromisoformat(data["date"]),
        "date_kind": data["date_kind"],
        "impact_scope": data["impact"]["scope"],
        "impact_users": data["impact"]["users"],
        "impact_region": data["impact"]["region"],
        "detected_after": data["timeline"]["detected_after"],
        "resolved_after": data["timeline"]["resolved_after"],
        "recurrence_of_id": data["recurrence_of"],
        "docs": data["docs"],
        "url": data["url"],
        "written_by": data["review"]["written_by"],
        "reviewed_by": data["review"]["reviewed_by"],
        "reviewed_at": (
            parse_timestamp(data["review"]["reviewed_at"])
            if data["review"]["reviewed_at"]
            else None
        ),
        "updated_at": parse_timestamp(data["updated_at"]),
        # A file without it: which English each Korean translates is not known.
        "translations": data.get("translations") or {},
    }
    for name in BILINGUAL_FIELDS:
        fields[f"{name}_en"] = data[name]["en"]
        fields[f"{name}_ko"] = data[name]["ko"]
    return fields


def _json_typed(value):
    """A JSON value in which `true` and `1` differ, as they do in JSON (Python's True == 1);
    numbers stay numbers (2 and 2.0 are one double)."""
    if isinstance(value, bool):
        return (bool, value)
    if isinstance(value, dict):
        return {key: _json_typed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_json_typed(item) for item in value]
    return value


def _normalised(value):
    """An exchange case as compared: timestamps as instants, the free JSON of `docs` with its
    types (`true` is not `1`), no empty `translations`."""
    value = dict(value, review=dict(value["review"]), docs=_json_typed(value["docs"]))
    # The library's own time of its last write (the API's), no part of the case itself.
    value.pop("modified", None)
    if not value.get("translations"):
        value.pop("translations", None)
    value["updated_at"] = parse_timestamp(value["updated_at"])
    if value["review"]["reviewed_at"]:
        value["review"]["reviewed_at"] = parse_timestamp(value["review"]["reviewed_at"])
    return value


# Fields whose members are named one by one when they change ("lessons.ko", "impact.users").
_OBJECTS = {*BILINGUAL_FIELDS, "impact", "timeline", "review"}


def changed_fields(a, b):
    """Where exchange case `b` differs from `a`, as paths in the format's order: a text by its
    language (`lessons.ko`), a member of `impact`, `timeline` or `review` by its name
    (`review.reviewed_at`), any other field by its own (`sources`, `translations`)."""
    a, b = _normalised(a), _normalised(b)
    if a == b:
        return []
    changed = []
    for key in dict.fromkeys([*a, *b]):
        before, after = a.get(key), b.get(key)
        if before == after:
            continue
        if key in _OBJECTS and isinstance(before, dict) and isinstance(after, dict):
            changed += [
                f"{key}.{member}"
                for member in dict.fromkeys([*before, *after])
                if before.get(member) != after.get(member)
            ]
        else:
            changed.append(key)
    return changed


def same_case(a, b):
    """Whether two exchange cases mean the same: equal values, timestamps compared as instants,
    the free JSON of `docs` with its types (`true` is not `1`)."""
    return _normalised(a) == _normalised(b)


def cases_json(values):
    """Exchange cases as one pretty JSON array, non-ASCII text kept as is."""
    return json.dumps(values, ensure_ascii=False, indent=2) + "\n"


def public_case_to_exchange(case):
    """The case as the public sees it: with drafts hidden, no reference names a hidden draft;
    with `modified`, when the library last changed it (its `changed_at`), beside the
    `updated_at` its file gave, so that a copy sees what changed without comparing cases.

    Export (for curators) keeps every reference, and has no `modified` (importing an export
    and exporting it again gives the same file); the site and the API use this.
    """
    value = case_to_exchange(case)
    value = {**value, "modified": format_timestamp(case.changed_at)}
    if "translations" in value:  # its place after the format's required fields
        value["translations"] = value.pop("translations")
    if settings.INCIDENTLIB_HIDE_DRAFTS:
        value["related"] = [
            link.to_case_id for link in case.related_links.all() if link.to_case.is_published
        ]
        if case.recurrence_of and not case.recurrence_of.is_published:
            value["recurrence_of"] = None
    return value
