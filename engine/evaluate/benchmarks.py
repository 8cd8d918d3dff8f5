"""Public multi-hop benchmarks (MuSiQue, HotpotQA distractor, 2WikiMultiHopQA), read from a
path the user gives, in their official record formats, as JSON or JSON Lines.

Two modes, as in the Aethel paper:
- closed pool: each question is asked of an index over its own paragraphs only;
- open corpus: the unique paragraphs of all questions are pooled into one index.
A paragraph's id is a hash of its title and text, so the same paragraph in two questions
is one passage in the open corpus.
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Sequence


from ..store.cache import DiskCache
from ..ingest.corpus import Corpus
from ..ingest.questions import LabeledQuery, load_queries
from ..ingest.passage import Passage
from ..ingest.textfiles import read_json_lines, read_text
from ..errors import PathLensError
from .evaluate import EvalResult, RetrieverResult, check_ks, evaluate
from ..catalog import stages_for
from ..indexing.index import Index, SearchConfig, check_retriever, search_config
from .metrics import mean_metrics, metric_names

FORMATS = ("musique", "hotpotqa", "2wiki")
MODES = ("closed", "open")


@dataclass(frozen=True)
class Question:
    id: str
    text: str
    paragraphs: tuple[Passage, ...]
    gold: tuple[str, ...]


def _pid(title: str, text: str) -> str:
    return "p-" + hashlib.sha1(f"{title}\n{text}".encode("utf-8")).hexdigest()[:12]


def _records(path: Path) -> list[tuple[str, dict]]:
    """(where, record) pairs from a JSON array or JSON Lines file."""
    text = read_text(Path(path))
    if not text.strip():
        raise PathLensError(f"{path} is empty")
    if text.lstrip().startswith("["):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise PathLensError(f"{path}: not valid JSON (line {e.lineno}: {e.msg})") from None
        rows = [(f"{path}, record {i}", r) for i, r in enumerate(data, start=1)]
    else:  # JSON Lines: the one reader corpora and labeled questions use too
        rows = [(f"{path}, line {n}", r) for n, r in read_json_lines(text, str(path))]
    for where, r in rows:
        if not isinstance(r, dict):
            raise PathLensError(f"{where}: expected a JSON object")
    return rows


def _need(r: dict, key: str, where: str, kind: type):
    if key not in r:
        raise PathLensError(f"{where}: missing field {key!r}")
    if not isinstance(r[key], kind):
        raise PathLensError(f"{where}: field {key!r} has the wrong type")
    return r[key]


def _musique(where: str, r: dict) -> Question:
    qid = str(_need(r, "id", where, (str, int)))
    paragraphs, gold = [], []
    for i, p in enumerate(_need(r, "paragraphs", where, list)):
        w = f"{where}, paragraph {i}"
        if not isinstance(p, dict):
            raise PathLensError(f"{w}: expected an object")
        title, text = str(_need(p, "title", w, str)), str(_need(p, "paragraph_text", w, str))
        supporting = _need(p, "is_supporting", w, bool)
        pid = _pid(title, text)
        paragraphs.append(Passage(pid, title, title, text))
        if supporting:
            gold.append(pid)
    return Question(qid, str(_need(r, "question", where, str)), tuple(paragraphs), tuple(dict.fromkeys(gold)))


def _hotpot(where: str, r: dict) -> Question:
    qid = str(_need(r, "_id", where, (str, int)))
    supporting = {str(f[0]) for f in _need(r, "supporting_facts", where, list) if isinstance(f, list) and f}
    paragraphs, gold = [], []
    for i, c in enumerate(_need(r, "context", where, list)):
        if not (isinstance(c, list) and len(c) == 2 and isinstance(c[1], list)):
            raise PathLensError(f"{where}, context {i}: expected [title, [sentences]]")
        title, text = str(c[0]), "".join(str(s) for s in c[1]).strip()
        pid = _pid(title, text)
        paragraphs.append(Passage(pid, title, title, text))
        if title in supporting:
            gold.append(pid)
    return Question(qid, str(_need(r, "question", where, str)), tuple(paragraphs), tuple(dict.fromkeys(gold)))


def load_questions(fmt: str, path: str | Path) -> list[Question]:
    if fmt not in FORMATS:
        raise PathLensError(f"unknown benchmark format {fmt!r}; choose one of {', '.join(FORMATS)}")
    parse = _musique if fmt == "musique" else _hotpot
    out = []
    for where, r in _records(Path(path)):
        q = parse(where, r)
        if not q.paragraphs:
            raise PathLensError(f"{where}: question {q.id!r} has no paragraphs")
        if q.gold:  # a question with no supporting paragraph cannot be scored
            out.append(q)
    if not out:
        raise PathLensError(f"{path}: no question with a supporting paragraph; is it a {fmt} file?")
    return out


def sample(questions: Sequence[Question], n: int | None, seed: int) -> list[Question]:
    if n is None or n >= len(questions):
        return list(questions)
    if n < 1:
        raise PathLensError(f"sample size must be at least 1, got {n}")
    return random.Random(seed).sample(list(questions), n)


def _query(q: Question) -> LabeledQuery:
    return LabeledQuery(q.id, q.text, q.gold, "multi-hop")


def open_corpus(questions: Sequence[Question], name: str) -> Corpus:
    passages: dict[str, Passage] = {}
    for q in questions:
        for p in q.paragraphs:
            passages.setdefault(p.id, p)
    return Corpus(name, tuple(passages.values()), tuple(_query(q) for q in questions))


def closed_corpus(q: Question) -> Corpus:
    unique = tuple({p.id: p for p in q.paragraphs}.values())
    return Corpus(q.id, unique, (_query(q),))


@dataclass(frozen=True, eq=False)
class BenchResult:
    format: str
    mode: str
    n_questions: int  # questions evaluated (fewer than asked for when cancelled)
    n_passages: int  # open: pooled passages; closed: all paragraphs over all pools
    eval: EvalResult
    n_asked: int  # questions in the sample
    complete: bool  # False when cancelled part-way; the metrics cover the first n_questions
    min_gold: int = 1  # the fewest gold passages any question has

    def metrics(self) -> list[str]:
        """The metrics worth showing: all@k is left out where k is below every question's count of gold passages,
        since no ranking can put them all in its top k (all@1 on multi-hop questions is 0 by construction)."""
        return [m for m in metric_names(self.eval.ks) if not (m.startswith("all@") and int(m[4:]) < self.min_gold)]

    def to_json(self) -> dict:
        return {**self.eval.to_json(), "format": self.format, "mode": self.mode, "n_questions": self.n_questions,
                "n_asked": self.n_asked, "complete": self.complete}


def run_bench(fmt: str, path: str | Path, mode: str, retrievers: Sequence[str], ks: Sequence[int] = (1, 3, 5),
              n: int | None = None, seed: int = 42,
              configure: Callable[[Corpus], SearchConfig] = lambda corpus: search_config({}, corpus),
              on_progress: Callable[[str, int, int], None] | None = None,
              should_stop: Callable[[], bool] = lambda: False, cache: DiskCache | None = None,
              queries: str | Path | None = None) -> BenchResult:
    """Metrics of `retrievers` on a benchmark file, each corpus searched under `configure(corpus)` (its defaults
    read off the corpus, as `search_config` reads them, then what the user set). `cache` keeps the open corpus's index
    components on disk (its NER and embeddings take minutes); closed pools are small and not cached.
    `queries`: labeled questions (JSON lines, as `eval --queries`) asked of the whole open corpus instead of the
    benchmark's own, which then only pool the passages: questions of a kind the benchmark lacks, over its corpus.

    `on_progress(step, done, total)` hears the open corpus's index stages (passages done) and then
    "questions"; closed pools report "questions" one by one. `should_stop()` is asked between
    questions (closed) or stages (open): a stop returns the questions finished, marked incomplete."""
    if mode not in MODES:
        raise PathLensError(f"unknown mode {mode!r}; choose closed or open")
    for r in retrievers:
        check_retriever(r)
    ks = check_ks(ks)
    if queries is not None and (mode != "open" or n is not None):
        raise PathLensError("labeled questions (--queries) are asked of the whole open corpus: use --mode open "
                            "without --sample")
    questions = sample(load_questions(fmt, path), n, seed)
    name = f"{Path(path).stem} ({mode})"
    progress = on_progress or (lambda step, done, total: None)
    if mode == "open":
        corpus = open_corpus(questions, name)
        if queries is not None:
            corpus = replace(corpus, queries=load_queries(Path(queries), corpus.passages))
            questions = corpus.queries
        index, config = Index(corpus, cache=cache), configure(corpus)
        for stage in stages_for(retrievers, config.rrf.members):
            if should_stop():
                raise PathLensError(f"benchmark cancelled after 0 of {len(questions)} questions "
                                    f"(while building the index)")
            progress(stage, 0, len(corpus))
            index.build(stage, progress)
        progress("questions", 0, len(questions))
        result = evaluate(index, retrievers, ks, config)
        progress("questions", len(questions), len(questions))
        return BenchResult(fmt, mode, len(questions), len(corpus), result, len(questions), True,
                           min(len(q.gold) for q in questions))
    # closed pool: a fresh index per question; per-query values are pooled, then averaged
    per: dict[str, dict[str, dict[str, float]]] = {r: {} for r in retrievers}
    runs: dict[str, dict] = {r: {} for r in retrievers}
    no_seed: dict[str, list[str]] = {r: [] for r in retrievers}
    total = done = 0
    config = None  # the first pool's: what the result reports (a pool's shape sets only the second hop's defaults)
    progress("questions", 0, len(questions))
    for q in questions:
        if should_stop():
            break
        corpus = closed_corpus(q)
        total += len(corpus)
        settings = configure(corpus)
        config = config or settings
        res = evaluate(Index(corpus), retrievers, ks, settings)
        for r in retrievers:
            per[r].update(res.results[r].per_query)
            runs[r].update(res.results[r].run)
            no_seed[r].extend(res.results[r].no_seed)
        done += 1
        progress("questions", done, len(questions))
    if not done:
        raise PathLensError(f"benchmark cancelled after 0 of {len(questions)} questions")
    results = {
        r: RetrieverResult(r, mean_metrics(per[r]), {"multi-hop": mean_metrics(per[r])}, per[r], runs[r],
                           tuple(no_seed[r]))
        for r in retrievers
    }
    ev = EvalResult(f"{Path(path).stem} (closed)", int(round(total / done)), done, ks, config, results)
    return BenchResult(fmt, mode, done, total, ev, len(questions), done == len(questions),
                       min(len(q.gold) for q in questions[:done]))


__all__ = ["load_questions", "run_bench", "open_corpus", "closed_corpus", "sample", "BenchResult", "FORMATS",
           "MODES"]
