"""Checking exchange cases: the format (JSON Schema) and the rules that span cases.

Messages name the field by its path in the format (`sources[0].url`) and say what is
wrong in words, so that a curator can fix the file without reading the schema.
"""

import datetime
import re
from functools import cache

from jsonschema import Draft202012Validator, FormatChecker

from .exchange import case_schema

RFC3339 = re.compile(
    r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$", re.ASCII
)
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$", re.ASCII)

format_checker = FormatChecker(formats=())


@format_checker.checks("date", raises=ValueError)
def is_date(value):
    if not isinstance(value, str):
        return True
    if not DATE.match(value):
        return False
    datetime.date.fromisoformat(value)
    return True


@format_checker.checks("date-time", raises=ValueError)
def is_date_time(value):
    if not isinstance(value, str):
        return True
    if not RFC3339.match(value):
        return False
    datetime.datetime.fromisoformat(value.upper())
    return True


@cache
def case_validator():
    return Draft202012Validator(case_schema(), format_checker=format_checker)


def field_path(path):
    """deque(['sources', 0, 'url']) -> 'sources[0].url'"""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _json_type(value):
    return {
        dict: "an object",
        list: "an array",
        str: "a string",
        bool: "a boolean",
        int: "a number",
        float: "a number",
        type(None): "null",
    }.get(type(value), type(value).__name__)


def _pattern_meaning(path):
    last = next((p for p in reversed(path) if isinstance(p, str)), "")
    if last in ("url", "archived"):
        return "an http:// or https:// address without spaces"
    if last in ("id", "related", "recurrence_of"):
        return "a case id such as IL-0137"
    if last in ("detected_after", "resolved_after"):
        return "an ISO 8601 duration such as PT45M, PT8H or P2DT3H"
    return "a slug: lowercase letters, digits and single hyphens"


def _most_telling(error):
    """For oneOf/anyOf failures, the branch error that explains the most."""
    while error.context:
        not_type = [e for e in error.context if e.validator != "type"]
        error = (not_type or error.context)[0]
    return error


def describe(error):
    """(field path, message in words) for one jsonschema error."""
    error = _most_telling(error)
    path = list(error.absolute_path)
    kind, value = error.validator, error.instance
    if kind == "required":
        missing = error.message.split("'")[1]
        return field_path([*path, missing]), "is missing (a required field)"
    if kind == "additionalProperties":
        extra = sorted(set(value) - set(error.schema.get("properties", {})))
        names = ", ".join(field_path([*path, name]) for name in extra)
        return field_path(path) or None, f"unknown field {names} (not in the format)"
    if kind == "type":
        wanted = error.validator_value
        wanted = " or ".join(wanted) if isinstance(wanted, list) else wanted
        return field_path(path), f"must be {wanted}, not {_json_type(value)}"
    if kind == "pattern":
        return field_path(path), f"{value!r} is not {_pattern_meaning(path)}"
    if kind == "maxLength":
        return field_path(path), (
            f"is too long: {len(value)} characters, at most {error.validator_value} allowed"
        )
    if kind == "minLength":
        return field_path(path), "must not be empty"
    if kind == "format":
        expected = "YYYY-MM-DD" if error.validator_value == "date" else "like 2026-11-09T11:55:50Z"
        return field_path(path), f"{value!r} is not a valid {error.validator_value} ({expected})"
    if kind == "enum":
        choices = ", ".join(map(str, error.validator_value))
        return field_path(path), f"{value!r} is not one of: {choices}"
    if kind == "uniqueItems":
        return field_path(path), "lists the same value twice"
    return field_path(path) or None, error.message


def check_format(record):
    """Add a problem to the record for every way it breaks the exchange format."""
    errors = sorted(case_validator().iter_errors(record.data), key=lambda e: list(map(str, e.path)))
    for error in errors:
        path, message = describe(error)
        record.problem(message, path=path or None)
    return not errors


def check_own_rules(record):
    """Rules about one case that the schema cannot say."""
    data = record.data
    if data["recurrence_of"] == data["id"]:
        record.problem("a case cannot be a recurrence of itself", path="recurrence_of")
    if data["id"] in data["related"]:
        record.problem("a case cannot be related to itself", path="related")
