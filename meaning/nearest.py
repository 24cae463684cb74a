"""The cases nearest in meaning to a search's words.

Each process keeps the cases' vectors (embedding.py) in memory, one matrix, and reads only the
vectors written since it last looked (their `generation`): one small query a search, two when
some were written. The similarity is the cosine of the encoder's unit vectors: the matrix
times the search's vector, about 10 ms at 100,000 cases.

A search gets (Meaning):
- `similar`: the NEAREST cases with a similarity of at least MIN_SIMILARITY, which the
  library's one ranking adds to the score of the cases the search finds;
- `found`: for a search in Korean, the NEAREST_FOUND of those cases that lack a Korean text of
  some part their English has, which the search finds even though its words cannot.
"""

import re
import threading
from dataclasses import dataclass, field

import numpy as np
from django.db import connections, router

from cases.languages import HANGUL
from meaning import encoder
from meaning.models import CaseMeaning

NEAREST = 50
NEAREST_FOUND = 5
MIN_SIMILARITY = 0.1


def searched_language(text):
    """The language a search is written in: Korean if it has a Hangul syllable."""
    return "ko" if re.search(f"[{HANGUL}]", text) else "en"


@dataclass
class Meaning:
    similar: dict = field(default_factory=dict)  # {case id: similarity}
    found: dict = field(default_factory=dict)  # {case id: similarity}
    # The generation of the vectors read (CaseMeaning.generation); None: none were consulted.
    generation: int | None = None


class Index:
    """The process's copy of the vectors, read up to `generation`."""

    def __init__(self):
        self.lock = threading.Lock()
        self.generation = 0
        self.rows = {}
        self.ids = []
        self.matrix = np.zeros((0, encoder.DIMENSIONS), dtype=np.float32)
        self.untranslated = np.zeros(0, dtype=bool)

    def _put(self, changes):
        """Apply {case id: (vector or None, untranslated)}."""
        new = [case_id for case_id in changes if case_id not in self.rows]
        if new:
            start = len(self.ids)
            self.ids += new
            self.rows.update({case_id: start + n for n, case_id in enumerate(new)})
            size = len(self.ids)
            matrix = np.zeros((size, encoder.DIMENSIONS), dtype=np.float32)
            matrix[: self.matrix.shape[0]] = self.matrix
            untranslated = np.zeros(size, dtype=bool)
            untranslated[: self.untranslated.shape[0]] = self.untranslated
            self.matrix, self.untranslated = matrix, untranslated
        for case_id, (vector, untranslated) in changes.items():
            row = self.rows[case_id]
            self.matrix[row] = 0 if vector is None else vector
            self.untranslated[row] = untranslated and vector is not None

    def refresh(self):
        table = CaseMeaning._meta.db_table
        with connections[router.db_for_read(CaseMeaning)].cursor() as cursor:
            cursor.execute(f"SELECT max(generation) FROM {table}")
            (latest,) = cursor.fetchone()
            if latest is None or latest <= self.generation:
                return
            cursor.execute(
                f"SELECT case_id, vector, untranslated, generation FROM {table}"
                " WHERE generation > %s AND language = 'en'",
                [self.generation],
            )
            changes = {}
            for case_id, vector, untranslated, generation in cursor.fetchall():
                vector = None if vector is None else encoder.from_bytes(vector)
                changes[case_id] = (vector, untranslated)
                latest = max(latest, generation)
        self._put(changes)
        self.generation = latest

    def meaning(self, text):
        with self.lock:
            self.refresh()
            generation = self.generation
            if not self.ids:
                return Meaning(generation=generation)
            similarity = self.matrix @ encoder.encode([text])[0]
            ids, untranslated = list(self.ids), self.untranslated.copy()
        nearest = _best(similarity, np.flatnonzero(similarity >= MIN_SIMILARITY), NEAREST)
        found = []
        if searched_language(text) == "ko":
            lacking = np.flatnonzero(untranslated & (similarity >= MIN_SIMILARITY))
            found = _best(similarity, lacking, NEAREST_FOUND)
        return Meaning(
            similar={ids[i]: float(similarity[i]) for i in nearest},
            found={ids[i]: float(similarity[i]) for i in found},
            generation=generation,
        )


def _best(similarity, rows, limit):
    """The `limit` rows of `rows` of the highest similarity, best first."""
    if len(rows) > limit:
        rows = rows[np.argpartition(-similarity[rows], limit)[:limit]]
    return rows[np.argsort(-similarity[rows], kind="stable")]


_index = Index()


def meaning(text):
    """The Meaning of a search's words."""
    return _index.meaning(text)
