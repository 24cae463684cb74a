"""The search vectors of the cases an import writes, derived ahead of its writes.

The database derives every case's search vectors itself when its row is written
(cases/migrations/). Derived there row by row, they were most of an import's time: the
Korean part of each (every word of a Korean text with all its endings, cases_korean_tsvector)
above all. An import derives them beforehand instead, batch by batch, while the database
writes the batch before:

- in two threads taking the batches in turn (`Ahead`), each over a connection of its own
  (nothing here reads the library); a small import, for which threads and connections of
  their own cost more than they save, derives them in its own thread (`InPlace`);
- the Korean vectors by the database's own rule (cases_korean_tsvector's parts, in
  cases/migrations/0027_korean_tokens.py): the words of each text and whether they give their
  endings (one query per batch), and the tokens of each word the run has not met yet (one
  more); `KoreanVectors` remembers each word's tokens from one batch to the next and puts
  them at the word's positions, which is what cases_korean_tsvector does text by text. A
  run meets most of its words in its first batches: the rule runs once a word, not once a
  text. tests/test_korean_vectors.py holds the two to the same result on many texts;
- the whole vectors with the database's own functions, given those Korean vectors.

The import writes them with the case rows, and the trigger keeps them. They travel in
PostgreSQL's binary form (`Vector`), from the query that derives them to the COPY that
writes them: as text (some 6 KB a case), writing them out and reading them in again took
the two backends about a fifth of their time.
"""

import re
from concurrent.futures import Future

import psycopg
from django.db import DEFAULT_DB_ALIAS, connections, transaction
from psycopg import postgres
from psycopg.adapt import Dumper
from psycopg.errors import ProgramLimitExceeded
from psycopg.pq import Format

from cases.exchange.connection_thread import ConnectionThread
from cases.models import BILINGUAL_FIELDS

# One entry of a tsvector as PostgreSQL writes it: 'lexeme':1,5 (a quote doubled, a
# backslash doubled; to_tsvector gives positions and no weights).
ENTRY = re.compile(r"'((?:[^'\\]++|''|\\.)*+)':([0-9,]+)")
# Words remembered at most, by all of Ahead's workers together (each forgets its own, and
# learns them again as they come): the memory of a run stays flat however varied its
# vocabulary.
KNOWN_LIMIT = 200_000
UNESCAPE = re.compile(r"''|\\(.)")


def _quoted(lexeme):
    return "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'"


def _joined(texts):
    """Texts joined as concat_ws(E'\\n', ...) joins them (NULLs left out)."""
    return "\n".join(text for text in texts if text is not None)


def _steps(data, language):
    """The remediation steps joined as string_agg joins them (NULL when there are none)."""
    texts = [step["text"][language] for step in data["remediation"]]
    return _joined(texts) if any(text is not None for text in texts) else None


def case_texts(data, language):
    """An exchange case's texts in one language, in the order of the vectors (the arguments of
    cases_case_title_vector and cases_case_body_vector): title, summary, the organisation's
    name, the other texts joined, the steps joined."""
    _title, _summary, *body = BILINGUAL_FIELDS
    return (
        data["title"][language],
        data["summary"][language],
        data["org"],
        _joined(data[name][language] for name in body),
        _steps(data, language),
    )


class TooLarge:
    """In place of a case's vectors: a vector PostgreSQL cannot hold (a tsvector's lexemes and
    positions take at most 1 MB), with the database's words for it. The import refuses the
    case by name: a vector cut to the limit would leave words of it unfound, unsaid."""

    def __init__(self, error):
        self.reason = str(error).strip().split("\n", 1)[0]


class Vector(bytes):
    """A tsvector in PostgreSQL's binary form, as the database sent it."""


class VectorDumper(Dumper):
    """Writes a Vector back as it came (binary COPY and parameters)."""

    format = Format.BINARY
    oid = postgres.types["tsvector"].oid

    def dump(self, obj):
        return obj


def use_vectors(pg_connection):
    """Let this psycopg connection write Vectors."""
    pg_connection.adapters.register_dumper(Vector, VectorDumper)


# Both vectors of cases, given their ids, English texts (case_texts) and Korean vectors.
CASE_VECTORS = """
SELECT title, title || body
FROM (
    SELECT cases_case_title_vector(id, title_en, title_ko::tsvector) AS title,
           cases_case_body_vector(
               summary_en, organisation, body_en, steps_en, summary_ko::tsvector,
               organisation_ko::tsvector, body_ko::tsvector, steps_ko::tsvector
           ) AS body,
           n
    FROM unnest(%b::text[], %b::text[], %b::text[], %b::text[], %b::text[], %b::text[],
                %b::text[], %b::text[], %b::text[], %b::text[], %b::text[])
         WITH ORDINALITY AS given(id, title_en, summary_en, organisation, body_en, steps_en,
                                  title_ko, summary_ko, organisation_ko, body_ko, steps_ko, n)
) AS derived
ORDER BY n
"""


def binding(cursor):
    """A psycopg cursor on the connection of this (Django) cursor that binds its parameters
    on the server, the kind that can take them, and give results, in binary: long texts,
    a thousand a parameter, go as they are instead of being quoted into the query."""
    return psycopg.Cursor(cursor.connection)


