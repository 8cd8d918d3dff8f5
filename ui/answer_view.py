"""The Query page's answer: the walk's seeds, the evidence graph, and each hit with the sentence saying why it
came back (engine.explain.reasons), so the page reads the same as the evidence report."""

from __future__ import annotations

from collections import Counter
from typing import Mapping

import altair as alt
import pandas as pd
import streamlit as st

from engine.explain.parts import explained, page_parts_html, walk_rank_words
from engine.explain.reasons import (IN_TEXT, WHERE_IT_SITS, exactness_words, explanation_lines, passage_name, path_words, percent,
                                    reason)
from engine.explain.render import page_height, passage_seed_summary, second_hop_summary, subgraph_html
from engine.explain.report import highlight, marked_terms
from engine.retrieve.graph_explain import GraphAnswer
from ui.render import escape_markdown, show_table

RULE_HELP = ("extracted: the extractor found the name; containment: an extracted name inside or around a graph "
             "entity; vocabulary: a graph entity named in the question; filings: scope (a filing the question is "
             "scoped to), statement, lexicon (an analyst's word mapped to a line item or note), line item, note, "
             "reference (“Note 12”); second hop: an entity the first walk's top passages name and the question "
             "does not, where a second walk starts; otherwise an alias rule (BCT)")


def show_scope(walk: GraphAnswer) -> None:
    if walk.extra is not None:
        corrected = " (as you corrected it)" if walk.extra.scope.corrected else ""
        st.info(f"**Scope as understood{corrected}:** {escape_markdown(walk.extra.scope_words)}. "
                "Correct it under “Scope” above.")


def show_seeds(walk: GraphAnswer, name: str, titles: dict[str, str], filing_of: Mapping[str, str]) -> None:
    """Where the walk restarts: entity seeds with their rule and weight, the hybrid's passage seeds, and the words
    of the question no seed covers. A seed of a filing's structure whose name another seed shares (each filing's
    "Income statement") says whose it is (`filing_of`: a structure node's key → its filing's label)."""
    # folded: the graph and each hit's sentence say the same in plain words; the weights are for who checks them
    ignored = walk.uncovered_words()
    with st.expander(f"Seeds: what the search starts from ({seed_count_words(walk, len(ignored))})", expanded=False):
        if walk.seeds:
            shared = {label for label, n in Counter(s.label for s in walk.seeds).items() if n > 1}
            seeds_df = pd.DataFrame([{"entity": f"{s.label} ({filing_of[s.entity]})" if s.label in shared
                                      and filing_of.get(s.entity) else s.label, "rule": s.rule if s.source in ("query", "bridge")
                                      else f"alias ({s.rule})", "weight": round(s.weight, 4), "passages": s.passage_count,
                                      "from": f"#{s.named_at} of the first walk: {passage_name(s.via, titles, IN_TEXT)}"
                                      if s.named_at else s.via}
                                     for s in walk.seeds])
            show_table(seeds_df, hide_index=True, width="stretch", column_config={
                "entity": st.column_config.TextColumn("entity", width="large"),  # row labels and filings run long
                "from": st.column_config.TextColumn("from", width="large"),  # a second hop's passage, by its name
                "rule": st.column_config.TextColumn("rule", help=RULE_HELP),
                "weight": st.column_config.NumberColumn("weight", help="share of the restart mass", format="%.4f"),
                "passages": st.column_config.NumberColumn("passages", help="passages the entity occurs in; seeds weigh "
                                                          "1 / this (specificity), so generic names weigh little")})
        if hop := second_hop_summary(walk, titles):
            st.caption(escape_markdown(hop))  # names and titles are corpus text
        if walk.passage_seeds:
            st.caption(passage_seed_summary(walk))
            # each passage by its whole name (a cut one beside its title repeated the title and lost the part)
            show_table(pd.DataFrame([{"passage": passage_name(p.passage_id, titles, IN_TEXT), "cosine": p.cosine,
                                      "weight": p.weight} for p in walk.passage_seeds]),
                       hide_index=True, width="stretch", height=200, column_config={
                           "passage": st.column_config.TextColumn("passage", width="large"),
                           "cosine": st.column_config.NumberColumn(
                               "similarity", format="%.4f", help="cosine similarity of the passage's and the question's "
                                                                 "dense embeddings (1: same meaning; near 0: unrelated)"),
                           "weight": st.column_config.NumberColumn("weight", help="share of the restart mass",
                                                                   format="%.4f")})
        if ignored:  # in the fold: what a reader checking the seeds asks next
            reader = ("the passage seeds read them, through dense similarity" if walk.passage_seeds else
                      "bm25 and dense read every word, and a hybrid graph retriever seeds passages from them")
            steer = (f"they steer {name}'s walk only through its passage seeds" if walk.passage_seeds else
                     f"they do not steer {name}'s walk at all")
            st.info(f"Words of the question that no entity seed covers, so {steer}: {', '.join(ignored)}. "
                    f"Here {reader}.")
    unsaid = [n for n in walk.unmatched if n not in ignored]  # a name the sentence above lists is said there once
    if unsaid:
        st.caption("Names in the question that are not in the graph: " + ", ".join(unsaid))
    for amb in walk.ambiguous:
        docs = sorted({d for d, _ in amb.meanings})
        listing = "; ".join(f"{doc} → {nm}" for doc, nm in amb.meanings[:12])
        more = f"; and {len(amb.meanings) - 12} more" if len(amb.meanings) > 12 else ""
        names = {nm for _, nm in amb.meanings}
        st.warning(f"“{amb.term}” is ambiguous: {len(docs)} documents define it, as {len(names)} different names, "
                   f"so none of them was seeded for it. Name the one you mean. Definitions: {listing}{more}.")


