"""The Precedents page's evidence report: one self-contained HTML file to hand over, read top down.

The question and what it was understood as; the ranked deals, each with its record, its description and the bars of
its parts (the page's own drawing, engine.explain.parts); "why not this one" when a deal was picked; the chosen deal's
graph (interactive, vis-network inlined, in a sandboxed srcdoc frame as the Query page's report has it); last, how it
was computed, with the link that reproduces the view and the command that ranks the same deals. Every name and
description is escaped (a user's list is untrusted); the file asks nothing of the network. No Streamlit here.
"""

from __future__ import annotations

import html
import shlex
from dataclasses import fields
from datetime import date
from typing import Sequence

from engine.deals.cues import CueCorrection
from engine.deals.index import DealIndex
from engine.deals.rankers import Precedents, RankedDeal
from engine.explain.parts import parts_html
from engine.explain.report import report_file_name
from ui.deal_graph import deal_facts

STYLE = """body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;color:#222;max-width:1100px;margin:24px auto;
padding:0 16px}h1{font-size:24px}h2{font-size:19px;margin-top:28px}h3{font-size:16px;margin:0 0 4px}
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f5f5f5}.deal{border:1px solid #ddd;border-radius:6px;padding:10px 12px;margin:10px 0}
.meta{color:#555;font-size:13px}.side{display:flex;gap:24px}.side>div{flex:1 1 0}code{font-size:13px;overflow-wrap:anywhere}
iframe{border:1px solid #ddd;width:100%}"""


# the walk's scores are shares of its time, a few thousandths each: drawn in ‰, so the bars' two decimals say something
PER_MILLE = {"walk": 1000.0}


def score_words(score: float, ranker: str) -> str:
    return f"score {score * 1000:+.3f}‰ of the walk's time" if ranker in PER_MILLE else f"score {score:+.3f}"


def deal_parts_html(r: RankedDeal, ranker: str, title: str = "Why it ranks here") -> str:
    """A ranked deal's parts as bars that, with its base (0 but for the learned ranker, said in the heading's sum), add
    up to its score; the walk's in ‰ of its time."""
    scale = PER_MILLE.get(ranker, 1.0)
    base = sum(p.value for p in r.parts if p.feature == "base")
    drawn = parts_html([(p.words, p.value * scale) for p in r.parts if p.feature != "base"], base * scale,
                       r.score * scale, title + (" (in ‰ of the walk's time)" if ranker in PER_MILLE else ""),
                       item="deal")
    return drawn


def why_not_words(top: RankedDeal, other: RankedDeal, candidates: int, ranker: str) -> str:
    """Where the picked deal stands against #1, and the parts #1 gains most on: "… ranks #57 of 284 candidates,
    score +0.12 against #1's +2.49. Where #1 gains most: meets 100% of the asked cues (+6.68) against …"."""
    if other.deal.id == top.deal.id:
        return f"{other.deal.name} is #1."
    scale = PER_MILLE.get(ranker, 1.0)
    unit = "‰" if ranker in PER_MILLE else ""
    head = (f"{other.deal.name} ranks #{other.rank} of {candidates:,} candidates, {score_words(other.score, ranker)} "
            f"against #1's {top.score * scale:+.3f}{unit}.")
    theirs = {p.feature: p for p in other.parts}
    gaps = sorted(((t.value - theirs[t.feature].value, t, theirs[t.feature]) for t in top.parts
                   if t.feature in theirs and t.feature != "base"), key=lambda g: -g[0])
    said = [f"{t.words} gives #1 {t.value * scale:+.2f}{unit}, {o.words} gives it {o.value * scale:+.2f}{unit}"
            for gap, t, o in gaps[:3] if gap * scale >= 0.005]
    return head + (f" Where #1 gains most on it: {'; '.join(said)}." if said else "")


def report_name(question: str, day: date) -> str:
    """Named as the Query page's report is, after the question and the day."""
    return report_file_name(question, day).replace("evidence-report-", "precedents-report-", 1)


def cue_pairs(correction: CueCorrection) -> list[str]:
    """The correction as the command line's `--cue FIELD=VALUE` pairs (an empty value clears the cue)."""
    pairs = []
    for f in fields(CueCorrection):
        v = getattr(correction, f.name)
        if v is None:
            continue
        name = f.name[:-1] if f.name in ("sectors", "subsectors", "regions", "origins", "exits") else f.name
        text = ",".join(v) if isinstance(v, tuple) else f"{v:g}" if isinstance(v, float) else str(v)
        pairs.append(f"{name}={text}")
    return pairs


