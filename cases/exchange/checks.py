"""Checking exchange cases: the format (JSON Schema) and the rules that span cases.

Messages name the field by its path in the format (`sources[0].url`) and say what is
wrong in words, so that a curator can fix the file without reading the schema.
"""

import datetime
import re
from functools import cache

import jsonschema_rs
from django.core.exceptions import ValidationError as DjangoValidationError
from django.utils import translation
from jsonschema import Draft202012Validator, FormatChecker, validators
from jsonschema.exceptions import ValidationError

from cases.json_values import field_path, storable, unstorable_values
from cases.models import (
    BILINGUAL_FIELDS,
    DURATION_MAX_LENGTH,
    LIST_FACETS,
    OWN_RECURRENCE,
    RELATED_TO_ITSELF,
    REVIEW_BOTH_OR_NEITHER,
    SEVERITIES,
    SHOWN_TEXTS,
    UNREADABLE_HOST,
    shown_problems,
    validate_case_id,
    validate_duration,
    validate_http_url,
    validate_http_url_shape,
    validate_slug,
)
from cases.moments import WIDEST_OFFSET
from cases.patterns import NOT_BLANK_PATTERN, case_schema, whole

# Fractions beyond microseconds would be cut on storing, changing the instant: refused.
RFC3339 = re.compile(
    r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d{1,6})?([Zz]|[+-]\d{2}:\d{2})", re.ASCII
)
DATE = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)
# RFC 3339's syntax allows offsets up to ±23:59, PostgreSQL refuses them from ±16:00: the
# widest that places use is the rule, as for the times of a query (cases/moments.py).
MAX_OFFSET = WIDEST_OFFSET

format_checker = FormatChecker(formats=())


@format_checker.checks("date", raises=ValueError)
def is_date(value):
    if not isinstance(value, str):
        return True
    if not DATE.fullmatch(value):
        return False
    datetime.date.fromisoformat(value)
    return True


@format_checker.checks("date-time", raises=(ValueError, OverflowError))
def is_date_time(value):
    if not isinstance(value, str):
        return True
    if not RFC3339.fullmatch(value):
        return False
    moment = datetime.datetime.fromisoformat(value.upper())
    if abs(moment.utcoffset()) > MAX_OFFSET:
        return False
    instant = moment.astimezone(datetime.UTC)
    # The database stores years 1 to 9999 (in UTC); "0001-01-01T00:30+01:00" is not one.
    return instant.year >= 1


@format_checker.checks("http-url")
def is_http_url(value):
    """The admin's own rule for an address (cases/models/addresses.py); what breaks the format's
    pattern is the pattern's error alone."""
    if not isinstance(value, str):
        return True
    try:
        validate_http_url(value)
    except DjangoValidationError as error:
        return error.code != "unreadable_host"
    return True


def _beyond_offsets(value):
    """Why a date-time of the right shape is refused, when it is its offset from UTC."""
    shape = RFC3339.fullmatch(value) if isinstance(value, str) else None
    if shape and (offset := shape[2]).upper() != "Z":
        if abs(datetime.timedelta(hours=int(offset[1:3]), minutes=int(offset[4:]))) > MAX_OFFSET:
            return f": its offset from UTC, {offset}, is beyond ±14:00"
    return ""


@cache
def _whole_pattern(pattern):
    return re.compile(whole(pattern))