def seed_count_words(walk: GraphAnswer, ignored: int) -> str:
    """"4 names and 20 passages; 7 words seed nothing": the fold's label says what is in it."""
    named = f"{len(walk.seeds)} name{'s' if len(walk.seeds) != 1 else ''}"
    named += f" and {len(walk.passage_seeds)} passages" if walk.passage_seeds else ""
    return named + (f"; {ignored} word{'s' if ignored != 1 else ''} of the question seed nothing" if ignored else "")


def show_graph(walk: GraphAnswer, titles: dict[str, str], texts: dict[str, str], gold: frozenset[str],
               alpha: float, removed: list[str] = (), defined: dict[str, str] | None = None) -> None:
    st.subheader("Evidence graph")
    # true of every layout: a walk whose hits all touch a seed draws two columns, not four (#63 walk-through)
    # ★ is said only where the question is labeled: an upload's questions have no labeled answer (#63 walk-through)
    star = "; ★ marks a passage labeled as the answer" if gold else ""
    st.caption("Left to right, as the walk went: the question's seeds, the passages they lead to, and, where a name "
               f"bridges to further passages, that name and those passages. #n is a passage's rank{star}. Hover a "
               "node for its text; click a ranked passage to trace its paths; scroll to zoom.")
    height = page_height(walk, titles, gold, removed)
    st.iframe(subgraph_html(walk, titles=titles, texts=texts, gold=gold, height=height, removed=tuple(removed),
                            defined=defined),
              height=height + 20)
    if walk.pushed:
        st.caption(exactness_words(walk))
    with st.expander("For specialists: how the walk converged (the PPR residual per step)"):
        # Vega-Lite (ui.render.metric_bars says why not plotly): the browser draws this chart on every Query page
        # load, even while its expander stays shut
        residuals = residual_rows(walk.residuals)
        if len(residuals) >= 2:
            st.altair_chart(alt.Chart(residuals).mark_line(point=True).encode(
                alt.X("iteration:Q", scale=alt.Scale(zero=False), axis=alt.Axis(tickMinStep=1)),
                alt.Y("L1 change:Q", scale=alt.Scale(type="log"), axis=alt.Axis(format=".0e"),  # one format: 1e-2 … 1e-24
                      title="score added at step t" if walk.pushed else "‖pₜ₊₁ − pₜ‖₁")).properties(height=320),
                width="stretch", key="residuals")
        if len(residuals) < len(walk.residuals):
            st.caption(f"{len(walk.residuals) - len(residuals)} of the {len(walk.residuals)} steps changed nothing "
                       "(the walk had settled), so a log scale has no place for them.")
        st.caption(f"{walk.iterations} iteration{'s' if walk.iterations != 1 else ''} run at α = {alpha:.2f}; the "
                   "change shrinks by about (1 − α) "
                   "each step, so a larger α converges faster and keeps the walk nearer its seeds.")


