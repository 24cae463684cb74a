"""What a reading of case files gives: a case as read (`CaseRecord`) and a problem
(`Problem`), each with its place (file, line, case id, field), so that every error about a
case can name where it is; and the line of a field within a case's text (`field_line`).
"""

import json
import re
from dataclasses import dataclass, field

from cases.json_values import field_path


@dataclass
class Problem:
    """One thing wrong with the input, with as much of its place as is known."""

    file: str
    message: str
    line: int | None = None
    column: int | None = None
    case_id: str | None = None
    path: str | None = None
    # Whether the rest of the file after this place could not be read (an array's reading
    # stops at its first malformed place): a case it holds may be there, unread.
    rest_unread: bool = False

    def __str__(self):
        place = self.file
        if self.line is not None:
            place += f":{self.line}"
            if self.column is not None:
                place += f":{self.column}"
        parts = [place]
        if self.case_id:
            parts.append(self.case_id)
        if self.path:
            parts.append(self.path)
        text = ": ".join(parts) + f": {self.message}"
        # The id (or a key of the path) is the file's own: a lone surrogate in it, which no
        # terminal, pipe or log can take, is written as its escape (\ud800).
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


@dataclass
class CaseRecord:
    """One case as read: its JSON value, the file it is in and the line it starts on.

    `fingerprint` stands for the text the case was read from (its hash), so that a second
    reading of the file can tell whether the case is still the one checked.
    """

    data: object
    file: str
    line: int
    problems: list = field(default_factory=list)
    fingerprint: int | None = None
    # The case's JSON text, from its first character on `line`, when it may be written over
    # several lines (an array's element, a file's one case), so that a problem names the
    # line of its field; None for a line of JSON Lines.
    text: str | None = None

    @property
    def case_id(self):
        if isinstance(self.data, dict) and isinstance(self.data.get("id"), str):
            return self.data["id"]
        return None

    def problem(self, message, path=None):
        line = self.line if path is None or self.text is None else self.line_of(path)
        self.problems.append(
            Problem(self.file, message, line=line, case_id=self.case_id, path=path)
        )

    def line_of(self, path):
        """The line a field of the case is written on (`sources[0].url`), the case's own
        first line when it is written on one line or the field is not found."""
        if self.text is None or "\n" not in self.text:
            return self.line
        return field_line(self.text, path, self.line)


# A token of JSON text: a string, a bracket, a colon or comma, or a number or literal.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+')


def field_line(text, path, first_line):
    """The line of the field `path` (as field_path writes it: `sources[0].url`) in `text`,
    the JSON text of one value that starts on line `first_line`: the line of its key, or of
    an array's element its first character; `first_line` when it is not there."""
    containers = []  # [path of the container, is an object, its current key or index]
    expecting_key = False

    def found(parts, position):
        return field_path(parts) == path and first_line + text.count("\n", 0, position)

    for token in _TOKEN.finditer(text):
        char, position = token[0][0], token.start()
        if char in "}]":
            containers.pop() if containers else None
            expecting_key = False
            continue
        if char == ":":
            continue
        if char == ",":
            expecting_key = bool(containers) and containers[-1][1]
            continue
        top = containers[-1] if containers else None
        if top and top[1] and expecting_key and char == '"':
            try:
                top[2] = json.loads(token[0])
            except json.JSONDecodeError:
                return first_line
            expecting_key = False
            if line := found([*top[0], top[2]], position):
                return line
            continue
        # A value: an array's element is named by its position.
        if top and not top[1]:
            top[2] += 1
            if line := found([*top[0], top[2]], position):
                return line
        here = [] if top is None else [*top[0], top[2]]
        if char in "{[":
            containers.append([here, char == "{", None if char == "{" else -1])
            expecting_key = char == "{"
    return first_line
