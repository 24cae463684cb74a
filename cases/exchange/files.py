"""Reading case files: one case object, a JSON array of cases, or JSON Lines.

Every case read carries where it came from (file and line: records.py), so that every error
about it can name the place. Files are read as streams, one case at a time: a run over
a 600 MB file holds one case (and one block of the file) in memory, never the file.
"""

import codecs
import json
import re
from collections.abc import Callable, Iterator

from cases.exchange.file_search import file_suffix
from cases.exchange.records import CaseRecord, Problem
from cases.json_values import field_path

# How much of a JSON array file is read at a time; a case longer than this makes the
# buffer grow to hold it.
BLOCK_SIZE = 1 << 20
BOM = codecs.BOM_UTF8


def _where_reading_stopped(error, one_line):
    """The JSON reader's message as a curator reads it: a string it could not find the end
    of is said to begin there (its own message reads as cut off: "Unterminated string
    starting at"), and a text that ends where it stopped is said to: a file cut short, or,
    for a line of JSON Lines (`one_line`), a case cut short on its line."""
    ends = "its line" if one_line else "the file"
    if error.msg.startswith("Unterminated string"):
        cut = "" if one_line else " (is the file cut short?)"
        return f"a string begins here and is never closed before {ends} ends{cut}"
    if not error.doc[error.pos :].strip():
        cut = "" if one_line else " (is the file cut short?)"
        return f"{error.msg}, but {ends} ends here{cut}"
    return error.msg


def _decode_error(file, error, line_offset=0, column_offset=0, start=0, one_line=False):
    """The problem where the JSON reader stopped; `start`, where the value it was reading
    (a case) begins in the error's text, so that the case is named if its id came first
    (None: between two cases, in none)."""
    column = error.colno + (column_offset if error.lineno == 1 else 0)
    return Problem(
        file,
        f"malformed JSON: {_where_reading_stopped(error, one_line)}",
        line=error.lineno + line_offset,
        column=column,
        case_id=None if start is None else _id_read_before(error.doc, start, error.pos),
    )


# A key "id" and its string value, where a string starts in an object's text.
_ID_MEMBER = re.compile(r'"id"\s*:\s*("[^"\\]*(?:\\.[^"\\]*)*")')
# What the nesting of JSON text is read from: a string (whole, or to the end of the text
# read), or a bracket.
_STRING_OR_BRACKET = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\Z)|[{}\[\]]')


def _id_read_before(text, start, end=None):
    """The id of the case that text[start:] begins and `end`, the malformed place, is
    inside of, if its own "id" member (not one of a nested object's) is written whole before
    `end`; else None. The exchange format writes the id first, so a broken case is named.
    Without `end` (a case whole but unreadable: nested too deeply), its own id wherever it
    is written."""
    whole, end = end is None, len(text) if end is None else end
    depth, case_id = 0, None
    for token in _STRING_OR_BRACKET.finditer(text, start, end):
        char = text[token.start()]
        if char == '"':
            if depth == 1 and case_id is None:
                if member := _ID_MEMBER.match(text, token.start(), end):
                    try:
                        case_id = json.loads(member.group(1))
                    except json.JSONDecodeError:  # a bad escape: no id to name
                        pass
        elif char in "{[":
            depth += 1
        else:
            depth -= 1
            if depth <= 0:  # the case is closed: the malformed place is after it
                if whole:
                    return case_id
                case_id = None
    return case_id


def _unreadable_value(file, error, line, text=None, start=0):
    """The problem for a value the JSON reader gives up on: nested too deeply, or a number
    too long for Python to convert (a traceback otherwise); text[start:], a case, named by
    its id."""
    if isinstance(error, RecursionError):
        message = "malformed JSON: nested too deeply to be read"
    else:
        message = f"malformed JSON: {error}"
        if "integer string conversion" in str(error):
            message = "malformed JSON: a number has too many digits to be read (at most 4300)"
    case_id = None if text is None else _id_read_before(text, start)
    return Problem(file, message, line=line, case_id=case_id)


class _NotUtf8(Exception):
    def __init__(self, offset):
        self.offset = offset  # of the first byte that is not UTF-8, after a BOM if any

    def problem(self, file, handle, start):
        """The problem, with the line and column of the offending byte (`start`: where the
        text begins, after its BOM)."""
        handle.seek(0)
        if handle.read(2) in (b"\xff\xfe", b"\xfe\xff"):
            return Problem(file, "UTF-16 text, not UTF-8: save the file as UTF-8")
        handle.seek(start)
        before = handle.read(self.offset)
        line = before.count(b"\n") + 1
        column = len(before) - (before.rfind(b"\n") + 1) + 1
        return Problem(
            file,
            f"not UTF-8 text (byte {self.offset + start + 1} of the file): save the file as UTF-8",
            line=line,
            column=column,
        )


