"""JSON values as the library stores them: what PostgreSQL cannot store of a value JSON
allows, and how a message names a place inside one (`sources[0].url`).

The import checks whole cases with these (cases/exchange/checks.py), the admin a case's
further documents (Case.clean).
"""

import math
import re

from django.utils.translation import gettext as _


def field_path(path):
    """deque(['sources', 0, 'url']) -> 'sources[0].url'"""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


_SURROGATE = re.compile("[\ud800-\udfff]")


def _storable(value, depth=0):
    """Whether unstorable_values would find nothing: the quick test for whole cases."""
    kind = type(value)
    if kind is str:
        return "\x00" not in value and (value.isascii() or _SURROGATE.search(value) is None)
    if kind is dict or kind is list:
        if depth >= MAX_NESTING:
            return False
        if kind is dict:
            return all(_storable(k) and _storable(v, depth + 1) for k, v in value.items())
        return all(_storable(item, depth + 1) for item in value)
    if kind is float:
        return math.isfinite(value)
    if kind is int:
        return not _too_long(value)
    return True


def storable(value):
    try:
        return _storable(value)
    except RecursionError:  # nested deeper than Python recurses: the full walk decides
        return False


def unstorable_values(value, path=()):
    """(path, problem) for values JSON allows but PostgreSQL cannot store.

    The import checks whole cases with it, the admin the further documents (Case.clean);
    the problems are worded in the active language. Walked without recursion, depth first,
    a key before its value.
    """
    stack = [(value, path)]
    while stack:
        value, path = stack.pop()
        if isinstance(value, str):
            if "\x00" in value:
                yield path, _("contains a NUL character (\\u0000), which cannot be stored")
            if _SURROGATE.search(value):
                yield (
                    path,
                    _("contains an unpaired surrogate (\\ud800-\\udfff), which is not text"),
                )
        elif isinstance(value, float) and not math.isfinite(value):
            yield (
                path,
                _(
                    "%(value)s is not a finite number (NaN and Infinity are not JSON, and a "
                    "number beyond a double's range such as 1e400 cannot be stored)"
                )
                % {"value": value},
            )
        elif isinstance(value, int) and not isinstance(value, bool) and _too_long(value):
            yield path, _("is a number of more than %(digits)d digits") % {"digits": MAX_DIGITS}
        elif isinstance(value, dict | list) and len(path) >= MAX_NESTING:
            # Deeper, Python could not read it back from the database, nor a page show it.
            yield path, _("is nested more than %(levels)d levels deep") % {"levels": MAX_NESTING}
        elif isinstance(value, dict):
            children = []
            for key, item in value.items():
                children += [(key, path), (item, (*path, key))]
            stack.extend(reversed(children))
        elif isinstance(value, list):
            stack.extend(reversed([(item, (*path, index)) for index, item in enumerate(value)]))


# How deep JSON values of a case (its further documents) may nest, and how many digits a
# number may have: what every reader of the library (Python's json, a page) can take.
MAX_NESTING = 256
MAX_DIGITS = 1000


_DIGITS_LIMIT = 10**MAX_DIGITS


def _too_long(number):
    return abs(number) >= _DIGITS_LIMIT
