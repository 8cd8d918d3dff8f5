"""The Precedents page's answer: what the question was understood as, the ranked deals with the parts of each score,
the chosen deal's graph, "why not this one", and the evidence report. The question and settings are
`ui.precedents_form`'s; the report and the graph are drawn without Streamlit (`ui.precedents_report`,
`ui.deal_graph`), so the page and the file show the same bars and the same graph."""

from __future__ import annotations

from datetime import datetime, timezone
from urllib.parse import urlencode

import streamlit as st

from engine.deals.rankers import Precedents, RankedDeal, find_precedents
from engine.errors import PathLensError
from ui.deal_graph import deal_facts, deal_graph_html, deal_subgraph, family_words, graph_height
from ui.precedents_form import RANKER_WORDS, Ask, DealList
from ui.precedents_report import build_report, command, deal_parts_html, report_name, score_words, why_not_words
from ui.render import escape_markdown
from ui.url_state import set_params


SOURCE_WORDS = {"dense": "close in meaning (dense)", "bm25": "sharing words (BM25)",
                "walk": "from the walk over the deal graph"}


def _sentence(text: str) -> str:
    """An engine message as a sentence on the page: capitalised, ending in a full stop."""
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "?", "!")) else f"{text}."


def run(deals: DealList, ask: Ask, why: str) -> Precedents | None:
    """The precedents the settings ask for, with the "why not" deal scored wherever it ranks when the filters keep
    it; None with the reason shown (filters that leave no deal, a walk with nowhere to start)."""
    u = deals.index.universe
    include = (why,) if why in u.rows and ask.filters.keeps(u.deals[u.rows[why]]) else ()
    try:
        return find_precedents(ask.question, deals.index, ask.ranker, ask.k, ask.filters, ask.correction,
                               include=include)
    except PathLensError as e:  # the engine checks every input and names what is wrong
        st.warning(escape_markdown(_sentence(str(e))))
        return None


def _choose(deal_id: str) -> None:
    st.session_state["pr_deal"] = deal_id


def _graph(deals: DealList, p: Precedents, r: RankedDeal) -> tuple[str, int]:
    """The chosen deal's graph page and its height."""
    u = deals.index.universe
    ranks = {u.rows[x.deal.id]: x.rank for x in p.deals}
    sub = deal_subgraph(deals.index, u.rows[r.deal.id], p.cues.criteria, ranks)
    height = graph_height(sub)
    return deal_graph_html(sub, height), height


def _card(deals: DealList, p: Precedents, r: RankedDeal, graph: tuple[str, int] | None) -> None:
    """One ranked deal: name and score, its record, its description, the bars of its parts; its graph when it is
    the chosen deal, else the button that chooses it."""
    d = r.deal
    with st.container(border=True):
        st.markdown(f"**{r.rank}. {escape_markdown(d.name)}** · {score_words(r.score, p.ranker)}")
        st.caption(escape_markdown(deal_facts(deals.index, d)))
        st.markdown(escape_markdown(d.description) if d.description else "*No description.*")
        st.html(deal_parts_html(r, p.ranker))
        if graph is None:
            st.button("Show its deal graph", key=f"pr_show_{d.id}", on_click=_choose, args=(d.id,),
                      help="Draw this deal's corner of the deal graph here: its platform and add-ons, sector, "
                           "region, origin, exit and description.")
            return
        st.markdown("**Its deal graph**")
        st.caption(escape_markdown(family_words(deals.index, deals.index.universe.rows[d.id])) + " Hover a node for "
                   "its record; scroll to zoom.")
        page, height = graph
        st.iframe(page, height=height + 20)


