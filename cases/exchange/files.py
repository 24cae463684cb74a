"""Reading case files: one case object, a JSON array of cases, or JSON Lines.

Every case read carries where it came from (file and line), so that every error
about it can name the place.
"""

import json
from dataclasses import dataclass, field
from pathlib import Path

CASE_FILE_SUFFIXES = (".json", ".jsonl")


@dataclass
class Problem:
    """One thing wrong with the input, with as much of its place as is known."""

    file: str
    message: str
    line: int | None = None
    column: int | None = None
    case_id: str | None = None
    path: str | None = None

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
        return ": ".join(parts) + f": {self.message}"


@dataclass
class CaseRecord:
    """One case as read: its JSON value, the file it is in and the line it starts on."""

    data: object
    file: str
    line: int
    problems: list = field(default_factory=list)

    @property
    def case_id(self):
        if isinstance(self.data, dict) and isinstance(self.data.get("id"), str):
            return self.data["id"]
        return None

    def problem(self, message, path=None):
        self.problems.append(
            Problem(self.file, message, line=self.line, case_id=self.case_id, path=path)
        )


def collect_files(paths):
    """The case files named, directories searched recursively; problems for missing paths."""
    files, problems = [], []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = sorted(
                p
                for p in path.rglob("*")
                if p.is_file()
                and p.suffix in CASE_FILE_SUFFIXES
                # Hidden folders (.git, .venv) hold no cases of ours.
                and not any(part.startswith(".") for part in p.relative_to(path).parts)
            )
            if not found:
                problems.append(Problem(str(path), "no *.json or *.jsonl files in this directory"))
            files.extend(found)
        elif path.is_file():
            files.append(path)
        else:
            problems.append(Problem(str(path), "no such file or directory"))
    return files, problems


def _line_of(text, offset):
    return text.count("\n", 0, offset) + 1


def _decode_error(file, error, line_offset=0):
    return Problem(
        file, f"malformed JSON: {error.msg}", line=error.lineno + line_offset, column=error.colno
    )


def _array_records(text, file):
    """The elements of a JSON array, each with the line it starts on."""
    decoder = json.JSONDecoder()
    records = []
    position = text.index("[") + 1
    while True:
        while position < len(text) and text[position] in " \t\r\n,":
            position += 1
        if position >= len(text) or text[position] == "]":
            return records
        value, end = decoder.raw_decode(text, position)
        records.append(CaseRecord(value, file, _line_of(text, position)))
        position = end


def _json_lines_records(text, file):
    records, problems = [], []
    # Only "\n" ends a JSON Lines record; splitlines() would also split on U+2028 in a string.
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            records.append(CaseRecord(json.loads(line), file, number))
        except json.JSONDecodeError as error:
            problems.append(_decode_error(file, error, line_offset=number - 1))
    return records, problems


def _is_json_value(text):
    try:
        json.loads(text)
    except json.JSONDecodeError:
        return False
    return True


def read_case_file(path):
    """(records, problems) for one file."""
    file = str(path)
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as error:
        return [], [Problem(file, f"not UTF-8 text (byte {error.start})")]
    except OSError as error:
        return [], [Problem(file, f"cannot be read: {error.strerror}")]
    if path.suffix == ".jsonl":
        return _json_lines_records(text, file)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        if error.msg == "Extra data" and _is_json_value(text.split("\n", 1)[0]):
            # One value per line: JSON Lines in a .json file.
            return _json_lines_records(text, file)
        return [], [_decode_error(file, error)]
    if isinstance(value, list):
        return _array_records(text, file), []
    return [CaseRecord(value, file, _line_of(text, len(text) - len(text.lstrip())))], []


def read_case_files(paths):
    """All case records under the paths, and every problem met reading them."""
    files, problems = collect_files(paths)
    records = []
    for path in files:
        file_records, file_problems = read_case_file(path)
        records.extend(file_records)
        problems.extend(file_problems)
    return records, problems
