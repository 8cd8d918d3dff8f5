"""Commands about deals: precedents for a question, a deal list's import, the learned ranker's remake, and the
rankers' comparison."""

from __future__ import annotations

import json
import sys
import time

from ..errors import PathLensError
from ..retrieve.retrievers import check_k, check_query
from .output import progress_line, table


def _filters(args):
    from ..deals.index import DealFilters
    from ..deals.lexicon import load_lexicon

    lexicon = load_lexicon()

    def words(values, kind):
        out = []
        for v in values:
            for w in (x.strip() for x in v.split(",") if x.strip()):
                found = lexicon.map_word(kind, w)
                if not found:
                    raise PathLensError(f"--{kind} {w!r}: not a {kind} the lexicon knows")
                out += found
        return tuple(dict.fromkeys(out))

    return DealFilters(words(args.sector, "sector"), words(args.region, "region"), args.year_from, args.year_to)


def _index(deals_file: str | None):
    """The index of the user's list (its bad rows noted on stderr), else the bundled universe's."""
    from ..deals.index import build_index, bundled_index

    show = progress_line()
    shown = []

    def encoding(done: int, total: int) -> None:
        show("encoding the deals' descriptions (once; kept in the cache)", done, total)
        shown.append(done)

    if deals_file is None:
        index = bundled_index(on_batch=encoding)
    else:
        from ..deals.dealfile import load_deal_file

        loaded = load_deal_file(deals_file)
        for p in loaded.problems:
            print(f"note: left out {p.message}", file=sys.stderr)
        index = build_index(loaded.universe, on_batch=encoding)
    if shown:
        print(file=sys.stderr)  # end the progress line
    return index


def _deal_line(d, add_ons: int, platform_name: str) -> str:
    role = f"platform, {add_ons} add-on{'s' if add_ons != 1 else ''}" if d.role == "platform" else \
        f"add-on of {platform_name}"
    exit_ = "still held" if d.exit == "none" else f"{d.exit} {d.exit_year or ''}".strip()
    size = f" · ${d.size:,.0f}m" if d.size is not None else ""
    return (f"{d.name} — {d.subsector or d.sector} · {d.region} · {d.year} · {role} · "
            f"{d.origin or 'origin not stated'} · {exit_}{size}")


def _deal_json(r, u) -> dict:
    d = r.deal
    return {"rank": r.rank, "id": d.id, "name": d.name, "sector": d.sector, "subsector": d.subsector,
            "region": d.region, "year": d.year, "size": d.size, "role": d.role,
            "platform": u.deals[u.rows[d.platform]].name if d.platform else "", "add_ons": r.add_ons,
            "origin": d.origin, "exit": d.exit, "exit_year": d.exit_year, "sponsor": d.sponsor,
            "description": d.description, "source": d.source, "score": r.score,
            "parts": [{"feature": p.feature, "words": p.words, "value": p.value} for p in r.parts]}


def cmd_precedents(args) -> None:
    from dataclasses import asdict

    from ..deals.cues import correction_from_pairs
    import numpy as np

    from ..deals.rankers import RANKERS, check_request, find_precedents, learned_model
    from ..deals.vectors import question_vector

    check_query(args.question)  # every input checked before the universe is read
    k = check_k(args.k)
    if args.ranker not in RANKERS:
        raise PathLensError(f"--ranker: {args.ranker!r} is not one of {', '.join(RANKERS)}")
    filters, correction = _filters(args), correction_from_pairs(args.cue)
    index = _index(args.deals)
    u = index.universe
    check_request(args.question, index, args.ranker, filters, correction)  # what can fail, before the slow warm-up
    started = time.perf_counter()
    q = question_vector(args.question)  # a process's first question also loads the encoder and LightGBM: timed apart
    if args.ranker == "learned":
        model = learned_model()
        model.raw_scores(np.zeros((1, len(model.features))))
    warm = time.perf_counter() - started
    started = time.perf_counter()
    p = find_precedents(args.question, index, args.ranker, k, filters, correction, include=args.why, q=q)
    took = time.perf_counter() - started
    if args.json:
        print(json.dumps({"question": p.question, "universe": p.universe, "ranker": p.ranker,
                          "understood_as": p.cues.words(), "cues": [asdict(c) for c in p.cues.read],
                          "criteria": asdict(p.cues.criteria), "filters": asdict(p.filters), "deals_kept": p.kept,
                          "candidates": p.candidates, "sources": dict(p.sources), "walk_seeds": list(p.seeds),
                          "notes": list(p.notes), "seconds": round(took, 4), "warm_up_seconds": round(warm, 4),
                          "deals": [_deal_json(r, u) for r in p.deals],
                          "picked": [_deal_json(r, u) for r in p.picked]}, indent=2))
        return
    print(p.cues.words())
    print(f"searched: {p.kept:,} of {len(u):,} deals ({p.filters.words()}) → {p.candidates} candidates ("
          + ", ".join(f"{s} {n}" for s, n in p.sources) + f"); walk from: {', '.join(p.seeds) or 'nothing'}; "
          f"ranked by: {p.ranker} in {took * 1000:.0f} ms (encoding the question and loading the model: "
          f"{warm * 1000:.0f} ms)")
    for n in p.notes:
        print(f"note: {n}")
    for r in p.deals + p.picked:
        if r in p.picked and r not in p.deals:
            print("why not this one:")
        plat = u.deals[u.rows[r.deal.platform]].name if r.deal.platform else ""
        print(f"{r.rank:>3}. {r.score:+.3f}  {r.deal.id}  {_deal_line(r.deal, r.add_ons, plat)}")
        shown = [x for x in r.parts if x.feature != "base"][:5]
        rest = [x for x in r.parts if x.feature != "base"][5:]
        base = [x for x in r.parts if x.feature == "base"]
        text = " · ".join(f"{x.value:+.2f} {x.words}" for x in shown)
        if rest:
            text += f" · {sum(x.value for x in rest):+.2f} from {len(rest)} more"
        if base:
            text += f" · {base[0].value:+.2f} base"
        print(f"       {text}")


