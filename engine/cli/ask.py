"""Commands about one corpus and one question: list, query, report, graph."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from pathlib import Path

from ..catalog import default_retriever, stages_for
from ..errors import NoSeedError, PathLensError
from ..explain.entity_notes import largest_entities
from ..explain.jsonout import answer_json, config_json
from ..filings.identity import identity_row, read_from_words
from ..explain.parts import base_words, explained, part_rows, walk_rank_words
from ..explain.render import second_hop_summary
from ..explain.reasons import exactness_words, k_past_corpus, path_words, percent, reason, where_it_sits
from ..indexing.index import check_retriever
from ..ingest.corpus import bundled_manifest, bundled_names
from ..ingest.passage import citation
from ..retrieve.retrievers import check_k, check_query, markup_note
from .options import CLI_DEFAULT_CORPUS, SUBCOMMANDS, config_of
from .output import load, open_index, snippet, table
from ..indexing.views import without


def cmd_list(args) -> dict:
    out = {"corpora": []}
    for name in bundled_names():
        m = bundled_manifest(name)
        out["corpora"].append({"name": name, "description": m.get("description", "")})
    if not getattr(args, "json", False):
        print("Bundled corpora:")
        for c in out["corpora"]:
            print(f"  {c['name']:<16} {c['description']}")
        names = ", ".join(n for n in SUBCOMMANDS if n != "list")  # read off the parser's own table: none left out
        print(f"\nSubcommands: {names} (python -m engine SUBCOMMAND --help)")
    return out



def cmd_query(args) -> None:
    check_query(args.question)  # before any corpus is loaded
    k = check_k(args.k)
    if args.retriever is not None:
        check_retriever(args.retriever)
    config_of(args)  # bad parameters fail before any corpus is loaded
    corpus = load(args.corpus)
    name = args.retriever or default_retriever(corpus.paged)
    config = config_of(args, corpus)
    index = open_index(corpus)
    texts = dict(zip(index.ids, (p.text for p in corpus.passages)))
    by_id = {p.id: p for p in corpus.passages}
    titles = index.passage_titles()
    if args.without or args.without_passage:
        for stage in stages_for([name], config.rrf.members):
            index.build(stage)  # what-if slices built parts: build them from the cache first
        index = without(index, args.without_passage, args.without)
    retriever = index.retriever(name, config)
    if k > len(corpus):
        print(f"note: {k_past_corpus(k, len(corpus))}", file=sys.stderr)
    if note := markup_note(args.question):
        print(f"note: {note}", file=sys.stderr)
    answer = retriever.answer(args.question, k)
    if answer.no_seed:
        raise NoSeedError(answer.notes[0])
    if args.json:
        print(json.dumps({"corpus": corpus.name, "config": config_json(config), **answer_json(answer, by_id, titles)},
                         indent=2))
        return
    for n in answer.notes:
        print(f"note: {n}")
    if answer.walk is not None:
        if answer.walk.extra is not None:
            print(f"scope: {answer.walk.extra.scope_words}")
        print("seeds: " + ", ".join(f"{s.label} ({s.rule}, {s.weight:.3f})" for s in answer.walk.seeds))
        if hop := second_hop_summary(answer.walk, titles):
            print(hop)
    if not answer.hits:
        print("no passage shares a term with the query")
    for h in answer.hits:
        print(f"{h.rank:>2}. {h.score:.5f}  {h.passage_id}  {snippet(texts[h.passage_id])}")
        print(f"      from {citation(by_id[h.passage_id], titles.get(h.passage_id, ''))}")
        why, ranked = explained(answer, h.passage_id)
        if ranked is not None:  # a learned ranker's parts, then the walk that found the page
            rows = "; ".join(f"{label} {value:+.2f}" for label, value in part_rows(
                [(p.feature, p.part) for p in ranked.parts], 4))
            print(f"      score {ranked.score:+.2f} {base_words(ranked.base)}: {rows}")
            print(f"      {walk_rank_words(ranked.walk_rank)}")
        if why is not None:  # a walk says why in one sentence, then by its routes and their shares
            print(f"      {reason(why)}")
            if why.typed_path is not None:
                print(f"      where this page sits: {where_it_sits(why.typed_path)}  ({percent(why.typed_path.share)} "
                      "of the score)")
            print("\n".join(f"      via {path_words(p, titles)}  ({percent(p.share)} of the score)" for p in why.paths))
        elif ranked is None and h.passage_id in answer.why:  # any other retriever's own words
            print(f"      why: {answer.why[h.passage_id].words()}")
    if answer.walk is not None:
        print("residuals: " + " ".join(f"{r:.2e}" for r in answer.walk.residuals))
        if answer.walk.pushed:
            print(exactness_words(answer.walk))



def cmd_report(args) -> None:
    from datetime import datetime, timezone

    from ..explain.report import ReportView, build_report, report_file_name

    check_query(args.question)
    k = check_k(args.k)
    if args.retriever is not None:
        check_retriever(args.retriever)
    config_of(args)
    spec = args.corpus or CLI_DEFAULT_CORPUS
    corpus = load(spec)
    name = args.retriever or default_retriever(corpus.paged)
    config = config_of(args, corpus)
    index = open_index(corpus)
    for stage in stages_for([name], config.rrf.members):
        index.build(stage)
    view = ReportView(spec, args.question.strip(), name, k, config, tuple(args.without), tuple(args.without_passage))
    now = datetime.now(timezone.utc)
    page = build_report(index, view, now.strftime("%Y-%m-%d %H:%M UTC"))
    out = args.out or report_file_name(view.question, now.date())
    try:
        Path(out).write_text(page, encoding="utf-8")
    except OSError as e:
        raise PathLensError(f"cannot write {out}: {e.strerror}") from None
    print(f"wrote {out} ({len(page):,} bytes)")



def cmd_filings(args) -> None:
    corpus = load(args.corpus)
    rows = [identity_row(f) for _, f in sorted(open_index(corpus).structure().filings.items())]
    if args.json:
        print(json.dumps({"corpus": corpus.name, "filings": rows}, indent=2))
        return
    if not rows:
        print(f"{corpus.name}: no filing (no paged document)")
        return
    print(table(["file", "company", "form", "FY", "Q", "period end", "read from"],
                [[r["doc"], r["company"], r["form"] or "?", r["fiscal_year"] or "?", r["quarter"] or "", r["period_end"],
                  read_from_words(r)] for r in rows]))
    print("\nnames each company answers to:")
    for company in sorted({r["company"] for r in rows}):
        r = next(r for r in rows if r["company"] == company)
        print(f"  {company}: " + ", ".join(r["names"] + r["symbols"]))


def cmd_graph(args) -> None:
    corpus = load(args.corpus)
    index = open_index(corpus)
    ex = index.extraction(args.builder)
    stats = index.graph(args.builder).stats()
    aliases = index.aliases(args.builder)
    out = {
        "corpus": corpus.name, "builder": args.builder, "stats": asdict(stats),
        "extraction": {"raw_mentions": ex.raw_mentions, "raw_unique": ex.raw_unique, "kept": ex.kept,
                       "dropped": dict(ex.dropped), "dropped_examples": {k: list(v) for k, v in ex.dropped_examples.items()}},
        "aliases": [asdict(a) for a in aliases.rows],
        "largest_entities": [asdict(n) for n in largest_entities(index.graph(args.builder), index.graph_texts, 10)],
    }
    if args.json:
        print(json.dumps(out, indent=2))
        return
    print(f"{corpus.name} / {args.builder}: {stats.passages} passages, {stats.entities} entities, {stats.edges} edges, "
          f"{stats.isolated_passages} isolated passages")
    print(f"extraction: {ex.raw_mentions} raw mentions ({ex.raw_unique} distinct) -> {ex.kept} kept entities")
    for why, n in ex.dropped.items():
        print(f"  dropped {n:>5} as {why}: e.g. {', '.join(ex.dropped_examples[why][:4])}")
    print("largest entities:")
    for n in out["largest_entities"]:
        print(f"  {n['passages']:>6}  {n['entity']}" + (f"  ({n['note']})" if n["note"] else ""))
    print(f"aliases: {len(aliases.rows)} rows")
