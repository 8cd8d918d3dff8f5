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

from .ingest.corpus import bundled_manifest, bundled_names, citation, load_corpus
from .errors import NoSeedError, PathLensError
from .catalog import CATALOG, DEFAULT_RETRIEVER, FILINGS_RETRIEVER, PARAMS, default_retriever, stages_for
from .filings.scope import ScopeCorrection
from .filings.structure import STATEMENTS
from .indexing.index import Index, SearchConfig, check_retriever, search_config
from .explain.jsonout import answer_json, config_json
from .retrieve.retrievers import check_k, check_query
from .store.cache import PERSISTED

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


def _config(args, corpus=None) -> SearchConfig:
    """Flags the user gave, over the corpus's tuned defaults, over the catalog's."""
    members = tuple(_names(args.rrf_members)) if args.rrf_members else None
    weights = tuple(_floats(args.rrf_weights, "--rrf-weights")) if args.rrf_weights else ()
    scope = ScopeCorrection(getattr(args, "company", None), getattr(args, "fiscal_year", None),
                            getattr(args, "form", None), getattr(args, "statement", None))
    return search_config({name: getattr(args, name) for name in PARAMS}, corpus, tol=args.tol,
                         vocabulary=args.seeding == "vocabulary", rrf_members=members, rrf_weights=weights,
                         scope=scope)


