"""Unit vectors of deal descriptions and questions (all-MiniLM-L6-v2), kept in the on-disk cache.

Both run on the engine's question runner (`store.dense.load_encoder`: ONNX Runtime, float32) whatever the CPU, not
the passage runner, which is bfloat16 on CPUs that have it: the learned ranker reads the text similarity as a
feature, so the same description must give the same number here and on the machine that trained it. A batch gives
each text the bits it gets alone (padding changes none under ONNX Runtime: `store.dense`), so a question encoded
with others is the one `encode_queries` gives.

A list of texts is stored under a hash of the texts and of `versions("encoder")` (the encoder's code, the model and
its libraries), so a changed description, model or library never reads a stale vector. On this machine the bundled
universe's ~2,700 descriptions take about a minute to encode once (docs/precedents.md); every later process reads
them in milliseconds.
"""

from __future__ import annotations

import hashlib
import threading
from typing import Callable, Sequence

import numpy as np

from ..store import dense
from ..store.cache import DiskCache, versions

COMPONENT = "deal-vectors"
_known: dict[str, np.ndarray] = {}  # text → vector, for every text this process encoded or read: a question asked
_lock = threading.Lock()  # twice, or first met in an evaluation, is not encoded again


def _fingerprint(texts: Sequence[str]) -> str:
    h = hashlib.sha256(versions("encoder").encode())
    for t in texts:
        h.update(b"\x1e" + t.encode("utf-8"))
    return h.hexdigest()


def text_vectors(texts: Sequence[str], cache: DiskCache | None = None,
                 on_batch: Callable[[int, int], None] | None = None) -> np.ndarray:
    """A float32 unit vector per text (a zero row for an empty text), from the cache when it holds this list."""
    texts = list(texts)
    unique = list(dict.fromkeys(t for t in texts if t.strip()))
    out = np.zeros((len(texts), dense.DIM), dtype=np.float32)
    if not unique:
        return out
    with _lock:
        have = all(t in _known for t in unique)
    if have:
        vectors = np.vstack([_known[t] for t in unique])
    else:
        cache = cache if cache is not None else DiskCache()
        key = _fingerprint(unique)
        vectors = cache.load(key, COMPONENT)
        if not (isinstance(vectors, np.ndarray) and vectors.shape == (len(unique), dense.DIM)):
            with _lock:  # a list edited in this process encodes only its new texts
                missing = [t for t in unique if t not in _known]
            new = dict(zip(missing, dense.load_encoder().encode(missing, on_batch=on_batch).astype(np.float32)))
            with _lock:
                vectors = np.vstack([new[t] if t in new else _known[t] for t in unique])
            cache.store(key, COMPONENT, vectors)
        with _lock:
            _known.update(zip(unique, vectors))
    at = {t: i for i, t in enumerate(unique)}
    rows = [i for i, t in enumerate(texts) if t.strip()]
    out[rows] = vectors[[at[texts[i]] for i in rows]]
    return out


def question_vector(question: str) -> np.ndarray:
    """One question's vector: one this process already has, else `encode_queries` (cached per text there)."""
    with _lock:
        v = _known.get(question)
    return v if v is not None else dense.encode_queries([question])[0]


__all__ = ["COMPONENT", "question_vector", "text_vectors"]