def command(p: Precedents, k: int, correction: CueCorrection, why: Sequence[str], file: str | None) -> str:
    """The command that ranks the same deals (`python -m engine precedents …`)."""
    argv = ["python", "-m", "engine", "precedents", p.question, "--ranker", p.ranker, "--k", str(k)]
    argv += [x for s in p.filters.sectors for x in ("--sector", s)]
    argv += [x for r in p.filters.regions for x in ("--region", r)]
    if p.filters.year_from is not None:
        argv += ["--year-from", str(p.filters.year_from)]
    if p.filters.year_to is not None:
        argv += ["--year-to", str(p.filters.year_to)]
    argv += [x for pair in cue_pairs(correction) for x in ("--cue", pair)]
    argv += [x for d in why for x in ("--why", d)]
    if file:
        argv += ["--deals", file]
    return shlex.join(argv)


def _table(headers: list[str], rows: list[list[object]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _deal(index: DealIndex, r: RankedDeal, ranker: str) -> str:
    d = r.deal
    return (f"<div class='deal'><h3>{r.rank}. {html.escape(d.name)} · {score_words(r.score, ranker)}</h3>"
            f"<p class='meta'>{html.escape(deal_facts(index, d))} · id {html.escape(d.id)}</p>"
            f"<p>{html.escape(d.description) or '<em>no description</em>'}</p>{deal_parts_html(r, ranker)}</div>")


def build_report(p: Precedents, index: DealIndex, generated: str, link: str, cli: str,
                 graph: tuple[RankedDeal, str, int] | None = None, why: RankedDeal | None = None,
                 file: tuple[str, str] | None = None) -> str:
    """The report of one view: `graph` is (the chosen deal, its graph's page, the page's height); `why` the deal
    picked beside #1; `file` the user's list (name, sha256), which the link cannot carry."""
    u = index.universe
    understood = p.cues.words().removeprefix("understood as: ")
    out = ["<!doctype html><html lang='en'><head><meta charset='utf-8'><title>PathLens precedents report</title>"
           f"<style>{STYLE}</style></head><body><h1>PathLens precedents report</h1>",
           f"<p class='meta'>Generated {html.escape(generated)} · {html.escape(u.name)} · ranked by the "
           f"{html.escape(p.ranker)} ranker</p>",
           f"<h2>Question</h2><p>{html.escape(p.question)}</p>",
           f"<p><strong>Understood as{' (corrected)' if p.cues.corrected else ''}:</strong> "
           f"{html.escape(understood)}</p>",
           f"<p class='meta'>Searched {p.kept:,} of {len(u):,} deals ({html.escape(p.filters.words())}): "
           f"{p.candidates:,} candidates.</p>"]
    out += [f"<p><strong>Note:</strong> {html.escape(n)}</p>" for n in p.notes]
    out.append(f"<h2>The top {len(p.deals)} precedent{'s' if len(p.deals) != 1 else ''}</h2>")
    out += [_deal(index, r, p.ranker) for r in p.deals]
    if why is not None and p.deals:
        top = p.deals[0]
        out.append(f"<h2>Why not this one: {html.escape(why.deal.name)}</h2>"
                   f"<p>{html.escape(why_not_words(top, why, p.candidates, p.ranker))}</p><div class='side'>"
                   f"<div>{deal_parts_html(top, p.ranker, f'#1 {top.deal.name}')}</div>"
                   f"<div>{deal_parts_html(why, p.ranker, f'#{why.rank} {why.deal.name}')}</div></div>")
    if graph is not None:
        r, page, height = graph
        out.append(f"<h2>The deal graph of #{r.rank} {html.escape(r.deal.name)}</h2>"
                   f"<iframe sandbox='allow-scripts' height='{height + 20}' srcdoc=\"{html.escape(page, quote=True)}\">"
                   "</iframe>")
    out.append("<h2>How this was computed</h2>")
    out.append(_table(["what", "value"], [["deals", f"{u.name}: {len(u):,}"], ["ranker", p.ranker], ["k", len(p.deals)],
                                 ["filters", p.filters.words()],
                                 ["candidates", ", ".join(f"{s} {n}" for s, n in p.sources)],
                                 ["the walk started from", ", ".join(p.seeds) or "nowhere"]]))
    if p.cues.read:
        out.append(_table(["the question's words", "cue", "value", "source"],
                          [[c.said or "(your correction)", c.kind, c.value, c.source] for c in p.cues.read]))
    if file is not None:
        out.append(f"<p class='meta'>This view is of an uploaded deal list, and uploads are never shared: to see it "
                   f"again, open the link below and upload {html.escape(file[0])} (sha256 {html.escape(file[1])}).</p>")
    out.append(f"<p class='meta'>Reproduce this view in PathLens: append <code>{html.escape(link)}</code> to the app's "
               f"address. Rank the same deals: <code>{html.escape(cli)}</code></p></body></html>")
    return "\n".join(out)


__all__ = ["build_report", "command", "cue_pairs", "deal_parts_html", "report_name", "score_words", "why_not_words"]
