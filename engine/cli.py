"""`python -m engine`: everything the pages run, as tables or `--json`.

Bad input exits with status 2 and one line on stderr naming the problem.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Sequence

from .corpus import bundled_manifest, bundled_names, load_corpus
from .errors import NoSeedError, PathLensError
from .graph_retriever import GraphParams, GraphRetriever
from .index import Index, SearchConfig, check_retriever
from .jsonout import answer_json, config_json, hit_json
from .retrievers import RRFConfig, RRFRetriever, check_k, check_query

CLI_DEFAULT_CORPUS = "dataroom"  # the full-size data room


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, status 2, like every other input error
        raise PathLensError(message)


def _ints(text: str) -> list[int]:
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise PathLensError(f"expected comma-separated whole numbers, got {text!r}") from None


def _names(text: str) -> list[str]:
    names = [x.strip() for x in text.split(",") if x.strip()]
    for n in names:
        check_retriever(n)
    if not names:
        raise PathLensError("name at least one retriever")
    return names


def _config(args) -> SearchConfig:
    graph = GraphParams(alpha=args.alpha, iterations=args.iterations, tol=args.tol, bct_weight=args.bct_weight)
    members = tuple(_names(args.rrf_members)) if args.rrf_members else RRFConfig().members
    weights = tuple(float(w) for w in args.rrf_weights.split(",")) if args.rrf_weights else ()
    return SearchConfig(graph=graph, rrf=RRFConfig(members=members, weights=weights, k=args.rrf_k))


def _add_search_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--alpha", type=float, default=0.15, help="PPR teleport probability, in (0, 1)")
    p.add_argument("--iterations", type=int, default=20, help="PPR iteration cap, 1..1000")
    p.add_argument("--tol", type=float, default=None, help="stop PPR early when the L1 change is below this")
    p.add_argument("--bct-weight", type=float, default=0.5, help="BCT alias weight β, ≥ 0")
    p.add_argument("--rrf-members", default="", help="RRF member retrievers (default bm25,ppr-ner)")
    p.add_argument("--rrf-weights", default="", help="RRF weights, one per member")
    p.add_argument("--rrf-k", type=int, default=60, help="RRF constant k")


def _add_run_options(p: argparse.ArgumentParser, retrievers: str, file_required: bool) -> None:
    """Options shared by `bench` and `sweep`: the benchmark file, sampling, retrievers, cut-offs."""
    p.add_argument("--format", required=file_required, help="musique, hotpotqa or 2wiki")
    p.add_argument("--file", required=file_required, help="path to the benchmark's JSON or JSON Lines file")
    p.add_argument("--sample", type=int, default=None, help="use a random sample of N questions")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--retrievers", default=retrievers)
    p.add_argument("--k", default="1,3,5")
    p.add_argument("--json", action="store_true")
    _add_search_options(p)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m engine", description="PathLens engine: retrieval you can explain.")
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("list", help="list bundled corpora")

    q = sub.add_parser("query", help="rank passages for one question")
    q.add_argument("question")
    q.add_argument("--corpus", default=None)
    q.add_argument("--retriever", default="bm25")
    q.add_argument("--k", type=int, default=5)
    q.add_argument("--json", action="store_true")
    _add_search_options(q)

    e = sub.add_parser("eval", help="metrics over the corpus's labeled queries")
    e.add_argument("--corpus", default=None)
    e.add_argument("--retrievers", default="bm25,tfidf,dense,rrf")
    e.add_argument("--k", default="1,3,5")
    e.add_argument("--json", action="store_true")
    _add_search_options(e)

    b = sub.add_parser("bench", help="MuSiQue / HotpotQA / 2Wiki benchmark, closed pool or open corpus")
    b.add_argument("--mode", default="closed", help="closed (per-question pool) or open (pooled corpus)")
    _add_run_options(b, "bm25,tfidf,dense,ppr-regex,bct-regex", file_required=True)

    w = sub.add_parser("sweep", help="metric versus corpus size, over resampled subsets")
    w.add_argument("--corpus", default=None)
    w.add_argument("--sizes", default=None,
                   help="comma-separated whole numbers and 'full' (default: 100,500,1000,2000,full where they fit "
                        "the corpus, else four sizes from its gold-passage count up)")
    w.add_argument("--resamples", type=int, default=5)
    w.add_argument("--metric", default="hr@5")
    _add_run_options(w, "bm25,tfidf,dense,ppr-regex,bct-regex,ppr-ner,bct-ner,rrf", file_required=False)

    pf = sub.add_parser("perf", help="speed and memory benchmark (needs requirements-bench.txt)")
    pf.add_argument("--corpus", default=None)
    pf.add_argument("--format", default=None, help="with --file: the pooled open corpus of a benchmark file")
    pf.add_argument("--file", default=None)
    pf.add_argument("--no-growth", action="store_true", help="skip the 1k/10k/100k growth runs")
    pf.add_argument("--no-sweep", action="store_true", help="skip the full default sweep")
    pf.add_argument("--json", action="store_true")

    g = sub.add_parser("graph", help="graph statistics and extraction filter counts")
    g.add_argument("--corpus", default=None)
    g.add_argument("--builder", default="regex", choices=None)
    g.add_argument("--json", action="store_true")
    return parser


def _index(corpus) -> Index:
    """An index that reads and writes the on-disk cache; rejected cache files are reported."""
    from .cache import DiskCache

    def report(event) -> None:
        if event.kind == "rejected":
            print(f"note: cache {event.component}: {event.detail}", file=sys.stderr)

    return Index(corpus, cache=DiskCache(on_event=report))


def _snippet(text: str, n: int = 100) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    cells = [[str(h) for h in headers]] + [[f"{c:.3f}" if isinstance(c, float) else str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def cmd_list(args) -> dict:
    out = {"corpora": []}
    for name in bundled_names():
        m = bundled_manifest(name)
        out["corpora"].append({"name": name, "description": m.get("description", "")})
    if not getattr(args, "json", False):
        print("Bundled corpora:")
        for c in out["corpora"]:
            print(f"  {c['name']:<16} {c['description']}")
        print("\nSubcommands: query, eval, graph, bench, sweep, perf (python -m engine SUBCOMMAND --help)")
    return out


def cmd_query(args) -> None:
    check_query(args.question)  # before any corpus is loaded
    k = check_k(args.k)
    name = check_retriever(args.retriever)
    config = _config(args)
    corpus = load_corpus(args.corpus or CLI_DEFAULT_CORPUS)
    index = _index(corpus)
    texts = dict(zip(index.ids, (p.text for p in corpus.passages)))
    retriever = index.retriever(name, config)
    if k > len(corpus):
        print(f"note: k={k} is larger than the corpus; showing all {len(corpus)} passages", file=sys.stderr)
    if isinstance(retriever, GraphRetriever):
        gold = frozenset()
        answer = retriever.explain(args.question, k, texts=texts, gold=gold)
        out = {"corpus": corpus.name, "config": config_json(config), **answer_json(answer, texts)}
        if args.json:
            print(json.dumps(out, indent=2))
            return
        print("seeds: " + ", ".join(f"{s.label} ({s.source}, {s.weight:.3f})" for s in answer.seeds))
        for e in answer.explanations:
            print(f"{e.hit.rank:>2}. {e.hit.score:.5f}  {e.hit.passage_id}  {_snippet(texts[e.hit.passage_id])}")
            for p in e.paths:
                print(f"      via {p.words()}  (mass {p.mass:.2e})")
        print("residuals: " + " ".join(f"{r:.2e}" for r in answer.residuals))
        return
    notes: tuple[str, ...] = ()
    if isinstance(retriever, RRFRetriever):
        hits, notes = retriever.search_with_notes(args.question, k)
    else:
        hits = retriever.search(args.question, k)
    if args.json:
        print(json.dumps({"corpus": corpus.name, "retriever": name, "query": args.question,
                          "config": config_json(config), "notes": list(notes),
                          "hits": [hit_json(h, texts[h.passage_id]) for h in hits]}, indent=2))
        return
    for n in notes:
        print(f"note: {n}")
    if not hits:
        print("no passage shares a term with the query")
    for h in hits:
        print(f"{h.rank:>2}. {h.score:.4f}  {h.passage_id}  {_snippet(texts[h.passage_id])}")


def cmd_eval(args) -> None:
    from .evaluate import evaluate

    names, ks, config = _names(args.retrievers), _ints(args.k), _config(args)
    corpus = load_corpus(args.corpus or CLI_DEFAULT_CORPUS)
    result = evaluate(_index(corpus), names, ks, config)
    if args.json:
        print(json.dumps(result.to_json(), indent=2))
        return
    metrics = list(next(iter(result.results.values())).means)
    print(f"{result.corpus}: {result.n_passages} passages, {result.n_queries} labeled queries")
    rows = [[n] + [r.means[m] for m in metrics] for n, r in result.results.items()]
    print(_table(["retriever"] + metrics, rows))
    for kind in sorted({k for r in result.results.values() for k in r.by_kind}):
        print(f"\n{kind}:")
        print(_table(["retriever"] + metrics, [[n] + [r.by_kind[kind][m] for m in metrics]
                                                for n, r in result.results.items()]))


def cmd_graph(args) -> None:
    corpus = load_corpus(args.corpus or CLI_DEFAULT_CORPUS)
    index = _index(corpus)
    ex = index.extraction(args.builder)
    stats = index.graph(args.builder).stats()
    aliases = index.aliases(args.builder)
    out = {
        "corpus": corpus.name, "builder": args.builder, "stats": asdict(stats),
        "extraction": {"raw_mentions": ex.raw_mentions, "raw_unique": ex.raw_unique, "kept": ex.kept,
                       "dropped": dict(ex.dropped), "dropped_examples": {k: list(v) for k, v in ex.dropped_examples.items()}},
        "aliases": [asdict(a) for a in aliases.rows],
    }
    if args.json:
        print(json.dumps(out, indent=2))
        return
    print(f"{corpus.name} / {args.builder}: {stats.passages} passages, {stats.entities} entities, {stats.edges} edges, "
          f"{stats.isolated_passages} isolated passages")
    print(f"extraction: {ex.raw_mentions} raw mentions ({ex.raw_unique} distinct) -> {ex.kept} kept entities")
    for reason, n in ex.dropped.items():
        print(f"  dropped {n:>5} as {reason}: e.g. {', '.join(ex.dropped_examples[reason][:4])}")
    print("largest entities: " + ", ".join(f"{n} ({d})" for n, d in stats.largest_entities))
    print(f"aliases: {len(aliases.rows)} rows")


def _print_eval(result, title: str) -> None:
    metrics = list(next(iter(result.results.values())).means)
    print(title)
    print(_table(["retriever"] + metrics, [[n] + [r.means[m] for m in metrics] for n, r in result.results.items()]))


def cmd_bench(args) -> None:
    from .benchmarks import run_bench

    res = run_bench(args.format, args.file, args.mode, _names(args.retrievers), _ints(args.k), args.sample,
                    args.seed, _config(args),
                    on_progress=None if args.json else lambda i, n: print(f"\r{i}/{n} questions", end="",
                                                                         file=sys.stderr, flush=True))
    if args.json:
        print(json.dumps(res.to_json(), indent=2))
        return
    print(file=sys.stderr)
    _print_eval(res.eval, f"{args.format} ({args.mode}): {res.n_questions} questions, {res.n_passages} passages")


def cmd_sweep(args) -> None:
    from .sweep import SweepConfig, default_sizes, gold_positions, run_sweep

    if args.file or args.format:
        from .benchmarks import load_questions, open_corpus, sample

        if not (args.file and args.format):
            raise PathLensError("a benchmark sweep needs both --format and --file")
        corpus = open_corpus(sample(load_questions(args.format, args.file), args.sample, args.seed),
                             f"{args.format} (open)")
    else:
        corpus = load_corpus(args.corpus or CLI_DEFAULT_CORPUS)
    if args.sizes is None:
        sizes = default_sizes(len(corpus), len(gold_positions(corpus)))
    else:
        sizes = tuple(x.strip() for x in args.sizes.split(",") if x.strip())
    config = SweepConfig(sizes=sizes, resamples=args.resamples, seed=args.seed,
                         retrievers=tuple(_names(args.retrievers)), metric=args.metric, ks=tuple(_ints(args.k)))

    def progress(trial, done, total):
        if not args.json:
            print(f"\r{done}/{total} trials (size {trial.size}, {trial.retriever})", end="", file=sys.stderr,
                  flush=True)

    res = run_sweep(_index(corpus), config, _config(args), on_trial=progress)
    if args.json:
        print(json.dumps(res.to_json(), indent=2))
        return
    print(file=sys.stderr)
    summary = res.summary()
    print(f"{res.corpus}: {res.n_passages} passages; {config.metric}, mean [min–max] over resamples")
    rows = [[r] + [f"{summary[s][r]['mean']:.3f} [{summary[s][r]['min']:.2f}–{summary[s][r]['max']:.2f}]"
                   for s in res.sizes] for r in config.retrievers]
    print(_table(["retriever"] + [str(s) for s in res.sizes], rows))


def cmd_perf(args) -> None:
    from . import perf

    try:
        import igraph  # noqa: F401
        import networkx  # noqa: F401
    except ImportError:
        raise PathLensError("perf needs the benchmark extras: .venv/bin/pip install -r requirements-bench.txt") from None
    if args.file or args.format:
        if not (args.file and args.format):
            raise PathLensError("a benchmark corpus needs both --format and --file")
        spec = f"bench:{args.format}:{Path(args.file).resolve()}"  # its processes run from the project folder
    else:
        spec = args.corpus or CLI_DEFAULT_CORPUS
    report = perf.run(spec, include_growth=not args.no_growth, include_sweep=not args.no_sweep,
                      log=lambda m: print(m, file=sys.stderr, flush=True))
    print(json.dumps(report, indent=2) if args.json else perf.table(report))
    if perf.failed(report):
        raise PathLensError("perf: these measurements failed (see the report): " + ", ".join(perf.failed(report)))


COMMANDS = {"list": cmd_list, "query": cmd_query, "eval": cmd_eval, "graph": cmd_graph, "bench": cmd_bench,
            "sweep": cmd_sweep, "perf": cmd_perf}


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = _parser().parse_args(argv)
        COMMANDS[args.command or "list"](args)
        return 0
    except NoSeedError as e:
        print(f"no hits: {e}", file=sys.stderr)
        return 2
    except PathLensError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
