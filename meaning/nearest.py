"""The cases nearest in meaning to a search's words, among those lacking a translation.

A search in Korean is compared with the vectors of the English texts that have no Korean (and
a search in English with the Korean texts that have no English): what its words cannot find.
Each process keeps those vectors in memory, one matrix a language, and reads only the vectors
written since it last looked (their `generation`): one small query a search, two when some
were written. The similarity is the cosine of the encoder's unit vectors.
"""

import re
import threading

import numpy as np
from django.db import connection

from cases.languages import HANGUL
from meaning import encoder
from meaning.models import CaseMeaning

# Cases found by meaning, at most, and the least similarity for one to be found.
NEAREST = 10
MIN_SIMILARITY = 0.3


def searched_language(text):
    """The language a search is written in: Korean if it has a Hangul syllable."""
    return "ko" if re.search(f"[{HANGUL}]", text) else "en"


class Vectors:
    """One language's vectors: case ids, and their matrix (a zero row for none)."""

    def __init__(self):
        self.rows = {}
        self.ids = []
        self.matrix = np.zeros((0, encoder.DIMENSIONS), dtype=np.float32)

    def put(self, changes):
        """Apply {case id: vector or None}."""
        new = [case_id for case_id in changes if case_id not in self.rows]
        if new:
            start = len(self.ids)
            self.ids += new
            self.rows.update({case_id: start + n for n, case_id in enumerate(new)})
            grown = np.zeros((len(self.ids), encoder.DIMENSIONS), dtype=np.float32)
            grown[: self.matrix.shape[0]] = self.matrix
            self.matrix = grown
        for case_id, vector in changes.items():
            self.matrix[self.rows[case_id]] = 0 if vector is None else vector

    def __bool__(self):
        return bool(self.ids)


class Index:
    """The process's copy of the vectors, read since `generation`."""

    def __init__(self):
        self.lock = threading.Lock()
        self.generation = 0
        self.languages = {"en": Vectors(), "ko": Vectors()}

    def refresh(self):
        table = CaseMeaning._meta.db_table
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT max(generation) FROM {table}")
            (latest,) = cursor.fetchone()
            if latest is None or latest <= self.generation:
                return
            cursor.execute(
                f"SELECT case_id, language, vector, generation FROM {table} WHERE generation > %s",
                [self.generation],
            )
            changes = {"en": {}, "ko": {}}
            for case_id, language, vector, generation in cursor.fetchall():
                changes[language][case_id] = None if vector is None else encoder.from_bytes(vector)
                latest = max(latest, generation)
        for language, changed in changes.items():
            self.languages[language].put(changed)
        self.generation = latest

    def nearest(self, text, limit=NEAREST):
        """[(case id, similarity)] of the cases whose texts lacking the search's language are
        nearest to the text, most similar first."""
        other = "en" if searched_language(text) == "ko" else "ko"
        with self.lock:
            self.refresh()
            vectors = self.languages[other]
            if not vectors:
                return []
            similarity = vectors.matrix @ encoder.encode([text])[0]
            ids = list(vectors.ids)
        best = np.argsort(-similarity)[:limit]
        return [(ids[i], float(similarity[i])) for i in best if similarity[i] >= MIN_SIMILARITY]


_index = Index()


def nearest(text, limit=NEAREST):
    return _index.nearest(text, limit)
