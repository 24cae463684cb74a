"""The exchange format's patterns, read once from its schema (cases/schema/case.schema.json).

The schema is where a case id, a slug, an address and a duration are defined; the model's
validators and check constraints, the case page's URL and the search for a case id all take
their pattern from here, so that none of them can drift from the format.
"""

import json
import re
from functools import cache
from pathlib import Path

SCHEMA_PATH = Path(__file__).resolve().parent / "schema" / "case.schema.json"


@cache
def case_schema():
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def _schema_pattern(name):
    definition = case_schema()["$defs"][name]
    if "oneOf" in definition:  # a nullable value: the string branch holds the pattern
        definition = next(branch for branch in definition["oneOf"] if "pattern" in branch)
    return definition["pattern"]


def whole(pattern):
    """A schema pattern for Python's `re`, matching what the schema (ECMA-262) and the
    database's check constraints match: `$` there never matches before a final newline, as
    it does in Python, so "high\\n" must not pass as a slug; and `\\d` is an ASCII digit,
    where Python's would let "P٣D" (an Arabic-Indic 3) through."""
    return pattern.replace("$", r"\Z").replace(r"\d", "[0-9]")


def unanchored(pattern):
    """The pattern without its ^ and $, to embed in a larger one (a URL, a search)."""
    return pattern.removeprefix("^").removesuffix("$")


# As the schema writes them: PostgreSQL's regular expressions read them the same way.
CASE_ID_PATTERN = _schema_pattern("case_id")
SLUG_PATTERN = _schema_pattern("slug")
HTTP_URL_PATTERN = _schema_pattern("http_url")
DURATION_PATTERN = _schema_pattern("duration")
NOT_BLANK_PATTERN = _schema_pattern("not_blank")

# A case id in any letter case, inside a larger pattern: the case page redirects `il-0137`.
CASE_ID_ANY_CASE = f"(?i:{unanchored(CASE_ID_PATTERN)})"


def any_case_id(text):
    """The case id `text` consists of (spaces around allowed), upper-cased, or None."""
    match = re.fullmatch(rf"\s*({CASE_ID_ANY_CASE})\s*", text or "")
    return match.group(1).upper() if match else None