def _pattern(validator, pattern, instance, schema):
    if validator.is_type(instance, "string") and not _whole_pattern(pattern).search(instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


CaseValidator = validators.extend(Draft202012Validator, {"pattern": _pattern})


@cache
def case_validator():
    return CaseValidator(case_schema(), format_checker=format_checker)


class _PythonPattern:
    """The schema's `pattern` for jsonschema-rs, matched by Python's `re` as the full check
    does (`$` as `\\Z`, ASCII digits), so that the two validators agree on every string."""

    def __init__(self, parent_schema, value, schema_path):
        self.regex = _whole_pattern(value)

    def validate(self, instance):
        if isinstance(instance, str) and not self.regex.search(instance):
            raise ValueError(f"{instance!r} does not match {self.regex.pattern!r}")


def _format_test(check):
    def test(value):
        try:
            return check(value)
        except (ValueError, OverflowError):
            return False

    return test


def _with_python_patterns(node):
    if isinstance(node, dict):
        return {
            ("x-python-pattern" if key == "pattern" and isinstance(value, str) else key): (
                _with_python_patterns(value)
            )
            for key, value in node.items()
        }
    if isinstance(node, list):
        return [_with_python_patterns(item) for item in node]
    return node


@cache
def fast_case_validator():
    """The same schema checked by jsonschema-rs (compiled, about 100 times faster), with our
    own patterns and formats. It only says whether a case is valid; for a case it refuses,
    the Python validator (case_validator) says why, in the messages curators know."""
    return jsonschema_rs.validator_for(
        _with_python_patterns(case_schema()),
        keywords={"x-python-pattern": _PythonPattern},
        formats={
            "date": _format_test(is_date),
            "date-time": _format_test(is_date_time),
            "http-url": is_http_url,
        },
        validate_formats=True,
    )


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


def in_words(message):
    """What a model's validator message asks for, as the import's messages say it ("'x' is
    not ..."): the message in English, without its imperative and full stop ("Enter a case
    id such as IL-0137." -> "a case id such as IL-0137"), so that the rule is worded once."""
    with translation.override("en"):
        text = str(message)
    return text.removeprefix("Enter ").removeprefix("Use ").removesuffix(".")


def _pattern_meaning(path):
    last = next((p for p in reversed(path) if isinstance(p, str)), "")
    if last in ("url", "archived"):
        return in_words(validate_http_url_shape.message)
    if last in ("id", "related", "recurrence_of"):
        return in_words(validate_case_id.message)
    if last in ("detected_after", "resolved_after"):
        return in_words(validate_duration.message)
    if last == "source":
        return "16 lowercase hexadecimal digits (the start of the English text's SHA-256)"
    if last == "translations":
        texts = [*BILINGUAL_FIELDS, "remediation[i]", "action_items[i]"]
        return f"the name of a text: {', '.join(texts[:-1])} or {texts[-1]}"
    return f"a slug: {in_words(validate_slug.message)}"


def _most_telling(error):
    """For oneOf/anyOf failures, the branch error that explains the most."""
    while error.context:
        not_type = [e for e in error.context if e.validator != "type"]
        error = (not_type or error.context)[0]
    return error


def _allows_null(error):
    """Whether a oneOf/anyOf that failed has a branch for null (an optional value)."""
    return any(e.validator == "type" and e.validator_value == "null" for e in error.context)


# How much of a refused value a message quotes.
SHOWN_VALUE = 60


def _shown(value):
    """A refused value as a message quotes it: whole when short, else its start and length
    (a 200,000-character value made one line of as many)."""
    if isinstance(value, str) and len(value) > SHOWN_VALUE:
        return f"{value[:SHOWN_VALUE]!r}… ({len(value):,} characters)"
    return repr(value)


def described(error):
    """(field path, message in words) for each thing one jsonschema error finds: each field
    of an object that the format does not have is named as its own path, so that the rest
    of the case is still checked against the others (facts_of in checks_across_cases.py)."""
    telling = _most_telling(error)
    if telling.validator == "additionalProperties":
        path = list(telling.absolute_path)
        for name in sorted(set(telling.instance) - set(telling.schema.get("properties", {}))):
            yield field_path([*path, name]), "is not a field of the exchange format"
    else:
        yield describe(error)


def describe(error):
    """(field path, message in words) for one jsonschema error."""
    or_null = " or null" if error.context and _allows_null(error) else ""
    error = _most_telling(error)
    path = list(error.absolute_path)
    kind, value = error.validator, error.instance
    if kind == "required":
        missing = error.message.split("'")[1]
        return field_path([*path, missing]), "is missing (a required field)"
    if kind == "type":
        wanted = error.validator_value
        wanted = " or ".join(wanted) if isinstance(wanted, list) else wanted
        return field_path(path), f"must be {wanted}{or_null}, not {_json_type(value)}"
    if kind == "pattern" and error.validator_value == NOT_BLANK_PATTERN:
        return field_path(path), "must not be empty or only spaces"
    if kind == "pattern":
        return field_path(path), f"{_shown(value)} is not {_pattern_meaning(path)}"
    if kind == "maxLength":
        return field_path(path), (
            f"is too long: {len(value)} characters, at most {error.validator_value} allowed"
        )
    if kind == "minLength":
        return field_path(path), "must not be empty"
    if kind == "format" and error.validator_value == "http-url":
        return field_path(path), f"{_shown(value)} is not {in_words(UNREADABLE_HOST)}"
    if kind == "format":
        expected = "YYYY-MM-DD" if error.validator_value == "date" else "like 2026-11-09T11:55:50Z"
        return field_path(path), (
            f"{_shown(value)} is not a valid {error.validator_value} ({expected})"
            + _beyond_offsets(value)
        )
    if kind == "enum":
        choices = ", ".join(map(str, error.validator_value))
        return field_path(path), f"{_shown(value)} is not one of: {choices}"
    if kind == "uniqueItems":
        return field_path(path), "lists the same value twice"
    return field_path(path) or None, error.message


def _surely_valid(data):
    try:
        return fast_case_validator().is_valid(data)
    except Exception:  # a value jsonschema-rs cannot take: the full check decides
        return False


def check_format(record):
    """Add a problem to the record for every way it breaks the exchange format."""
    if _surely_valid(record.data):
        return True
    errors = sorted(case_validator().iter_errors(record.data), key=lambda e: list(map(str, e.path)))
    for error in _narrowest_types(errors):
        for path, message in described(error):
            record.problem(message, path=path or None)
    return not errors


def _narrowest_types(errors):
    """The errors, with one type error a field: a field whose type two parts of the schema
    check (a required English text: "string or null", then "string") gets the narrower."""

    def width(error):
        wanted = error.validator_value
        return len(wanted) if isinstance(wanted, list) else 1

    narrowest = {}  # field path -> its narrowest type error
    for error in errors:
        key = tuple(error.absolute_path)
        if error.validator == "type" and (
            key not in narrowest or width(error) < width(narrowest[key])
        ):
            narrowest[key] = error
    kept = set(map(id, narrowest.values()))
    return [error for error in errors if error.validator != "type" or id(error) in kept]


# Positions of list items are stored as smallint.
LIST_MAX_LENGTH = 32767
LIST_FIELDS = ("sources", "remediation", "action_items", "related")


_MISSING = object()


def _value(data, *path):
    """data[path[0]][path[1]]..., or _MISSING where a part is missing or not an object."""
    for part in path:
        if not isinstance(data, dict):
            return _MISSING
        data = data.get(part, _MISSING)
    return data


def _within(path, other):
    """Whether one of two field paths is the other or inside it."""
    return any(
        long == short or long.startswith((short + ".", short + "["))
        for long, short in ((path, other), (other, path))
    )


def other_document(data):
    """What a JSON object that is not a case is, when it is a known other document (a
    taxonomy term, an API answer), said so that the curator knows what to do with it."""
    if "id" in data:
        return None
    if {"facet", "slug"} <= data.keys():
        return (
            "a taxonomy term, not a case: this file looks like a taxonomy; "
            "load it with load_taxonomy"
        )
    if "facets" in data:
        return "/api/taxonomy/'s answer, not a case: load it with load_taxonomy"
    if "results" in data:
        return (
            "a page of /api/cases/, not a case: import its cases from /api/cases.jsonl "
            "or export_cases instead"
        )
    return None


def check_own_rules(record):
    """Rules about one case that the schema cannot say.

    They run on a case the schema refused too, each where the schema found nothing wrong,
    so that one run reports every problem of a case (a bad date and a self-recurrence both).
    """
    data = record.data
    refused = [problem.path for problem in record.problems if problem.path]

    def clear(path):
        return not any(_within(path, other) for other in refused)

    if not storable(data):
        for path, message in unstorable_values(data):
            record.problem(message, path=field_path(path) or None)
    for name in ("detected_after", "resolved_after"):
        duration = _value(data, "timeline", name)
        if isinstance(duration, str) and len(duration) > DURATION_MAX_LENGTH:
            record.problem(
                f"is too long: at most {DURATION_MAX_LENGTH} characters", path=f"timeline.{name}"
            )
    case_id, related = _value(data, "id"), _value(data, "related")
    if isinstance(case_id, str) and _value(data, "recurrence_of") == case_id:
        record.problem(str(OWN_RECURRENCE), path="recurrence_of")
    if isinstance(case_id, str) and isinstance(related, list) and case_id in related:
        record.problem(str(RELATED_TO_ITSELF), path="related")
    reviewed_at, reviewed_by = (
        _value(data, "review", "reviewed_at"),
        _value(data, "review", "reviewed_by"),
    )
    if (
        _MISSING not in (reviewed_at, reviewed_by)
        and clear("review")
        and (reviewed_at is None) != (reviewed_by is None)
    ):
        record.problem(
            f"reviewed_at and reviewed_by go together: {REVIEW_BOTH_OR_NEITHER}", path="review"
        )
    # The model's columns, by their places in the format (title_en: title.en).
    places = {name: name.rpartition("_")[::2] for name in SHOWN_TEXTS}
    places |= {"reviewed_by": ("review", "reviewed_by"), "reviewed_at": ("review", "reviewed_at")}
    given = {name: _value(data, *place) for name, place in places.items()}
    shown = shown_problems({name: v for name, v in given.items() if v is not _MISSING})
    for name, message in shown.items():
        path = ".".join(places[name])
        if clear(path):
            record.problem(str(message), path=path)
    severity = _value(data, "severity")
    if isinstance(severity, str) and clear("severity") and severity not in SEVERITIES:
        record.problem(f"{severity!r} is not one of: {', '.join(SEVERITIES)}", path="severity")
    for name in LIST_FIELDS:
        items = _value(data, name)
        if isinstance(items, list) and len(items) > LIST_MAX_LENGTH:
            record.problem(f"has {len(items)} items, at most {LIST_MAX_LENGTH} allowed", path=name)
    translated = _value(data, "translations")
    if isinstance(translated, dict):
        for key in translated:
            list_name, _bracket, position = key.rstrip("]").partition("[")
            items = _value(data, list_name)
            if (
                position
                and clear(f"translations.{key}")
                and isinstance(items, list)
                and int(position) >= len(items)
            ):
                record.problem(
                    f"names {key}, but the case has {len(items)} {list_name} item(s): "
                    "a record for an item that is not there",
                    path=f"translations.{key}",
                )
    tags = sum(
        len(v) for v in (_value(data, facet) for facet in LIST_FACETS) if isinstance(v, list)
    )
    if tags > LIST_MAX_LENGTH:
        record.problem(
            f"{' + '.join(LIST_FACETS)} have {tags} terms together, "
            f"at most {LIST_MAX_LENGTH} allowed",
            path=None,
        )
