"""A learned ranker's parts as a reader sees them: a few named bars, largest first, the rest summed in one, and the
base, which together give the score (`engine.retrieve.page_ranker.PageExplanation`, the precedents' parts). One HTML
drawing serves the Query page and the evidence report, so both show the same bars; every label is escaped."""

from __future__ import annotations

import html
from typing import Sequence

from ..retrieve.graph_explain import HitExplanation
from ..retrieve.page_ranker import PageExplanation

SHOWN = 6  # bars drawn by name; the rest are summed in one


def part_rows(parts: Sequence[tuple[str, float]], shown: int = SHOWN) -> list[tuple[str, float]]:
    """(label, part): the `shown` largest parts by size, then the others summed; with the base, they sum to the
    score."""
    ranked = sorted(parts, key=lambda p: -abs(p[1]))
    rows = [(name, value) for name, value in ranked[:shown]]
    rest = ranked[shown:]
    if rest:
        rows.append((f"{len(rest)} other, smaller reason{'s' if len(rest) != 1 else ''} together",
                     sum(v for _, v in rest)))
    return rows


def parts_html(parts: Sequence[tuple[str, float]], base: float, score: float, title: str = "Why this page",
               item: str = "page") -> str:
    """A small horizontal bar chart of the parts: green adds to the score, red takes from it. The base, where every
    `item` ("page", "deal") of the question starts, is said in the heading's sum, not drawn: the same for every item,
    it is no reason for one item's rank, and drawn it was often the longest bar (#63 walk-through)."""
    rows = part_rows(parts)
    top = max((abs(v) for _, v in rows), default=0.0) or 1.0
    bars = []
    for label, value in rows:
        width = 100 * abs(value) / top
        if value < 0:  # "role matches (platform) −0.12" read as a contradiction: the trait counts, but less than usual
            label = f"{label}, counting less here than on the average {item}"
        colour = "#2e7d32" if value >= 0 else "#c62828"
        bars.append(
            "<div class='part-row' style='display:flex;align-items:center;gap:8px;margin:2px 0;font-size:13px'>"
            f"<span class='part-label' style='flex:0 0 46%;overflow-wrap:anywhere'>{html.escape(label)}</span>"
            "<span style='flex:1 1 auto;background:#f1f1f1;height:12px;position:relative'>"
            f"<span style='position:absolute;left:0;top:0;height:12px;width:{width:.1f}%;background:{colour}'></span></span>"
            f"<span class='part-value' style='flex:0 0 64px;text-align:right;font-variant-numeric:tabular-nums'>"
            f"{value:+.2f}</span></div>")
    return (f"<div class='parts' role='figure' aria-label='{html.escape(title)}'>"
            f"<div style='font-weight:600;font-size:13px'>{html.escape(title)}: score {score:+.2f}, "
            f"{base_words(base, item)}; the reasons below add {score - base:+.2f}. Green adds, red takes away: a "
            f"trait weaker here than on the other {item}s, such as a meaning less close to the question's, can take "
            "away.</div>"
            + "".join(bars) + "</div>")


def base_words(base: float, item: str = "page") -> str:
    """The base in words a stakeholder reads: a value every candidate of the question shares, so no reason for a
    rank ("every page starts at −3.43" read as jargon in a walk-through)."""
    return f"from {base:+.2f}, where every {item} of this search begins"


def walk_rank_words(walk_rank: int) -> str:
    """What follows a ranked page's parts: which score orders the pages, and what the walk's shares below are of
    (an analyst met two scores under one hit and could not tell which ranked it)."""
    return (f"The score above orders the pages. The graph search that found this page ranked it {walk_rank}; the "
            "shares below are of that search's own score.")


def explained(answer, passage_id: str) -> tuple[HitExplanation | None, PageExplanation | None]:
    """(the walk's explanation of a hit, a learned ranker's parts of its score): a walk's retriever gives the first,
    the page ranker both (its parts, and the walk that found the page), any other retriever neither."""
    why = answer.why.get(passage_id) if answer.walk is not None else None
    if isinstance(why, PageExplanation):
        return why.walk, why
    return (why if isinstance(why, HitExplanation) else None), None


def page_parts_html(why: PageExplanation) -> str:
    return parts_html(why.reasons(), why.base, why.score)


__all__ = ["SHOWN", "base_words", "explained", "page_parts_html", "part_rows", "parts_html"]
