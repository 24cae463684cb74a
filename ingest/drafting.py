"""Draft cases from entries, through the library's own rules: the import's.

An entry becomes a case in the exchange format (cases/schema/case.schema.json), checked as
a curator's file is (cases/exchange/checks.py) and written by the import
(cases/exchange/importer.py, with its organisations, terms, search vectors and version), so
that a draft passes exactly the validation a case does. A draft is a case without a review;
its id is `IN-<item number>`.
"""

import difflib
import json
import re
import tempfile
from pathlib import Path

from django.utils.text import slugify

from cases.exchange import checks
from cases.exchange.format import format_timestamp
from cases.exchange.importer import CaseImport
from cases.exchange.records import CaseRecord
from cases.models import Facet, Organisation, Term
from cases.patterns import SLUG_PATTERN, whole

CASE_ID_PREFIX = "IN"
# A draft's root cause until a reviewer says it: a status page never does.
UNKNOWN_CAUSE = {
    "facet": Facet.ROOT_CAUSE,
    "slug": "unknown",
    "label_en": "Not yet known",
    "label_ko": "아직 모름",
    "description_en": "A draft from a followed source: its cause is for the reviewer to say.",
    "description_ko": "팔로우한 출처에서 만든 초안: 원인은 검토자가 정합니다.",
}
# The texts of an entry shown in a "changed at the source" difference.
COMPARED = ("title", "date", "summary", "symptoms", "impact_scope", "severity", "resolved_after")


def case_id_for(item):
    return f"{CASE_ID_PREFIX}-{item.pk}"


def ensure_terms():
    """The root cause drafts start with, with its labels (made once)."""
    fields = dict(UNKNOWN_CAUSE)
    Term.objects.get_or_create(
        facet=fields.pop("facet"),
        slug=fields.pop("slug"),
        defaults={**fields, "needs_label": False},
    )


def organisation_of(name):
    """(name, slug) for an organisation: the library's own when it has one of that name or
    slug (the import refuses a second name for a slug), else a slug made from the name."""
    by_name = Organisation.objects.filter(name=name).values_list("name", "slug").first()
    if by_name:
        return by_name
    slug = slugify(name)[:64].strip("-") or "unknown"
    if not re.fullmatch(whole(SLUG_PATTERN), slug):
        slug = "unknown"
    by_slug = Organisation.objects.filter(slug=slug).values_list("name", "slug").first()
    return by_slug or (name, slug)


def _text(source, english):
    """A bilingual text: a Korean source's text goes to Korean (and stands in for the
    English the format requires, until a translator writes it)."""
    if english is None:
        return {"en": None, "ko": None}
    if source.language == "ko":
        return {"en": english, "ko": english}
    return {"en": english, "ko": None}


def exchange_case(entry, source, case_id, fetched_at, organisation):
    org_name, org_slug = organisation
    return {
        "id": case_id,
        "org": org_name,
        "org_slug": org_slug,
        "date": entry.date.isoformat(),
        "date_kind": entry.date_kind,
        "title": _text(source, entry.title),
        "summary": _text(source, entry.summary),
        "trigger": {"en": None, "ko": None},
        "detection": {"en": None, "ko": None},
        "symptoms_text": _text(source, entry.symptoms),
        "lessons": {"en": None, "ko": None},
        "impact": {"scope": entry.impact_scope, "users": None, "region": entry.impact_region},
        "severity": entry.severity,
        "root_cause": entry.root_cause,
        "domain": [],
        "symptoms": [],
        "components": [],
        "contributing": [],
        "timeline": {"detected_after": None, "resolved_after": entry.resolved_after},
        "remediation": [],
        "action_items": [],
        "sources": [
            {
                "url": entry.url,
                "kind": entry.source_kind,
                "license": entry.license or source.licence or None,
                "archived": None,
            }
        ],
        "docs": [],
        "related": [],
        "recurrence_of": None,
        "review": {
            "written_by": f"followed source {source.name}",
            "reviewed_at": None,
            "reviewed_by": None,
        },
        "updated_at": format_timestamp(fetched_at),
        "url": None,
    }


def problems_of(case):
    """What the import would refuse in this one case, as lines naming the field."""
    record = CaseRecord(case, "draft", 1)
    checks.check_format(record)
    checks.check_own_rules(record)
    return [f"{problem.path or 'case'}: {problem.message}" for problem in record.problems]


def write(cases):
    """Import these cases (drafts, each checked by problems_of); the import's problems."""
    if not cases:
        return []
    with tempfile.TemporaryDirectory(prefix="incidentlib-drafts-") as folder:
        path = Path(folder) / "drafts.jsonl"
        with path.open("w", encoding="utf-8") as out:
            for case in cases:
                out.write(json.dumps(case, ensure_ascii=False) + "\n")
        result = CaseImport([path], replace_newer=True).run()
    return [problem.message for problem in result.problems]


def difference(before, after):
    """What changed at the source between two reads of an item, as a unified diff."""
    lines = []
    for name in COMPARED:
        old, new = before.get(name), after.get(name)
        if old == new:
            continue
        lines += difflib.unified_diff(
            str(old or "").splitlines() or [""],
            str(new or "").splitlines() or [""],
            fromfile=f"{name} (as drafted)",
            tofile=f"{name} (at the source now)",
            lineterm="",
        )
    return "\n".join(lines)
