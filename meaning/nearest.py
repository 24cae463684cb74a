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

A search's page kept in the cache (cases/text_changes.py) keeps its Meaning's `guard()`: the
vectors' generation it was read at, the search's own vector, the cases it named and the least
similarity that got a case among them. Vectors written since change the page only if one is of
a case it named, or is as similar as that (`moved`): a write elsewhere in the library, whose
vector the worker makes again, leaves it as it was.
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
# What float32 rounding may take off a similarity computed over other rows (Index.moved).
SIMILARITY_ROUNDING = 1e-5


def searched_language(text):
    """The language a search is written in: Korean if it has a Hangul syllable."""
    return "ko" if re.search(f"[{HANGUL}]", text) else "en"


@dataclass(frozen=True)
class MeaningGuard:
    """What a search's Meaning depends on (Meaning.guard): the vectors' generation it was read
    at; the search's vector (bytes; None when the library had no vector); the cases it named;
    the least similarity that named a case among the similar ones, and among those found (None
    for a search that finds none so: not Korean)."""

    generation: int
    vector: bytes | None
    named: frozenset
    similar_floor: float
    found_floor: float | None


@dataclass
class Meaning:
    similar: dict = field(default_factory=dict)  # {case id: similarity}
    found: dict = field(default_factory=dict)  # {case id: similarity}
    # The generation of the vectors read (CaseMeaning.generation); None: none were consulted.
    generation: int | None = None
    vector: np.ndarray | None = field(default=None, compare=False)  # the search's own
    korean: bool = False

    def guard(self):
        """The MeaningGuard of this Meaning; None when no vector was consulted."""
        if self.generation is None:
            return None

        def floor(named, limit):
            # Fewer than `limit` named: any case of MIN_SIMILARITY would have been.
            return min(named.values()) if len(named) >= limit else MIN_SIMILARITY

        return MeaningGuard(
            generation=self.generation,
            vector=None if self.vector is None else encoder.to_bytes(self.vector),
            named=frozenset(self.similar) | frozenset(self.found),
            similar_floor=floor(self.similar, NEAREST),
            found_floor=floor(self.found, NEAREST_FOUND) if self.korean else None,
        )


class Index:
    """The process's copy of the vectors, read up to `generation`."""

    def __init__(self):
        self.lock = threading.Lock()
        self.generation = 0
        self.rows = {}
        self.ids = []
        self.matrix = np.zeros((0, encoder.DIMENSIONS), dtype=np.float32)
        self.untranslated = np.zeros(0, dtype=bool)
        self.generations = np.zeros(0, dtype=np.int64)  # each row's, as read

    def _put(self, changes):
        """Apply {case id: (vector or None, untranslated, generation)}."""
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
            generations = np.zeros(size, dtype=np.int64)
            generations[: self.generations.shape[0]] = self.generations
            self.matrix, self.untranslated = matrix, untranslated
            self.generations = generations
        for case_id, (vector, untranslated, generation) in changes.items():
            row = self.rows[case_id]
            self.matrix[row] = 0 if vector is None else vector
            self.untranslated[row] = untranslated and vector is not None
            self.generations[row] = generation

    def refresh(self, latest=None):
        """Read the vectors written since the copy was last read; `latest`, the newest
        generation when the caller has read it already (no query then, if the copy has it)."""
        if latest is not None and latest <= self.generation:
            return
        table = CaseMeaning._meta.db_table
        with connections[router.db_for_read(CaseMeaning)].cursor() as cursor:
            if latest is None:
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
                changes[case_id] = (vector, untranslated, generation)
                latest = max(latest, generation)
        self._put(changes)
        self.generation = latest

    def meaning(self, text):
        korean = searched_language(text) == "ko"
        with self.lock:
            self.refresh()
            generation = self.generation
            if not self.ids:
                return Meaning(generation=generation, korean=korean)
            vector = encoder.encode([text])[0]
            similarity = self.matrix @ vector
            ids, untranslated = list(self.ids), self.untranslated.copy()
        nearest = _best(similarity, np.flatnonzero(similarity >= MIN_SIMILARITY), NEAREST, ids)
        found = []
        if korean:
            lacking = np.flatnonzero(untranslated & (similarity >= MIN_SIMILARITY))
            found = _best(similarity, lacking, NEAREST_FOUND, ids)
        return Meaning(
            similar={ids[i]: float(similarity[i]) for i in nearest},
            found={ids[i]: float(similarity[i]) for i in found},
            generation=generation,
            vector=vector,
            korean=korean,
        )

    def moved(self, guard, latest):
        """Whether the vectors written since `guard` (a MeaningGuard) was read, up to the
        generation `latest`, may change its search's Meaning: one of a case it named, or one as
        similar to the search as the least it named (among the cases lacking Korean, for the
        found ones)."""
        with self.lock:
            self.refresh(latest)
            rows = np.flatnonzero(self.generations > guard.generation)
            if not len(rows):
                return False
            if guard.vector is None or any(self.ids[row] in guard.named for row in rows):
                return True
            similarity = self.matrix[rows] @ encoder.from_bytes(guard.vector)
            untranslated = self.untranslated[rows]
        # A product over some rows may differ from the one over all in its last bits.
        similarity += SIMILARITY_ROUNDING
        if (similarity >= guard.similar_floor).any():
            return True
        found_floor = guard.found_floor
        return found_floor is not None and bool((untranslated & (similarity >= found_floor)).any())


def _best(similarity, rows, limit, ids):
    """The `limit` rows of `rows` of the highest similarity, best first, equal ones by case id
    (`ids`: each row's): the choice depends on those rows alone, never on the others' values
    or order (two cases of the same text have the same vector), so that a vector written for
    a case less similar than the least chosen cannot change it (`moved`)."""
    if len(rows) > limit:
        least = similarity[rows][np.argpartition(-similarity[rows], limit - 1)[limit - 1]]
        rows = rows[similarity[rows] >= least]  # the best `limit`, and any equal to the last
    return sorted(rows.tolist(), key=lambda row: (-similarity[row], ids[row]))[:limit]


_index = Index()


def meaning(text):
    """The Meaning of a search's words."""
    return _index.meaning(text)


def moved(guard, latest):
    """Whether vectors written since, up to the generation `latest`, may change the Meaning of
    this MeaningGuard."""
    return _index.moved(guard, latest)