def residual_rows(residuals) -> pd.DataFrame:
    """Each step's change, for a log-scale chart: the steps that changed nothing (a walk at α near 1 settles in a
    step or two) have no place on it, and are said instead."""
    rows = pd.DataFrame({"iteration": range(1, len(residuals) + 1), "L1 change": residuals})
    return rows[rows["L1 change"] > 0]


def show_hit(h, answer, titles: dict[str, str], text: str, source: str, question: str, gold: frozenset[str],
             moved: str, anchored: bool = False):
    """One ranked passage: its name, score and marks, the sentence saying why it came back, its routes with the
    share of the score each carries, its text with the matches marked, and last, in small type, where it is from.
    Returns its box, for what follows it (its cited page); `anchored`: the box starts with an anchor, `#hit-RANK`,
    that the strip of pages links to."""
    e, ranked = explained(answer, h.passage_id)  # the walk's why; a learned ranker's parts of the score
    mark = " · ★ gold" if h.passage_id in gold else ""
    box = st.container(border=True)
    with box:
        if anchored:
            st.html(f"<span id='hit-{h.rank}'></span>")
        st.markdown(f"**{h.rank}. {escape_markdown(passage_name(h.passage_id, titles, IN_TEXT))}** · score {h.score:.5g}"
                    f"{mark}{moved}")
        if ranked is not None:  # one verdict shown: the ranker's parts; the walk that found the page, folded
            st.html(page_parts_html(ranked))
            if e is not None:
                with st.expander("How the graph search found this page"):
                    st.caption(walk_rank_words(ranked.walk_rank))
                    _walk_lines(e, titles)
            else:
                st.caption(walk_rank_words(ranked.walk_rank))
        elif e is not None:
            _walk_lines(e, titles)
        elif h.passage_id in answer.why and ranked is None:
            st.caption(f"Why: {escape_markdown(answer.why[h.passage_id].words())}")
        terms = marked_terms(e.matched_entities if e is not None else None, text, question)
        st.html(f"<div class='passage'>{highlight(text, terms)}</div>")
        st.caption(f"From {escape_markdown(source)} · passage `{h.passage_id}`")  # the id last, for who needs it
    return box


def _walk_lines(e, titles: dict[str, str]) -> None:
    for kind, line in explanation_lines(e, titles):
        if kind == "path":
            st.caption(escape_markdown(line))
        else:
            st.markdown((f"**{WHERE_IT_SITS}:** " if kind == "typed path" else "") + escape_markdown(line))


def hit_row(h, answer, titles: dict[str, str], source: str, gold: frozenset[str]) -> dict:
    """A hit as a row of the downloadable table."""
    row = {"rank": h.rank, "passage": passage_name(h.passage_id, titles, IN_TEXT), "passage_id": h.passage_id,
           "score": h.score, "gold": h.passage_id in gold, "source": source}
    e, _ = explained(answer, h.passage_id)
    if h.passage_id in answer.why:  # a learned ranker's parts: what put the page where it is, as the page says
        row["why"] = answer.why[h.passage_id].words()
    if e is not None:  # the walk's shares: the answer's why, or, under a learned ranker, how the walk reached it
        row["how the graph search reached it" if "why" in row else "why"] = reason(e)
        row["evidence paths"] = " | ".join(f"{path_words(p, titles)} ({percent(p.share)})"
                                           for p in ((e.typed_path,) if e.typed_path else ()) + e.paths)
    return row