class Ahead:
    """Derives the vectors of the import's batches ahead of its writes, in `WORKERS` threads
    taking the batches in turn, each over a connection of its own (deriving them takes the
    database longer than writing them). Use it as a context manager; derive() gives a
    future."""

    WORKERS = 2

    def __enter__(self):
        self.workers = [_Worker() for _ in range(self.WORKERS)]
        self.turn = 0
        return self

    def __exit__(self, *_exc):
        for worker in self.workers:
            worker.close()

    def derive(self, cases):
        """A future of {case id: (title vector, search vector)} of these exchange cases."""
        worker = self.workers[self.turn % len(self.workers)]
        self.turn += 1
        return worker.thread.submit(worker.deriving.derive, list(cases))


class InPlace:
    """What Ahead does, for a small import: each batch's vectors derived when asked, in the
    calling thread and over its connection (no batch ahead: `WORKERS` is 0)."""

    WORKERS = 0

    def __enter__(self):
        self.deriving = _Deriving(KNOWN_LIMIT)
        return self

    def __exit__(self, *_exc):
        self.deriving.close()

    def derive(self, cases):
        """A future, already done, of {case id: (title vector, search vector)}."""
        future = Future()
        future.set_result(self.deriving.derive(list(cases)))
        return future


class _Worker:
    """One thread of Ahead, deriving over its own connection."""

    def __init__(self):
        self.thread = ConnectionThread("case-vectors")
        self.deriving = _Deriving(KNOWN_LIMIT // Ahead.WORKERS)

    def close(self):
        self.thread.submit(self.deriving.close)
        self.thread.close()


class _Deriving:
    """Derives vectors over the connection of the thread that calls it, with the Korean words
    it has learnt."""

    def __init__(self, limit):
        self.limit = limit
        self.korean = None

    def close(self):
        if self.korean is not None:
            self.korean.cursor.close()

    def derive(self, cases):
        """{case id: (title vector, search vector), or TooLarge}; a batch that the database
        refuses for a vector too large is derived again case by case, to find which (each in
        a savepoint: the import's transaction goes on after the refusal)."""
        try:
            with transaction.atomic():
                return self._derive(cases)
        except ProgramLimitExceeded as error:
            if len(cases) == 1:
                return {cases[0]["id"]: TooLarge(error)}
            return {case_id: v for data in cases for case_id, v in self.derive([data]).items()}

    def _derive(self, cases):
        if self.korean is None:
            self.korean = KoreanVectors(connections[DEFAULT_DB_ALIAS].cursor(), limit=self.limit)
        korean = self.korean.vectors(text for data in cases for text in case_texts(data, "ko"))
        parts = len(korean) // len(cases) if cases else 0
        columns = [[data["id"] for data in cases]]
        columns += [
            list(texts) for texts in zip(*(case_texts(data, "en") for data in cases), strict=True)
        ]
        columns += [korean[part::parts] for part in range(parts)]
        with binding(self.korean.cursor) as cursor:
            cursor.execute(CASE_VECTORS, columns, binary=True)
            return {
                data["id"]: (Vector(title), Vector(search))
                for data, (title, search) in zip(cases, cursor.fetchall(), strict=True)
            }


class KoreanVectors:
    """Derives Korean vectors over the import's connection, as cases_korean_tsvector does,
    remembering the tokens of each word from one batch to the next."""

    def __init__(self, cursor, limit=KNOWN_LIMIT):
        self.cursor = cursor
        self.limit = limit
        # Of each word (as PostgreSQL quotes it), its tokens (quoted) without their
        # positions: with its endings (known[True]) or without (known[False]).
        self.known = {True: {}, False: {}}

    def vectors(self, texts):
        """The tsvector (as text) of each Korean text, as cases_korean_tsvector gives it."""
        with binding(self.cursor) as cursor:
            cursor.execute(
                "SELECT cases_korean_words(body)::text, coalesce(cases_korean_endings(body), false)"
                " FROM unnest(%b::text[]) WITH ORDINALITY AS text(body, n) ORDER BY n",
                [list(texts)],
            )
            words = [(ENTRY.findall(vector), endings) for vector, endings in cursor.fetchall()]
        needed = {True: set(), False: set()}
        for entries, endings in words:
            needed[endings].update(word for word, _positions in entries)
        if sum(map(len, [*self.known.values(), *needed.values()])) > self.limit:
            self.known = {True: {}, False: {}}
        for endings, known in self.known.items():
            self._learn(needed[endings] - known.keys(), endings, known)
        return [self._vector(entries, endings) for entries, endings in words]

    def _vector(self, entries, endings):
        """The tokens of each word, at the word's positions."""
        tokens = self.known[endings]
        return " ".join(
            f":{positions} ".join(tokens[word]) + f":{positions}" for word, positions in entries
        )

    def _learn(self, words, endings, known):
        """The tokens of each of these words, with its endings or without, into `known`."""
        words = {UNESCAPE.sub(lambda m: m[1] or "'", escaped): escaped for escaped in words}
        if not words:
            return
        self.cursor.execute(
            "SELECT word, array_agg(token) FROM cases_korean_tokens("
            "array_to_tsvector(%s::text[]), %s) GROUP BY word",
            [list(words), endings],
        )
        for word, tokens in self.cursor.fetchall():
            known[words[word]] = tuple(map(_quoted, tokens))
