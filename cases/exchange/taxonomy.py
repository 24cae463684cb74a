"""Loading taxonomy terms from a JSON file.

The file is a JSON array of terms, each
``{"facet": ..., "slug": ..., "label": {"en", "ko"}, "description": {"en", "ko"}}``,
or what `/api/taxonomy/` gives (``{"facets": [{"facet": ..., "terms": [...]}]}``, whose
counts and links are ignored), so that a library's taxonomy can be loaded into another.
A term loaded from a file has its labels: it no longer needs one (`Term.needs_label`), unless
the file says it still does (`"needs_label": true`, as /api/taxonomy/ says of a term an import
made with a label from its slug).
"""

from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.db import transaction

from cases.exchange.files import read_json_document
from cases.exchange.records import Problem
from cases.models import Facet, Term, validate_slug


@dataclass
class TaxonomyResult:
    problems: list = field(default_factory=list)
    created: int = 0
    updated: int = 0
    unchanged: int = 0

    def summary(self):
        return f"Terms: {self.created} created, {self.updated} updated, {self.unchanged} unchanged."


def _term_fields(entry, where, problems):
    def problem(path, message):
        problems.append(Problem(where[0], message, line=where[1], path=path))

    if not isinstance(entry, dict):
        problem(None, "must be a term object")
        return None
    unknown = set(entry) - {"facet", "slug", "label", "description", "needs_label"}
    unknown -= API_ONLY_FIELDS
    if unknown:
        problem(None, f"unknown field {', '.join(sorted(unknown))}")
    if entry.get("facet") not in Facet.values:
        problem("facet", f"{entry.get('facet')!r} is not one of: {', '.join(Facet.values)}")
    try:
        validate_slug(entry.get("slug") if isinstance(entry.get("slug"), str) else "")
    except ValidationError:
        problem("slug", f"{entry.get('slug')!r} is not a slug")
    texts = {}
    for name in ("label", "description"):
        value = entry.get(name, {})
        if not isinstance(value, dict) or not all(
            isinstance(value.get(lang) or "", str) for lang in ("en", "ko")
        ):
            problem(name, "must be an object with English and Korean strings")
            value = {}
        texts[f"{name}_en"] = value.get("en") or ""
        texts[f"{name}_ko"] = value.get("ko") or ""
    if not texts["label_en"]:
        problem("label.en", "is missing: every term needs an English label")
    for name, value in (("slug", entry.get("slug")), *texts.items()):
        limit = Term._meta.get_field(name).max_length
        if limit and isinstance(value, str) and len(value) > limit:
            path = name.replace("_", ".")  # label_en: label.en
            problem(path, f"is {len(value):,} characters long; at most {limit} are stored")
    needs_label = entry.get("needs_label", False)
    if not isinstance(needs_label, bool):
        problem("needs_label", "must be true or false")
    return {
        "facet": entry.get("facet"),
        "slug": entry.get("slug"),
        **texts,
        "needs_label": needs_label is True,
    }


# What /api/taxonomy/ says of a term besides its labels, left aside when loading it.
API_ONLY_FIELDS = {"cases", "url", "cases_url"}


def _api_entries(document):
    """The terms of an /api/taxonomy/ answer, each with its facet, as the file lists them."""
    facets = document.get("facets")
    if not isinstance(facets, list) or not all(isinstance(f, dict) for f in facets):
        return None
    entries = []
    for facet in facets:
        terms = facet.get("terms")
        if not isinstance(terms, list):
            return None
        entries += [
            {"facet": facet.get("facet"), **term} if isinstance(term, dict) else term
            for term in terms
        ]
    return entries


def load_taxonomy(path, *, keep_existing=False, dry_run=False):
    """Check every term in the file, then create or update them all in one transaction."""
    result = TaxonomyResult()
    file = str(path)
    entries, problem = read_json_document(path)
    if problem:
        result.problems.append(problem)
        return result
    if isinstance(entries, dict):
        entries = _api_entries(entries)
    if not isinstance(entries, list):
        result.problems.append(
            Problem(file, "must be a JSON array of terms or what /api/taxonomy/ gives")
        )
        return result
    terms, seen = [], set()
    for index, entry in enumerate(entries):
        fields = _term_fields(entry, (f"{file} [{index}]", None), result.problems)
        if fields:
            key = (fields["facet"], fields["slug"])
            if key in seen:
                result.problems.append(
                    Problem(f"{file} [{index}]", f"{key[0]}:{key[1]} is listed twice")
                )
            seen.add(key)
            terms.append(fields)
    if result.problems:
        return result
    # A dry run does it all and rolls it back: it counts what the real run would.
    with transaction.atomic():
        stored = {(t.facet, t.slug): t for t in Term.objects.select_for_update()}
        for fields in terms:
            term = stored.get((fields["facet"], fields["slug"]))
            if term is None:
                Term.objects.create(**fields)
                result.created += 1
            elif (keep_existing and not term.needs_label) or all(
                getattr(term, k) == v for k, v in fields.items()
            ):
                # keep_existing (load_demo) still gives labels to a term an import made
                # with a label from its slug.
                result.unchanged += 1
            else:
                Term.objects.filter(pk=term.pk).update(**fields)
                result.updated += 1
        if dry_run:
            transaction.set_rollback(True)
    return result