def _why_not(deals: DealList, p: Precedents) -> RankedDeal | None:
    """Any deal of the list, picked by name, its parts beside #1's; the deal picked, when it was scored."""
    st.subheader("Why not this one?")
    u = deals.index.universe

    def named(deal_id: str) -> str:
        if not deal_id:
            return "— type a deal's name —"
        d = u.deals[u.rows[deal_id]]
        return f"{d.name} · {d.year} · {d.subsector or d.sector} · {d.region}"

    st.selectbox("A deal to set beside #1", ["", *(d.id for d in u.deals)], key="pr_why", format_func=named,
                 help="Any deal of the list: see where it ranks for this question and which parts of its score "
                      "fall short of #1's.")
    why = st.session_state["pr_why"]
    if not why:
        st.caption("Pick a deal you expected to see: its score's parts are drawn beside #1's.")
        return None
    d = u.deals[u.rows[why]]
    picked = next((x for x in p.picked if x.deal.id == why), None)
    if picked is None:  # the filters leave it out: it was never scored
        st.info(f"{escape_markdown(d.name)} is outside the filters ({escape_markdown(p.filters.words())}), so it was "
                "not scored: loosen a filter to see where it ranks.")
        return None
    top = p.deals[0]
    st.markdown(escape_markdown(why_not_words(top, picked, p.candidates, p.ranker)))
    c1, c2 = st.columns(2)
    c1.html(deal_parts_html(top, p.ranker, f"#1 {top.deal.name}"))
    c2.html(deal_parts_html(picked, p.ranker, f"#{picked.rank} {picked.deal.name}"))
    return picked


def draw(deals: DealList, ask: Ask, p: Precedents) -> None:
    """The cues, the ranked deals (the chosen one with its graph), why not this one, and the report."""
    u = deals.index.universe
    understood = p.cues.words().removeprefix("understood as: ")
    st.info(f"**Understood as{' (as you corrected it)' if p.cues.corrected else ''}:** "
            f"{escape_markdown(understood)}. Correct it under “Cues” above.")
    searched = (f"all {len(u):,} deals of {escape_markdown(u.name)}" if p.filters.empty else
                f"the {p.kept:,} of {len(u):,} deals the filters keep ({escape_markdown(p.filters.words())})")
    found = ", ".join(f"{n} {SOURCE_WORDS.get(s, s)}" for s, n in p.sources)
    st.caption(f"Searched {searched}: {p.candidates:,} candidates ({found}); the walk started from "
               f"{escape_markdown(', '.join(p.seeds) or 'nowhere')}. Ranked by the {RANKER_WORDS[p.ranker]}.")
    for note in p.notes:
        st.info(escape_markdown(_sentence(note)))
    shown = {r.deal.id: r for r in p.deals}
    if st.session_state.get("pr_deal") not in shown:  # a deal of another ranking: the graph goes back to #1
        st.session_state["pr_deal"] = ""
    chosen = shown.get(st.session_state["pr_deal"], p.deals[0])
    graph = _graph(deals, p, chosen)
    st.subheader(f"The top {len(p.deals)} precedent{'s' if len(p.deals) != 1 else ''}")
    st.caption("Deals in the asked sector come first, then deals meeting more of the asked cues; among deals alike, "
               "the higher score. "
               "Each score is exactly where every deal starts plus the bars under it: green adds, red takes away. "
               "The deal graph is drawn for one deal at a time.")
    for r in p.deals:
        _card(deals, p, r, graph if r is chosen else None)
    picked = _why_not(deals, p)
    set_params(deal=st.session_state["pr_deal"] or None, why=st.session_state["pr_why"] or None)
    link = "/precedents?" + urlencode(st.query_params.to_dict())
    cli = command(p, ask.k, ask.correction, [picked.deal.id] if picked else [], deals.file[0] if deals.file else None)

    def report() -> str:
        """Built only when the button is pressed."""
        return build_report(p, deals.index, datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), link, cli,
                            (chosen, *graph), picked, deals.file)

    st.download_button("Download the evidence report (HTML)", data=report, key="pr_report", type="primary",
                       file_name=report_name(ask.question, datetime.now(timezone.utc).date()), mime="text/html",
                       on_click="ignore", help="One self-contained file to hand over: the question, what it was "
                       "understood as, the ranked deals and the parts of each score, the chosen deal's graph, and how "
                       "it was computed; it opens offline.")
    st.caption("This page's address holds the view (question, ranker, k, filters, corrections, the chosen deal and "
               "the deal beside #1): copy it to share the view.")


__all__ = ["draw", "run"]
