"""Commands that measure: eval, bench, sweep and perf."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Sequence

from ..catalog import PARAMS
from ..errors import PathLensError
from .options import CLI_DEFAULT_CORPUS, config_of, ints, retriever_names
from .output import load, open_index, print_eval, progress_line, table


def cmd_eval(args) -> None:
    from ..evaluate.evaluate import evaluate, pooled, question_clusters, question_groups, select_questions
    from ..evaluate.metrics import mean_metrics

    names, ks, _ = retriever_names(args.retrievers), ints(args.k), config_of(args)
    pair = _pair(args.compare, names)
    if args.cluster and pair is None:
        raise PathLensError("--cluster goes with --compare A,B: it changes the interval of A − B")
    results, queries, clusters = [], [], {}
    for spec, questions in _rooms(args.corpus, args.queries):  # a dev set over several rooms is pooled
        corpus = load(spec, questions)
        asked = select_questions(corpus.queries, args.only)
        results.append(evaluate(open_index(corpus), names, ks, config_of(args, corpus), queries=asked, unit=args.unit))
        queries += asked
        clusters.update(question_clusters(asked, args.cluster, corpus) if args.cluster else {})
    result = results[0] if len(results) == 1 else pooled(results, queries)
    clusters = clusters or None
    if args.json:
        print(json.dumps({**result.to_json(), **_compare_json(result, pair, args.cluster, clusters)}, indent=2))
        return
    metrics = list(next(iter(result.results.values())).means)
    only = f" ({args.only})" if args.only else ""
    print(f"{result.corpus}: {result.n_passages} passages, {result.n_queries} labeled queries{only}, ranked by {result.unit}")
    rows = [[n] + [r.means[m] for m in metrics] for n, r in result.results.items()]
    print(table(["retriever"] + metrics, rows))
    for label, ids in question_groups(queries, args.by).items():
        print(f"\n{args.by} = {label} ({len(ids)} questions):")
        print(table(["retriever"] + metrics, [[n] + [v for v in mean_metrics(r.per_query, ids).values()]
                                                for n, r in result.results.items()]))
    _print_compare(result, pair)
    if clusters is not None:
        _print_compare(result, pair, args.cluster, clusters)



def _rooms(corpora: str | None, queries: list[str] | None) -> list[tuple[str | None, list[str] | None]]:
    """(corpus, question files) pairs: one room, or several given as a comma-separated --corpus whose question files
    come in the same order (comma-separated, or one --queries each)."""
    if not corpora or "," not in corpora:
        return [(corpora, queries)]
    specs = [c.strip() for c in corpora.split(",")]
    files = [f.strip() for q in (queries or []) for f in q.split(",") if f.strip()]
    if len(files) != len(specs):
        raise PathLensError(f"--corpus names {len(specs)} rooms, so --queries takes {len(specs)} files, comma-separated "
                            f"in the same order; got {len(files)}")
    return [(spec, [f]) for spec, f in zip(specs, files)]


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



def _compare_json(result, pair, cluster: str = "", clusters=None) -> dict:
    if pair is None:
        return {}
    from ..evaluate.evaluate import compare

    def cis(by):
        return {c.metric: {"mean_diff": c.mean_diff, "low": c.low, "high": c.high, "p_not_better": c.p_not_better}
                for c in compare(result, *pair, clusters=by)}
    out = {"a": pair[0], "b": pair[1], "resamples": 10_000, "seed": 42, "level": 0.95, "metrics": cis(None)}
    if clusters is not None:
        out["clustered"] = {"by": cluster, "clusters": len(set(clusters.values())), "metrics": cis(clusters)}
    return {"compare": out}



def _print_compare(result, pair, cluster: str = "", clusters=None) -> None:
    if pair is None:
        return
    from ..evaluate.evaluate import compare

    if clusters is None:
        what = f"paired bootstrap over {result.n_queries} questions"
    else:
        what = (f"bootstrap of whole {'documents' if cluster == 'doc' else 'companies'}: "
                f"{len(set(clusters.values()))} clusters of {result.n_queries} questions")
    print(f"\n{pair[0]} − {pair[1]}: {what} (10,000 resamples, seed 42)")
    print(table(["metric", "difference", "95% CI low", "95% CI high", "P(diff ≤ 0)"],
                 [[c.metric, f"{c.mean_diff:+.3f}", f"{c.low:+.3f}", f"{c.high:+.3f}", f"{c.p_not_better:.4f}"]
                  for c in compare(result, *pair, clusters=clusters)]))



def cmd_bench(args) -> None:
    from ..evaluate.benchmarks import run_bench

    from ..store.cache import DiskCache

    names = retriever_names(args.retrievers)
    pair = _pair(args.compare, names)
    res = run_bench(args.format, args.file, args.mode, names, ints(args.k), args.sample,
                    args.seed, lambda corpus: config_of(args, corpus), cache=DiskCache(),
                    on_progress=None if args.json else progress_line(), queries=args.queries)
    result, against = res.eval, []
    if args.against:  # each retriever again under other settings, and each compared with itself under them
        label = f"[{args.against}]"
        other = run_bench(args.format, args.file, args.mode, names, ints(args.k), args.sample, args.seed,
                          lambda corpus: config_of(argparse.Namespace(**{**vars(args), **_settings(args.against)}),
                                                   corpus),
                          cache=DiskCache(), queries=args.queries)
        result = replace(result, results={**result.results,
                                          **{f"{n} {label}": r for n, r in other.eval.results.items()}})
        against = [(n, f"{n} {label}") for n in names]
    if args.json:
        print(json.dumps({**replace(res, eval=result).to_json(), **_compare_json(result, pair),
                          **({"against": [_compare_json(result, p)["compare"] for p in against]} if against else {})},
                         indent=2))
        return
    print(file=sys.stderr)
    print_eval(result, f"{args.format} ({args.mode}): {res.n_questions} questions, {res.n_passages} passages")
    for p in [pair] * bool(pair) + against:
        _print_compare(result, p)


def _settings(text: str, flag: str = "--against") -> dict[str, float | int]:
    """"hop_share=0,alpha=0.2" (--against, perf's --params): catalog parameters by name, each cast as its default
    is."""
    out: dict[str, float | int] = {}
    for item in filter(None, (x.strip() for x in text.split(","))):
        name, _, value = item.partition("=")
        if name not in PARAMS or not value:
            raise PathLensError(f"{flag}: expected NAME=VALUE with NAME a parameter ({', '.join(PARAMS)}), "
                                f"got {item!r}")
        try:
            out[name] = type(PARAMS[name].default)(value)
        except ValueError:
            raise PathLensError(f"{flag}: {name} takes a number, got {value!r}") from None
    return out



def cmd_sweep(args) -> None:
    from ..evaluate.sweep import SweepConfig, default_sizes, gold_positions, in_words, run_sweep

    if args.file or args.format:
        from ..evaluate.benchmarks import load_questions, open_corpus, sample

        if not (args.file and args.format):
            raise PathLensError("a benchmark sweep needs both --format and --file")
        corpus = open_corpus(sample(load_questions(args.format, args.file), args.sample, args.seed),
                             f"{args.format} (open)")
    else:
        corpus = load(args.corpus)
    if args.sizes is None:
        sizes = default_sizes(len(corpus), len(gold_positions(corpus)))
    else:
        sizes = tuple(x.strip() for x in args.sizes.split(",") if x.strip())
    config = SweepConfig(sizes=sizes, resamples=args.resamples, seed=args.seed,
                         retrievers=tuple(retriever_names(args.retrievers)), metric=args.metric, ks=tuple(ints(args.k)))

    def progress(trial, done, total):
        if not args.json:
            print(f"\r{done}/{total} trials (size {trial.size}, {trial.retriever})", end="", file=sys.stderr,
                  flush=True)

    res = run_sweep(open_index(corpus), config, config_of(args, corpus), on_trial=progress)
    if args.json:
        print(json.dumps(res.to_json(), indent=2))
        return
    print(file=sys.stderr)
    summary = res.summary()
    print(f"{res.corpus}: {res.n_passages} passages; {config.metric}, mean [min–max] over resamples")
    rows = [[r] + [f"{summary[s][r]['mean']:.3f} [{summary[s][r]['min']:.2f}–{summary[s][r]['max']:.2f}]"
                   for s in res.sizes] for r in config.retrievers]
    print(table(["retriever"] + [str(s) for s in res.sizes], rows))
    for sentence in in_words(res):
        print(sentence)



def cmd_perf(args) -> None:
    from ..evaluate import perf

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
                           ann_size=args.ann_size, ann_pool=args.ann_pool, growth_sizes=tuple(ints(args.growth_sizes)),
                           add_document=args.add_document, baseline_build=args.baseline_build,
                           question=args.question, params=tuple(_settings(args.params, "--params").items()))
    report = perf.run(spec, options, log=lambda m: print(m, file=sys.stderr, flush=True))
    print(json.dumps(report.to_json(), indent=2) if args.json else report.table())
    if report.failed():
        raise PathLensError("perf: these measurements failed (see the report): " + ", ".join(report.failed()))


def cmd_demo(args) -> None:
    from dataclasses import asdict

    from ..evaluate.demo import SHOWN, demo_candidates, demo_question
    from ..indexing.index import check_retriever

    check_retriever(args.retriever)
    corpus = load(args.corpus)
    candidates = demo_candidates(open_index(corpus), args.retriever)
    chosen = demo_question(candidates)
    if args.json:
        print(json.dumps({"corpus": corpus.name, "retriever": args.retriever, "chosen": chosen and chosen.query_id,
                          "candidates": [asdict(c) for c in candidates]}, indent=2))
        return
    print(table(["question", "top hit gold", "top hit through a bridge", f"gold hit in the top {SHOWN} most through one",
                 "why that hit came back"],
                [[c.query_id, "yes" if c.top_is_gold else "no", f"{c.top_bridged_share:.1%}",
                  f"#{c.story_rank}: {c.bridged_share:.1%}" if c.story_rank else "none", c.reason]
                 for c in sorted(candidates, key=lambda c: (-c.bridged_share, c.story_rank, c.query_id))]))
    print(f"\nopen on: {chosen.query_id} · {chosen.question}" if chosen else
          f"\nno labeled question with a gold top hit has a gold hit in its top {SHOWN} that owes anything to a "
          "bridging entity")


def cmd_train_ranker(args) -> None:
    """Train on the tuning halves, write the model, then measure it on the test halves (which choose nothing) and
    write their figures into the model's `about`, for the Compare page."""
    from dataclasses import replace

    from ..evaluate.evaluate import select_questions
    from ..evaluate.page_ranker_training import PARAMS, dev_rooms, measured, train_page_ranker
    from ..retrieve.page_ranker import MODEL

    tune, test = [], []
    for folder, files in dev_rooms(Path(args.shared)):
        corpus = load(folder, files)
        index = open_index(corpus)
        sets = ", ".join(Path(f).name for f in files)
        tune.append((index, select_questions(corpus.queries, "half=tune"), sets))
        test.append((index, select_questions(corpus.queries, "half=test"), sets))

    def progress(done: int, total: int) -> None:
        if done % 25 == 0 or done == total:
            print(f"  {done}/{total} tuning questions", file=sys.stderr)
    ranker = train_page_ranker(tune, replace(PARAMS, kind=args.kind), on_question=progress)
    ranker = replace(ranker, about={**ranker.about, "test halves": measured(test, ranker)})
    out = Path(args.out) if args.out else MODEL
    text = ranker.to_json()
    if args.check:
        same = out.is_file() and out.read_text("utf-8") == text
        print(f"{out}: {'the same, byte for byte' if same else 'differs from a retrained model'}")
        if not same:
            raise PathLensError(f"{out} is not what training gives today; run python -m engine train-ranker")
        return
    out.write_text(text, "utf-8")
    figures = ranker.about["test halves"]
    print(f"wrote {out}: {ranker.about['questions with a gold page in the pool']} of {ranker.about['questions']} "
          f"tuning questions, {ranker.about['rows']} pages")
    print(table(["retriever", *figures["means"]["filing"]],
                [[name, *means.values()] for name, means in figures["means"].items()]))
    print("filing-learned − filing, resampling whole filings: " + "; ".join(
        f"{m} {d['mean']:+.3f} [{d['low']:+.3f}, {d['high']:+.3f}]" for m, d in figures["difference"].items()))
    print(f"every pool page of every test question ({figures['parts']['pages']:,}): its parts sum to the model's "
          f"score within {figures['parts']['largest gap']:.1e}")


def cmd_scope_eval(args) -> None:
    from ..evaluate.scoping import read_set, scoping
    from ..filings.lexicon import bundled
    from ..filings.structure import read_structure

    rows = read_set(Path(args.queries))
    half = args.only.partition("=")[2] if args.only else ""
    if args.only and not args.only.startswith("half="):
        raise PathLensError(f"--only takes half=tune or half=test, got {args.only!r}")
    rooms = {}
    for room in sorted({r["room"] for r in rows}):
        folder = Path(args.shared) / room
        if not folder.is_dir():
            raise PathLensError(f"--shared: {folder} is not a folder (the room of the questions)")
        rooms[room] = read_structure(load(str(folder)).passages).room
    result = scoping(rows, rooms, bundled(), half)
    if args.json:
        print(json.dumps({"share": result.share, "by_kind": {k: {"right": result.right.get(k, 0), "asked": n}
                                                             for k, n in sorted(result.asked.items())},
                          "wrong": list(result.wrong)}, indent=2))
        return
    print(table(["kind", "right", "asked", "share"], [[k, result.right.get(k, 0), n, result.share_of(k)]
                                                      for k, n in sorted(result.asked.items())]))
    print(f"all: {sum(result.right.values())} of {sum(result.asked.values())}, {result.share:.3f}")