def _ignore(_bytes_read):
    pass


class _Text:
    """A file's text, decoded from UTF-8 block by block, as a buffer that starts at a known
    line (and column) of the file and can be trimmed of what has been read."""

    def __init__(self, handle, progress, start, *, line, offset):
        """`start`: the first bytes, already read, on line `line` at byte `offset`."""
        self.handle = handle
        self.progress = progress
        self.decoder = codecs.getincrementaldecoder("utf-8")()
        self.fed = offset  # bytes given to the decoder, the BOM not counted
        self.buffer = ""
        self.line = line  # the file's line that buffer[0] is on
        self.column = 0  # characters of that line before buffer[0]
        self.counted_to, self.counted_line = 0, line  # line numbers counted up to an offset
        self.eof = False
        self._feed(start, final=False)

    def _feed(self, data, final):
        pending = len(self.decoder.getstate()[0])
        try:
            self.buffer += self.decoder.decode(data, final)
        except UnicodeDecodeError as error:
            raise _NotUtf8(self.fed - pending + error.start) from None
        self.fed += len(data)

    def more(self):
        """Read one more block; False at the end of the file."""
        if self.eof:
            return False
        data = self.handle.read(BLOCK_SIZE)
        self.progress(len(data))
        self.eof = not data
        self._feed(data, final=self.eof)
        return bool(data)

    def line_at(self, position):
        """The file's line of buffer[position], positions asked for in increasing order."""
        if position < self.counted_to:
            self.counted_to, self.counted_line = 0, self.line
        self.counted_line += self.buffer.count("\n", self.counted_to, position)
        self.counted_to = position
        return self.counted_line

    def trim(self, position):
        """Forget the text before `position` (kept while it is small)."""
        if position < BLOCK_SIZE:
            return position
        line = self.line_at(position)
        cut = self.buffer.rfind("\n", 0, position) + 1
        if cut:
            self.column = 0
        else:  # one line longer than a block: cut inside it, and count its columns
            cut = position
            self.column += position
        self.buffer = self.buffer[cut:]
        self.line = line
        self.counted_to, self.counted_line = 0, line
        return position - cut

    def error(self, file, error, start=None):
        """The problem of a reader's error in the buffer; `start`, where the case it was
        reading begins (None between cases)."""
        return _decode_error(
            file, error, line_offset=self.line - 1, column_offset=self.column, start=start
        )

    def skip_space(self, position):
        """The position of the next character that is not JSON whitespace (reading on as
        needed), or None at the end of the file."""
        while True:
            while position < len(self.buffer) and self.buffer[position] in " \t\r\n":
                position += 1
            if position < len(self.buffer):
                return position
            if not self.more():
                return None


# A JSON reader error this close to the end of the buffer may only mean that the buffer
# ends inside the value (a literal such as `true` or an escape cut in two): read on first.
_NEAR_THE_END = 16


def _rest_unread(problem):
    problem.rest_unread = True
    return problem


class _Decoder:
    """json's decoder, noting the keys given twice in one object (JSON allows it, and the
    last value would silently win: an "id" given twice stored the case under the second),
    and the objects they were given twice in, to name their place."""

    def __init__(self, check_duplicate_keys=True):
        self.duplicates = []  # (object, key given twice in it)
        self.json = json.JSONDecoder(
            object_pairs_hook=self._object if check_duplicate_keys else None
        )

    def _object(self, pairs):
        value = dict(pairs)
        if len(value) != len(pairs):
            seen = set()
            self.duplicates += [(value, key) for key, _ in pairs if key in seen or seen.add(key)]
        return value

    def loads(self, text):
        self.duplicates = []
        return self.json.decode(text)

    def raw_decode(self, text, position):
        self.duplicates = []
        return self.json.raw_decode(text, position)

    def record(self, value, file, line, fingerprint, text=None):
        record = CaseRecord(value, file, line, fingerprint=fingerprint, text=text)
        if self.duplicates:
            places = _places_of_objects(value)
            for place, key in dict.fromkeys((places[id(obj)], key) for obj, key in self.duplicates):
                where = field_path([*place, key])
                record.problem(f"the key {key!r} is given twice; give it once", path=where)
        return record