def _floats(text: str, flag: str) -> list[float]:
    try:
        return [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise PathLensError(f"{flag}: expected comma-separated numbers, got {text!r}") from None


def _add_search_options(p: argparse.ArgumentParser) -> None:
    """Every catalog parameter as a flag named after it, with the catalog's default, range and help; then
    the settings that are not single numbers."""
    for name, spec in PARAMS.items():
        # None = not given: a bundled corpus's tuned default, else the catalog's, applies
        p.add_argument(spec.flag, dest=name, type=type(spec.default), default=None,
                       help=f"{spec.help} Default {spec.default} (or the corpus's tuned value), "
                            f"range {spec.low}–{spec.high}.")
    p.add_argument("--tol", type=float, default=None, help="stop PPR early when the L1 change is below this")
    p.add_argument("--seeding", choices=("vocabulary", "paper"), default="vocabulary",
                   help="graph seeding: 'vocabulary' also seeds every graph entity named in the question and weighs "
                        "seeds by specificity (default); 'paper' seeds the extracted names only, uniformly, as the "
                        "Aethel paper does")
    p.add_argument("--rrf-members", default="", help="RRF member retrievers (default bm25,ppr-ner)")
    p.add_argument("--rrf-weights", default="", help="RRF weights, one per member (weighted RRF); default all 1")


def _add_scope_options(p: argparse.ArgumentParser) -> None:
    """A correction of the scope the filings retriever reads off the question."""
    p.add_argument("--company", default=None, help="filings: the company the question is about (name or ticker; "
                                                   "'' clears what was read)")
    p.add_argument("--fiscal-year", type=int, default=None, help="filings: the fiscal year (0 clears what was read)")
    p.add_argument("--form", default=None, help="filings: the form, e.g. 10-K or 8-K ('' clears what was read)")
    p.add_argument("--statement", default=None,
                   help="filings: the statement (" + ", ".join(STATEMENTS) + "; '' clears what was read)")


def _options(add) -> argparse.ArgumentParser:
    """A parent parser holding options several subcommands share, declared once (`add(parser)` adds them)."""
    p = argparse.ArgumentParser(add_help=False)
    add(p)
    return p


def _parser() -> argparse.ArgumentParser:
    corpus = _options(lambda p: p.add_argument(
        "--corpus", default=None, help="a bundled corpus, or a folder, zip or file of documents (default: the full "
                                       "data room)"))
    as_json = _options(lambda p: p.add_argument("--json", action="store_true", help="print JSON instead of a table"))
    search = _options(_add_search_options)
    compare = _options(lambda p: p.add_argument(
        "--compare", default="", metavar="A,B",
        help="print the paired-bootstrap 95%% CI of A − B for every metric (10,000 resamples, seed 42)"))

    def ask(p: argparse.ArgumentParser) -> None:  # one question, as on the Query page
        p.add_argument("question")
        p.add_argument("--retriever", default=None, metavar="RETRIEVER",
                       help=f"default {DEFAULT_RETRIEVER}, or {FILINGS_RETRIEVER} for a corpus of PDFs, as on the Query "
                            "page; one of: " + "; ".join(f"{n} ({s.description})" for n, s in CATALOG.items()))
        p.add_argument("--k", type=int, default=5)
        p.add_argument("--without", action="append", default=[], metavar="ENTITY",
                       help="what-if: rank as if the extractor had never found this entity (repeatable)")
        p.add_argument("--without-passage", action="append", default=[], metavar="PASSAGE_ID",
                       help="what-if: rank as if the corpus lacked this passage (repeatable)")
        _add_scope_options(p)

    def run(retrievers: str, file_required: bool) -> argparse.ArgumentParser:  # `bench` and `sweep`
        def add(p: argparse.ArgumentParser) -> None:
            p.add_argument("--format", required=file_required, help="musique, hotpotqa or 2wiki")
            p.add_argument("--file", required=file_required, help="path to the benchmark's JSON or JSON Lines file")
            p.add_argument("--sample", type=int, default=None, help="use a random sample of N questions")
            p.add_argument("--seed", type=int, default=42)
            p.add_argument("--retrievers", default=retrievers, help="comma-separated: " + ", ".join(CATALOG))
            p.add_argument("--k", default="1,3,5")
        return _options(add)

    parser = _Parser(prog="python -m engine", description="PathLens engine: retrieval you can explain.")
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("list", help="list bundled corpora")
    sub.add_parser("query", help="rank passages for one question", parents=[corpus, as_json, _options(ask), search])
    r = sub.add_parser("report", help="write the self-contained HTML evidence report of one question",
                       parents=[corpus, _options(ask), search])
    r.add_argument("--out", required=True, help="the HTML file to write")

    e = sub.add_parser("eval", help="metrics over the corpus's labeled queries", parents=[corpus, as_json, compare, search])
    e.add_argument("--queries", action="append", default=None, metavar="FILE",
                   help="labeled questions (JSON lines) to use instead of any queries.jsonl beside the corpus; "
                        "repeat to pool several files")
    e.add_argument("--unit", default="auto", choices=("auto", "passage", "page"),
                   help="what rankings rank: pages (each page once, at its best passage), passages, or auto: pages "
                        "when every question's gold is pages")
    e.add_argument("--by", default="kind", metavar="FIELD",
                   help="group the per-group tables by this field of the questions: kind (the default) or any "
                        "extra field; a comma-separated value puts a question in each group it names")
    e.add_argument("--retrievers", default="bm25,tfidf,dense,rrf", help="comma-separated: " + ", ".join(CATALOG))
    e.add_argument("--k", default="1,3,5")

    b = sub.add_parser("bench", help="MuSiQue / HotpotQA / 2Wiki benchmark, closed pool or open corpus",
                       parents=[as_json, compare, run("bm25,tfidf,dense,ppr-regex,bct-regex", True), search])
    b.add_argument("--mode", default="closed", help="closed (per-question pool) or open (pooled corpus)")

    w = sub.add_parser("sweep", help="metric versus corpus size, over resampled subsets",
                       parents=[corpus, as_json, compare,
                                run("bm25,tfidf,dense,ppr-regex,bct-regex,ppr-ner,bct-ner,rrf", False), search])
    w.add_argument("--sizes", default=None,
                   help="comma-separated whole numbers and 'full' (default: 100,500,1000,2000,full where they fit "
                        "the corpus, else four sizes from its gold-passage count up)")
    w.add_argument("--resamples", type=int, default=5)
    w.add_argument("--metric", default="hr@5")

    from .evaluate.perf import SECTION_NAMES

    pf = sub.add_parser("perf", help="speed and memory benchmark (needs requirements-bench.txt)", parents=[corpus, as_json])
    pf.add_argument("--format", default=None, help="with --file: the pooled open corpus of a benchmark file")
    pf.add_argument("--file", default=None)
    pf.add_argument("--no-growth", action="store_true", help="skip the 1k/10k/100k growth runs")
    pf.add_argument("--no-sweep", action="store_true", help="skip the full default sweep")
    pf.add_argument("--sections", default="", help="comma-separated sections to run (default all): "
                    + ", ".join(SECTION_NAMES) + "; without cold_build the on-disk cache is read")
    pf.add_argument("--ann-size", type=int, default=100_000, metavar="N",
                    help="synthetic unit vectors for the ANN timing (default 100,000; docs/performance.md's row used 1,000,000)")
    pf.add_argument("--ann-pool", default=None, metavar="CORPUS",
                    help="pool this corpus's passages with the measured one's for the ANN recall check")
    pf.add_argument("--growth-sizes", default="1000,10000,100000", metavar="N,N,…",
                    help="generated corpus sizes for the growth rows (e.g. 1000,10000,100000,1000000)")

    bd = sub.add_parser("build", help="build a corpus's index into the on-disk cache, here or on a Ray cluster",
                        parents=[corpus, as_json])
    bd.add_argument("--ray", default=None, metavar="ADDRESS",
                    help="run extraction and encoding as Ray tasks: 'auto' (the cluster this machine joined), "
                         "HOST:6379, ray://HOST:10001, or 'local' (a Ray instance on this machine)")
    bd.add_argument("--cpus", type=int, default=None, help="with --ray local: CPUs of the local instance")
    bd.add_argument("--shard", type=int, default=256, help="with --ray: passages per task (default 256)")
    bd.add_argument("--stages", default="", help="components to build (default all that are cached): "
                    + ", ".join(PERSISTED))
    bd.add_argument("--cache-dir", default=None,
                    help="where to write the cache (default $PATHLENS_CACHE_DIR, else .pathlens-cache)")

    g = sub.add_parser("graph", help="graph statistics and extraction filter counts", parents=[corpus, as_json])
    g.add_argument("--builder", default="regex", choices=None)
    return parser


def _index(corpus, cache_dir: str | None = None, compute=None) -> Index:
    """An index that reads and writes the on-disk cache (`cache_dir`, else the default); rejected
    cache files are reported. `compute`: where extraction and encoding run (default: this machine)."""
    from .indexing.index import LocalCompute
    from .store.cache import DiskCache

    def report(event) -> None:
        if event.kind == "rejected":
            print(f"note: cache {event.component}: {event.detail}", file=sys.stderr)

    cache = DiskCache(Path(cache_dir) if cache_dir else None, on_event=report)
    return Index(corpus, cache=cache, compute=compute or LocalCompute())


def _snippet(text: str, n: int = 100) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    cells = [[str(h) for h in headers]] + [[f"{c:.3f}" if isinstance(c, float) else str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _load(spec: str | None, queries: str | None = None):
    """Load a corpus and say on stderr what was left out of it (files, pages, running headers)."""
    corpus = load_corpus(spec or CLI_DEFAULT_CORPUS, queries=queries)
    for problem in corpus.report.skipped:
        print(f"note: skipped {problem}", file=sys.stderr)
    for line in corpus.report.dropped:
        print(f"note: {line.file}: dropped the running line {line.example!r} from {line.pages} pages", file=sys.stderr)
    return corpus


def cmd_list(args) -> dict:
    out = {"corpora": []}
    for name in bundled_names():
        m = bundled_manifest(name)
        out["corpora"].append({"name": name, "description": m.get("description", "")})
    if not getattr(args, "json", False):
        print("Bundled corpora:")
        for c in out["corpora"]:
            print(f"  {c['name']:<16} {c['description']}")
        print("\nSubcommands: query, report, eval, graph, build, bench, sweep, perf (python -m engine SUBCOMMAND --help)")
    return out


def cmd_query(args) -> None:
    check_query(args.question)  # before any corpus is loaded
    k = check_k(args.k)
    if args.retriever is not None:
        check_retriever(args.retriever)
    _config(args)  # bad parameters fail before any corpus is loaded
    corpus = _load(args.corpus)
    name = args.retriever or default_retriever(corpus.paged)
    config = _config(args, corpus)
    index = _index(corpus)
    texts = dict(zip(index.ids, (p.text for p in corpus.passages)))
    by_id = {p.id: p for p in corpus.passages}
    if args.without or args.without_passage:
        for stage in stages_for([name], config.rrf.members):
            index.build(stage)  # what-if slices built parts: build them from the cache first
        index = index.without(args.without_passage, args.without)
    retriever = index.retriever(name, config)
    if k > len(corpus):
        print(f"note: k={k} is larger than the corpus; showing all {len(corpus)} passages", file=sys.stderr)
    answer = retriever.answer(args.question, k)
    if answer.no_seed:
        raise NoSeedError(answer.notes[0])
    if args.json:
        print(json.dumps({"corpus": corpus.name, "config": config_json(config), **answer_json(answer, by_id)},
                         indent=2))
        return
    for n in answer.notes:
        print(f"note: {n}")
    if answer.walk is not None:
        if answer.walk.extra is not None:
            print(f"scope: {answer.walk.extra.scope_words}")
        print("seeds: " + ", ".join(f"{s.label} ({s.rule}, {s.weight:.3f})" for s in answer.walk.seeds))
    if not answer.hits:
        print("no passage shares a term with the query")
    for h in answer.hits:
        print(f"{h.rank:>2}. {h.score:.5f}  {h.passage_id}  {_snippet(texts[h.passage_id])}")
        print(f"      from {citation(by_id[h.passage_id])}")
        why = answer.why.get(h.passage_id)
        if answer.walk is not None:  # a walk says why by its evidence paths, each with its mass
            if why.typed_path is not None:
                print(f"      typed path {why.typed_path.words()}  (mass {why.typed_path.mass:.2e})")
            print("\n".join(f"      via {p.words()}  (mass {p.mass:.2e})" for p in why.paths))
        elif why is not None:
            print(f"      why: {why.words()}")
    if answer.walk is not None:
        print("residuals: " + " ".join(f"{r:.2e}" for r in answer.walk.residuals))


def cmd_report(args) -> None:
    from datetime import datetime, timezone

    from .explain.report import ReportView, build_report

    check_query(args.question)
    k = check_k(args.k)
    if args.retriever is not None:
        check_retriever(args.retriever)
    _config(args)
    spec = args.corpus or CLI_DEFAULT_CORPUS
    corpus = _load(spec)
    name = args.retriever or default_retriever(corpus.paged)
    config = _config(args, corpus)
    index = _index(corpus)
    for stage in stages_for([name], config.rrf.members):
        index.build(stage)
    view = ReportView(spec, args.question.strip(), name, k, config, tuple(args.without), tuple(args.without_passage))
    page = build_report(index, view, datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))
    try:
        Path(args.out).write_text(page, encoding="utf-8")
    except OSError as e:
        raise PathLensError(f"cannot write {args.out}: {e.strerror}") from None
    print(f"wrote {args.out} ({len(page):,} bytes)")


def cmd_eval(args) -> None:
    from .evaluate.evaluate import evaluate, question_groups
    from .evaluate.metrics import mean_metrics

    names, ks, _ = _names(args.retrievers), _ints(args.k), _config(args)
    corpus = _load(args.corpus, args.queries)
    config = _config(args, corpus)
    pair = _pair(args.compare, names)
    result = evaluate(_index(corpus), names, ks, config, unit=args.unit)
    if args.json:
        print(json.dumps({**result.to_json(), **_compare_json(result, pair)}, indent=2))
        return
    metrics = list(next(iter(result.results.values())).means)
    print(f"{result.corpus}: {result.n_passages} passages, {result.n_queries} labeled queries, ranked by {result.unit}")
    rows = [[n] + [r.means[m] for m in metrics] for n, r in result.results.items()]
    print(_table(["retriever"] + metrics, rows))
    for label, ids in question_groups(corpus.queries, args.by).items():
        print(f"\n{args.by} = {label} ({len(ids)} questions):")
        print(_table(["retriever"] + metrics, [[n] + [v for v in mean_metrics(r.per_query, ids).values()]
                                                for n, r in result.results.items()]))
    _print_compare(result, pair)


def _pair(text: str, names: Sequence[str]) -> tuple[str, str] | None:
    """The --compare A,B pair; both must be among the evaluated retrievers."""
    if not text:
        return None
    pair = [x.strip() for x in text.split(",") if x.strip()]
    if len(pair) != 2:
        raise PathLensError(f"--compare takes two retrievers as A,B, got {text!r}")
    for x in pair:
        if x not in names:
            raise PathLensError(f"--compare: {x!r} is not among --retrievers ({', '.join(names)})")
    return pair[0], pair[1]


def _compare_json(result, pair) -> dict:
    if pair is None:
        return {}
    from .evaluate.evaluate import compare

    return {"compare": {"a": pair[0], "b": pair[1], "resamples": 10_000, "seed": 42, "level": 0.95,
                        "metrics": {c.metric: {"mean_diff": c.mean_diff, "low": c.low, "high": c.high,
                                               "p_not_better": c.p_not_better}
                                    for c in compare(result, *pair)}}}


def _print_compare(result, pair) -> None:
    if pair is None:
        return
    from .evaluate.evaluate import compare

    print(f"\n{pair[0]} − {pair[1]}: paired bootstrap over {result.n_queries} questions (10,000 resamples, seed 42)")
    print(_table(["metric", "difference", "95% CI low", "95% CI high", "P(diff ≤ 0)"],
                 [[c.metric, f"{c.mean_diff:+.3f}", f"{c.low:+.3f}", f"{c.high:+.3f}", f"{c.p_not_better:.4f}"]
                  for c in compare(result, *pair)]))


def cmd_graph(args) -> None:
    corpus = _load(args.corpus)
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


def _progress_line():
    """`progress(step, done, total)` printed on one stderr line per step."""
    last = [""]

    def show(step: str, done: int, total: int) -> None:
        if last[0] and step != last[0]:
            print(file=sys.stderr)
        last[0] = step
        print(f"\r{step}: {done:,}/{total:,}", end="", file=sys.stderr, flush=True)

    return show


def cmd_bench(args) -> None:
    from .evaluate.benchmarks import run_bench

    from .store.cache import DiskCache

    names = _names(args.retrievers)
    pair = _pair(args.compare, names)
    res = run_bench(args.format, args.file, args.mode, names, _ints(args.k), args.sample,
                    args.seed, _config(args), cache=DiskCache(),
                    on_progress=None if args.json else _progress_line())
    if args.json:
        print(json.dumps({**res.to_json(), **_compare_json(res.eval, pair)}, indent=2))
        return
    print(file=sys.stderr)
    _print_eval(res.eval, f"{args.format} ({args.mode}): {res.n_questions} questions, {res.n_passages} passages")
    _print_compare(res.eval, pair)


def cmd_sweep(args) -> None:
    from .evaluate.sweep import SweepConfig, default_sizes, gold_positions, run_sweep

    if args.file or args.format:
        from .evaluate.benchmarks import load_questions, open_corpus, sample

        if not (args.file and args.format):
            raise PathLensError("a benchmark sweep needs both --format and --file")
        corpus = open_corpus(sample(load_questions(args.format, args.file), args.sample, args.seed),
                             f"{args.format} (open)")
    else:
        corpus = _load(args.corpus)
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

    res = run_sweep(_index(corpus), config, _config(args, corpus), on_trial=progress)
    if args.json:
        print(json.dumps(res.to_json(), indent=2))
        return
    print(file=sys.stderr)
    summary = res.summary()
    print(f"{res.corpus}: {res.n_passages} passages; {config.metric}, mean [min–max] over resamples")
    rows = [[r] + [f"{summary[s][r]['mean']:.3f} [{summary[s][r]['min']:.2f}–{summary[s][r]['max']:.2f}]"
                   for s in res.sizes] for r in config.retrievers]
    print(_table(["retriever"] + [str(s) for s in res.sizes], rows))


def build_stages(corpus, names: str = "") -> list[str]:
    """The cached components a build makes, in build order: `names` (comma-separated), or every one
    the catalog's retrievers read (the HNSW graph only past ANN_MIN_PASSAGES, where dense search uses it)."""
    from .store.ann import ANN_MIN_PASSAGES

    if names:
        chosen = [x.strip() for x in names.split(",") if x.strip()]
        for name in chosen:
            if name not in PERSISTED:
                raise PathLensError(f"--stages: unknown component {name!r}; choose from {', '.join(PERSISTED)}")
        return chosen
    out = [s for s in stages_for(list(CATALOG)) if s in PERSISTED]
    return out + (["ann"] if len(corpus.passages) >= ANN_MIN_PASSAGES else [])


def _progress_bars():
    """`progress(stage, done, total)` as one tqdm bar per stage on stderr, and a function closing them."""
    from tqdm import tqdm

    bars: dict[str, tqdm] = {}

    def show(stage: str, done: int, total: int) -> None:
        if stage not in bars:
            for bar in bars.values():
                bar.close()
            bars[stage] = tqdm(total=total, desc=stage, unit="passage", file=sys.stderr, mininterval=0.5,
                               dynamic_ncols=True)
        bars[stage].update(done - bars[stage].n)

    def close() -> None:
        for bar in bars.values():
            bar.close()

    return show, close


def cmd_build(args) -> None:
    import time

    if args.cpus is not None and args.cpus < 1:
        raise PathLensError(f"--cpus must be at least 1, got {args.cpus}")
    if args.shard < 1:
        raise PathLensError(f"--shard must be at least 1, got {args.shard}")
    if args.cpus is not None and args.ray is None:
        raise PathLensError("--cpus sizes a local Ray instance: give it with --ray local")
    corpus = _load(args.corpus)
    stages = build_stages(corpus, args.stages)
    compute, started_ray = None, False
    if args.ray is not None:
        from .indexing import ray_cluster

        started_ray = ray_cluster.connect(args.ray, args.cpus)
        compute = ray_cluster.ray_compute(ray_cluster.RayConfig(shard=args.shard))
    index = _index(corpus, args.cache_dir, compute)
    cache = index.cache
    show, close = _progress_bars()
    rows = []
    t_all = time.perf_counter()
    try:
        for stage in stages:
            t0 = time.perf_counter()
            index.build(stage, progress=show)
            close()
            came_from = "cache" if any(e.component == stage and e.kind == "hit" for e in cache.events) else "built"
            rows.append({"stage": stage, "seconds": round(time.perf_counter() - t0, 3), "from": came_from})
            if not args.json:
                print(f"{stage:<18} {rows[-1]['seconds']:>8.2f} s  ({came_from})", file=sys.stderr)
    finally:
        close()
        if started_ray:
            import ray

            ray.shutdown()
    out = {"corpus": corpus.name, "passages": len(corpus.passages), "cache_dir": str(cache.directory),
           "where": f"ray {args.ray}" if args.ray else "local", "stages": rows,
           "seconds": round(time.perf_counter() - t_all, 3),
           "rejected": [f"{e.component}: {e.detail}" for e in cache.events if e.kind == "rejected"]}
    if args.json:
        print(json.dumps(out, indent=2))
        return
    print(f"{corpus.name}: {len(corpus.passages):,} passages built {out['where']} in {out['seconds']:.1f} s "
          f"into {cache.directory}")


def cmd_perf(args) -> None:
    from .evaluate import perf

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
    only = tuple(x.strip() for x in args.sections.split(",") if x.strip())
    if args.ann_size < 1_000:
        raise PathLensError(f"--ann-size must be at least 1,000, got {args.ann_size}")
    options = perf.Options(include_growth=not args.no_growth, include_sweep=not args.no_sweep, only=only,
                           ann_size=args.ann_size, ann_pool=args.ann_pool, growth_sizes=tuple(_ints(args.growth_sizes)))
    report = perf.run(spec, options, log=lambda m: print(m, file=sys.stderr, flush=True))
    print(json.dumps(report.to_json(), indent=2) if args.json else report.table())
    if report.failed():
        raise PathLensError("perf: these measurements failed (see the report): " + ", ".join(report.failed()))


COMMANDS = {"list": cmd_list, "query": cmd_query, "report": cmd_report, "eval": cmd_eval, "graph": cmd_graph, "bench": cmd_bench,
            "sweep": cmd_sweep, "perf": cmd_perf, "build": cmd_build}


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