def cmd_deals(args) -> None:
    from collections import Counter

    from ..deals.dealfile import load_deal_file

    loaded = load_deal_file(args.import_file)
    u = loaded.universe
    roles = Counter(d.role for d in u.deals)
    if args.json:
        print(json.dumps({"file": u.name, "rows": loaded.rows, "loaded": len(u), "platforms": roles["platform"],
                          "add_ons": roles["add-on"], "sectors": dict(Counter(d.sector for d in u.deals)),
                          "regions": dict(Counter(d.region for d in u.deals)),
                          "left_out": [{"line": p.line, "field": p.field, "message": p.message} for p in loaded.problems],
                          "read_as": [{"line": p.line, "field": p.field, "message": p.message} for p in loaded.mapped]},
                         indent=2))
        return
    plural = {r: "" if n == 1 else "s" for r, n in roles.items()}
    print(f"{u.name}: {len(u):,} of {loaded.rows:,} rows loaded — {roles['platform']:,} "
          f"platform{plural.get('platform', 's')}, {roles['add-on']:,} add-on{plural.get('add-on', 's')}")
    print(table(["sector", "deals"], sorted(Counter(d.sector for d in u.deals).items(), key=lambda kv: -kv[1])))
    print(table(["region", "deals"], sorted(Counter(d.region for d in u.deals).items(), key=lambda kv: -kv[1])))
    print(f"left out ({len(loaded.problems)}):" if loaded.problems else "left out: none")
    for p in loaded.problems:
        print(f"  {p.message}")
    if loaded.mapped:
        print(f"words read as the universe's ({len(loaded.mapped)}):")
        for p in loaded.mapped[:20]:
            print(f"  {p.message}")
        if len(loaded.mapped) > 20:
            print(f"  … and {len(loaded.mapped) - 20} more (--json lists all)")


def cmd_train_precedents(args) -> None:
    from ..deals.index import bundled_index
    from ..deals.rankers import MODEL, learned_model
    from ..deals.training import remake

    path = args.out or MODEL
    model, same = remake(bundled_index(), path)
    learned_model.cache_clear()
    if args.json:
        print(json.dumps({"wrote": str(path), "identical": same, "about": dict(model.about),
                          "effects": dict(model.effects())}, indent=2))
        return
    print(f"trained on {model.about['trained_on']}; {model.about['rows']:,} candidate rows, "
          f"{model.about['relevant_rows']:,} relevant")
    print(f"wrote {path}: " + ("identical to the file it replaced, byte for byte" if same else
                               "different from the file it replaced (or new)"))
    print("each feature's share of the trees' gain: "
          + ", ".join(f"{n} {v:.2f}" for n, v in model.effects() if v >= 0.005))


def cmd_precedents_eval(args) -> None:
    from ..deals.index import bundled_index
    from ..evaluate.precedents import METRICS, evaluate_precedents

    sets = tuple(s.strip() for s in args.sets.split(",") if s.strip())
    if args.resamples < 1:
        raise PathLensError(f"--resamples must be at least 1, got {args.resamples}")
    lexicon = None
    if args.drop_phrases:
        from ..deals.lexicon import lexicon_without

        lexicon = lexicon_without(frozenset(p.strip() for p in args.drop_phrases.split(",") if p.strip()))
    results = evaluate_precedents(bundled_index(), sets, resamples=args.resamples, lexicon=lexicon,
                                  order="score" if args.by_score else "page")
    if args.json:
        print(json.dumps([r.to_json() for r in results], indent=2))
        return
    for r in results:
        left = f"; left out, no deal meets them: {', '.join(r.no_gold)}" if r.no_gold else ""
        print(f"{r.name}: {len(r.ids)} questions{left}; gold deals among the candidates: {r.gold_in_pool:.1%}"
              + (f"; the walk had no seed for {len(r.walk_unseeded)}" if r.walk_unseeded else ""))
        print(table(["ranker", *METRICS], [[n] + [r.mean(n, m) for m in METRICS] for n in r.per_query]))
        print(table(["paired difference", "metric", "mean", "95% CI"],
                    [[f"{c.a} − {c.b}", c.metric, f"{c.mean_diff:+.3f}", f"[{c.low:+.3f}, {c.high:+.3f}]"]
                     for c in r.cis]))
        print()