def _places_of_objects(value, place=()):
    """{id(object): its path} of the objects within a JSON value (read only when a key was
    given twice, to name where)."""
    places = {}
    if isinstance(value, dict):
        places[id(value)] = place
        for key, item in value.items():
            places |= _places_of_objects(item, (*place, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            places |= _places_of_objects(item, (*place, index))
    return places


def _array_records(text, file, decoder):
    """The elements of a JSON array, each with the line it starts on; its opening `[` is at
    text.buffer[0]. Problems are yielded where they are met; reading stops at the first
    malformed place, since what follows it cannot be told apart."""
    position = 1
    expect_value = True  # after `[` or `,`
    first = True
    while True:
        position = text.trim(position)
        position = text.skip_space(position)
        if position is None:
            message = "Expecting value" if expect_value else "Expecting ',' delimiter"
            yield text.error(file, json.JSONDecodeError(message, text.buffer, len(text.buffer)))
            return
        char = text.buffer[position]
        if char == "]" and (first or not expect_value):
            position += 1
            break
        if not expect_value:
            if char != ",":
                yield _rest_unread(
                    text.error(
                        file, json.JSONDecodeError("Expecting ',' delimiter", text.buffer, position)
                    )
                )
                return
            position += 1
            expect_value = True
            continue
        start = position
        while True:
            try:
                value, end = decoder.raw_decode(text.buffer, start)
                break
            except json.JSONDecodeError as error:
                unterminated = error.msg.startswith("Unterminated string")
                if (unterminated or error.pos >= len(text.buffer) - _NEAR_THE_END) and text.more():
                    continue
                yield _rest_unread(text.error(file, error, start))
                return
            except (RecursionError, ValueError) as error:
                yield _rest_unread(
                    _unreadable_value(file, error, text.line_at(start), text.buffer, start)
                )
                return
        if end > len(text.buffer) - _NEAR_THE_END and text.more():
            # A number may go on in the next block ("12" of "12.5"): decode it again.
            continue
        case_text = text.buffer[start:end]
        yield decoder.record(
            value, file, text.line_at(start), fingerprint=hash(case_text), text=case_text
        )
        position, expect_value, first = end, False, False
    # After the array's `]`, only whitespace.
    position = text.skip_space(position)
    if position is not None:
        yield text.error(file, json.JSONDecodeError("Extra data", text.buffer, position))


def _json_lines_records(lines, file, progress, decoder, first_number=1, first_offset=0):
    """One record per non-blank line; `lines` gives the raw lines (bytes, each ending in
    b"\\n" but maybe the last). Only "\\n" ends a line: U+2028 in a string does not."""
    offset = first_offset
    for number, raw in enumerate(lines, start=first_number):
        progress(len(raw))
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise _NotUtf8(offset + error.start) from None
        offset += len(raw)
        text = text.removesuffix("\n")
        if not text.strip():
            continue
        try:
            value = decoder.loads(text)
        except json.JSONDecodeError as error:
            yield _decode_error(file, error, line_offset=number - 1, one_line=True)
            continue
        except (RecursionError, ValueError) as error:
            yield _unreadable_value(file, error, number, text)
            continue
        yield decoder.record(value, file, number, fingerprint=hash(raw))


def _is_json_value(text):
    try:
        json.loads(text)
    except (json.JSONDecodeError, RecursionError, ValueError):
        return False
    return True


def _opens_a_document(text):
    """Whether a first line opens a case written over several lines, as a person or
    json.dumps(indent=...) writes it: `{` alone, or a line ending where a value goes on
    (`{"id": "IL-1",`). A case cut off mid-line (`{"id": "IL-1", "title": {"en": "x"`) is a
    malformed line of JSON Lines."""
    text = text.strip()
    return text.startswith("{") and (text == "{" or text.endswith((",", "{", "[", ":")))


def _one_line_object(text):
    """Whether a line reads as a case written on it, whole or malformed: `{...}`. A case over
    several lines starts with a line that does not close it (`{`, `{"id": "IL-1",`)."""
    text = text.strip()
    return text.startswith("{") and text.endswith("}")


def _json_file_records(handle, file, progress, decoder, lines=False):
    """A case file: a JSON array (streamed), JSON Lines, or one value (a case), told apart
    by its first line. `lines`: the file is named .jsonl, so that a first line that is no
    JSON value is JSON Lines all the same, unless it opens an array or a case over several
    lines (_opens_a_document); in a .json file, only a first line that is a value, or looks
    like a case on one line, is."""
    # At most a block at first: a minified array is one line, and is streamed all the same.
    first_line = handle.readline(BLOCK_SIZE)
    progress(len(first_line))
    # Blank lines before the first value count for the line numbers.
    line, offset = 1, 0
    while first_line and not first_line.strip(b" \t\r\n"):
        line, offset = line + 1, offset + len(first_line)
        first_line = handle.readline(BLOCK_SIZE)
        progress(len(first_line))
    if first_line.lstrip(b" \t\r\n").startswith(b"["):
        text = _Text(handle, progress, first_line, line=line, offset=offset)
        start = text.skip_space(0)
        text.buffer, text.column = text.buffer[start:], start
        yield from _array_records(text, file, decoder)
        return
    if not first_line.endswith(b"\n"):
        rest_of_line = handle.readline()
        progress(len(rest_of_line))
        first_line += rest_of_line
    try:
        first_text = first_line.decode("utf-8")
    except UnicodeDecodeError as error:
        raise _NotUtf8(offset + error.start) from None
    if (
        _one_line_object(first_text)
        or _is_json_value(first_text)
        or (lines and not _opens_a_document(first_text))
    ):
        # One value per line: JSON Lines (or a case written on one line).
        yield from _json_lines_records([first_line], file, _ignore, decoder, line, offset)
        yield from _json_lines_records(
            handle, file, progress, decoder, line + 1, offset + len(first_line)
        )
        return
    # One value over several lines: a case, read whole.
    rest = handle.read()
    progress(len(rest))
    data = first_line + rest
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise _NotUtf8(offset + error.start) from None
    try:
        value = decoder.loads(text)
    except json.JSONDecodeError as error:
        yield _decode_error(file, error, line_offset=line - 1)
        return
    except (RecursionError, ValueError) as error:
        yield _unreadable_value(file, error, line, text)
        return
    line += text.count("\n", 0, len(text) - len(text.lstrip()))
    yield decoder.record(value, file, line, fingerprint=hash(text), text=text.lstrip())


def iter_case_file(
    path, progress: Callable[[int], None] = _ignore, *, check_duplicate_keys=True
) -> Iterator:
    """The cases of one file, read as a stream: a CaseRecord for each case and a Problem for
    each place that cannot be read, in the order of the file. `progress(n)` is told of every
    n bytes read. Without `check_duplicate_keys` (a second reading of a file checked before),
    keys given twice in an object are not looked for, which reads about twice as fast."""
    decoder = _Decoder(check_duplicate_keys)
    file = str(path)
    try:
        handle = open(path, "rb")
    except OSError as error:
        yield Problem(file, f"cannot be read: {error.strerror}")
        return
    with handle:
        start = 0
        try:
            if handle.read(len(BOM)) != BOM:
                handle.seek(0)
            else:
                start = len(BOM)
                progress(len(BOM))
            if not handle.read(BLOCK_SIZE).strip(b" \t\r\n"):
                yield Problem(file, "the file is empty: it holds no case")
                return
            handle.seek(start)
            yield from _json_file_records(
                handle, file, progress, decoder, lines=file_suffix(path) == ".jsonl"
            )
        except _NotUtf8 as error:
            yield error.problem(file, handle, start)
        except OSError as error:
            yield Problem(file, f"cannot be read: {error.strerror}")


def read_json_document(path):
    """(value, None) of a small JSON file read whole (a taxonomy), or (None, problem): the
    same messages as for case files (a BOM allowed, not UTF-8, malformed, nested too deeply)."""
    file = str(path)
    try:
        handle = open(path, "rb")
    except OSError as error:
        return None, Problem(file, f"cannot be read: {error.strerror}")
    with handle:
        start = len(BOM) if handle.read(len(BOM)) == BOM else 0
        handle.seek(start)
        try:
            data = handle.read()
        except OSError as error:
            return None, Problem(file, f"cannot be read: {error.strerror}")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            return None, _NotUtf8(error.start).problem(file, handle, start)
    if not text.strip():
        return None, Problem(file, "the file is empty")
    try:
        return json.loads(text), None
    except json.JSONDecodeError as error:
        return None, _decode_error(file, error)
    except (RecursionError, ValueError) as error:
        return None, _unreadable_value(file, error, None)
