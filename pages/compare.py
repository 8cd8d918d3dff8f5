"""Compare: one question through several retrievers side by side, then the labeled query set."""

from __future__ import annotations

from urllib.parse import urlencode

import pandas as pd
import streamlit as st

from engine.errors import PathLensError
from engine.evaluate.evaluate import PAGE_DEPTH, by_pages, compare_by_kind, doc_clusters, evaluate, leads, verdict
from engine.catalog import CATALOG, PARAMS
from engine.indexing.config import corpus_defaults, search_config
from engine.evaluate.metrics import leader_against_each, metric_names
from engine.explain.reasons import IN_TEXT, field_words, passage_name, unreached, walk_words
from engine.retrieve.graph_explain import HitExplanation
from engine.jobs import Cancelled, Job
from engine.retrieve.page_ranker import page_ranker_model
from ui.builds import CancelButton, ensure, fresh_area, job_result, stages_for
from ui.frame import frame
from ui.page_view import side_by_side
from ui.params import param_widget
from ui.query_form import PLAIN, method_words, view_key
from ui.render import best_in_bold, downloads, escape_markdown, gold_of, metric_bars, pick_pair, show_table
from ui.url_state import asked_by_link, param, param_in_range, seed_from_url, set_params

st.title("Compare retrievers")
index = frame()
if index is None:
    st.stop()
corpus = index.corpus
# a room of PDFs compares the filings retrievers with the baselines (docs/filings.md's table), and includes the one
# its Query page opens on
DEFAULT = (["bm25", "dense", "hybrid-regex", "filing-graph", "filing", "filing-learned"] if corpus.paged
           else ["bm25", "dense", "ppr-ner", "hybrid-ner", "rrf"])

# The choices are seeded once per corpus: from the link on the session's first view of the page (a link's
# retrievers and question belong to its own corpus, never to the next one chosen), else from the corpus's defaults.
# Streamlit forgets a widget's value on a page not shown, so the last choices are kept aside for this corpus.
kept = st.session_state.get("cmp_kept")
if st.session_state.get("compare_state_for") != corpus.name:
    from_link = "compare_state_for" not in st.session_state
    wanted = [r for r in (param("retrievers", "") if from_link else "").split(",") if r in CATALOG]
    # the question the Query page holds for this corpus, else its opening one
    asked = st.session_state.get("question") if st.session_state.get("query_state_for") == view_key(corpus) else None
    asked = asked or corpus.opening_question
    st.session_state.update({
        "compare_state_for": corpus.name,
        "cmp_retrievers": wanted or DEFAULT,
        "cmp_question": param("q", asked) if from_link else asked,
    })
    notes: list[str] = []
    st.session_state["cmp_k"] = param_in_range("k", 5, 1, 20, int, "k", notes) if from_link else 5
    for note in notes:
        st.warning(note)
elif kept is not None and kept[0] == corpus.name:
    for key, value in kept[1].items():  # handed back each run: a widget whose identity changed keeps its value
        st.session_state[key] = st.session_state.get(key, value)

names = st.multiselect("Retrievers", list(CATALOG), key="cmp_retrievers", format_func=method_words,
                       help="\n\n".join(f"**{n}**: {s.description}" for n, s in CATALOG.items()))
c1, c2 = st.columns([5, 1])
question = c1.text_input("Question", key="cmp_question")
k = int(c2.number_input("k", 1, 20, step=1, key="cmp_k"))
st.session_state["cmp_kept"] = (corpus.name, {"cmp_retrievers": names, "cmp_question": question, "cmp_k": k})


# the parameters come from the link when it carries them (under their catalog names, checked against the widget's
# range), else the corpus's defaults
SHOWN = ("alpha", "passage_weight", "tau", "passage_seeds", "lexical_share")
for name in SHOWN:
    p = PARAMS[name]
    cast = type(p.default)
    seed_from_url(f"cmp_{name}", name, cast(corpus_defaults(corpus).get(name, p.default)), cast=cast,
                  bounds=(cast(p.low), cast(p.high)), label=p.label)
with st.expander("Graph and hybrid parameters"):
    for column, name in zip(st.columns(len(SHOWN)), SHOWN):
        param_widget(column, name, key=f"cmp_{name}")
    if corpus.defaults:
        st.caption("Defaults tuned on this corpus: " + ", ".join(f"{PARAMS[n].label} = {v}"
                                                                 for n, v in corpus.defaults.items()))
values = {name: type(PARAMS[name].default)(st.session_state[f"cmp_{name}"]) for name in SHOWN}
set_params(retrievers=",".join(names), q=question.strip() or None, k=k, **values)
config = search_config(values, corpus)

if not names:
    st.warning("Choose at least one retriever.")
    st.stop()


def unit_of(pid: str) -> str:
    """What a hit counts as when retrievers are compared: its page in a room of pages (parts 2 and 5 of one page are
    one answer: a walk-through read them as a disagreement), else the passage."""
    at = corpus.pages.get(pid)
    return at.key if at is not None else pid


@st.fragment
def why_they_disagree(index, config, question: str, k: int, rankings: dict[str, list[str]], disagree: list[str],
                      titles: dict[str, str]) -> None:
    """Each retriever's reason for one passage some rank and others do not, then (for a corpus of PDFs) two
    retrievers' top pages side by side; a fragment, so choosing another passage or pair explains that one and
    reruns nothing else (no retriever searches again)."""
    st.subheader("Why they disagree")
    pick = st.selectbox("Passage ranked by some and not others", disagree, key="cmp_why",
                        format_func=lambda pid: passage_name(pid, titles, IN_TEXT))
    pages = index.corpus.pages  # a cached property: passage id → its page
    explained: dict[tuple[str, str], object] = {}  # one walk a retriever and passage, however often it is read

    def why_of(name: str, pid: str):
        if (name, pid) not in explained:
            explained[(name, pid)] = index.retriever(name, config).explain_hits(question, [pid]).get(pid)
        return explained[(name, pid)]

    for name, ranking in rankings.items():
        units = [unit_of(pid) for pid in ranking]  # a page another part of which it ranks is ranked
        where = (f"rank {units.index(unit_of(pick)) + 1}" + ("" if pick in ranking else ", by another part of its page")
                 if unit_of(pick) in units else f"not in its top {k}")
        # every retriever says why in its own terms: term shares, nearest sentences, votes, seeds and paths
        why = why_of(name, pick)
        if why is None:
            reason = unreached(index.retriever(name, config), question, pick, ranking, pages, titles)
        elif isinstance(why, HitExplanation):  # a walk's: its passages named as the rest of the page names them
            reason = walk_words(why, titles)
        else:
            reason = why.words()
        st.markdown(f"**{name}** · {where}")
        st.caption(escape_markdown(reason))

    def entities_of(name: str, pid: str) -> tuple[str, ...]:  # what a walk's hit mentions, marked on its page
        why = why_of(name, pid)
        return tuple(why.matched_entities) if isinstance(why, HitExplanation) else ()

    side_by_side(index, question, rankings, entities_of)


def _leads(result, metric: str):
    """The leader's intervals against each other retriever, resampled once per evaluation and metric: picking
    another pair below, or any other click, reruns the page, and 10,000 resamples a retriever are not free."""
    memo = st.session_state.get("leads_memo")
    if memo is None or memo[0] is not result:
        memo = st.session_state["leads_memo"] = (result, {})
    if metric not in memo[1]:
        memo[1][metric] = leads(result, corpus.queries, corpus, metric)
    return memo[1][metric]


def bag_words(ranker) -> str:
    """What a ranker of several models is, in a sentence ("" for one model)."""
    if len(ranker.models) == 1:
        return ""
    share = ranker.about.get("params", {}).get("bag_share", 0.8)
    return (f" It averages {len(ranker.models)} models, each trained on the questions of {share:.0%} of the tuning "
            "filings, drawn at random: one model moves by several questions when its inputs move a little, their "
            "average less.")


def about_page_ranker() -> None:
    """What filing-learned is: each feature's effect, what it was trained on, and its figures on the test halves of
    the filings dev sets with their intervals (read from the model file, where `engine train-ranker` writes them)."""
    ranker = page_ranker_model()
    about = ranker.about
    with st.expander("About filing-learned, the learned page ranker", expanded=False):
        st.markdown(escape_markdown(
            f"It reorders the {about.get('pool', 'filing retriever’s top pages')} by what an analyst names about a "
            "page. Each hit's score is the exact sum of named parts, drawn beside the hit on the Query page and in "
            f"the report. Trained on {about.get('trained on', '?')}: {about.get('questions with a gold page in the pool', '?')} "
            f"of {about.get('questions', '?')} questions had a gold page among their pool's pages."
            + bag_words(ranker)))
        effects = ranker.effects()[:12]
        averaged = f", averaged over its {len(ranker.models)} models" if len(ranker.models) > 1 else ""
        st.caption(f"Each feature's share of what the trees learned (LightGBM's total gain{averaged}), largest first")
        show_table(pd.DataFrame({"feature": [f for f, _ in effects], "share": [round(v, 3) for _, v in effects]}),
                   width="stretch")
        figures = about.get("test halves")
        if figures:
            st.caption(f"On the test halves ({figures['questions']} questions over {figures['filings']} filings, none "
                       "trained on), by page:")
            show_table(pd.DataFrame(figures["means"]).T.round(3), width="stretch")
            st.caption("filing-learned − filing, 95% interval resampling whole filings: " + "; ".join(
                f"{m} {d['mean']:+.3f} [{d['low']:+.3f}, {d['high']:+.3f}]" for m, d in figures["difference"].items()))
            if "parts" in figures:
                st.caption(f"On every one of their {figures['parts']['pages']:,} pool pages, the parts sum to the "
                           f"model's own score within {figures['parts']['largest gap']:.0e}.")


def evaluation_job(index, names: list[str], ks, config) -> Job:
    """The evaluation beside the page (engine.jobs): a click elsewhere does not lose it, and Cancel stops it
    between two retrievers."""
    def work(progress, should_stop):
        def tick(name: str) -> None:
            if should_stop():
                raise Cancelled(f"the evaluation was cancelled before {name}")
            progress("retrievers", names.index(name), len(names))
        result = evaluate(index, names, ks, config, on_retriever=tick)
        progress("retrievers", len(names), len(names))
        return result
    return Job("compare", work).start()


with fresh_area(index, stages_for(names, config.rrf.members), "compare"):  # no stale results under a build
    if not ensure(index, stages_for(names, config.rrf.members)):
        st.stop()

    # ---------------------------------------------------------------- one question, side by side
    titles = {pid: title or pid.rsplit('#', 1)[0] for pid, title in index.passage_titles().items()}

    if question.strip():
        gold = gold_of(index, question)
        rankings: dict[str, list[str]] = {}
        errors: dict[str, str] = {}
        # in a room of pages each column lists k pages, each at its best part (parts 2 and 3 of p.43 are one page)
        depth = min(len(corpus), k * PAGE_DEPTH) if corpus.paged else k
        for name in names:
            try:
                answer = index.retriever(name, config).answer(question, depth, explain=False)
                if answer.no_seed:
                    errors[name] = answer.notes[0]
                else:
                    rankings[name] = list(by_pages(corpus, {h.passage_id: h.score for h in answer.hits}, k))
            except PathLensError as e:
                errors[name] = str(e)
            except Exception as e:  # one broken retriever must not take the others down
                errors[name] = f"{type(e).__name__}: {e}"
        # hits are compared by page in a room of pages: parts 2 and 5 of one page are one answer
        units = {n: [unit_of(pid) for pid in r] for n, r in rankings.items()}
        unit = "page" if corpus.paged else "passage"
        cols = st.columns(len(names))
        # a company the room lacks stops the retrievers that read one; the others answer from the words alone
        absent = any("names no company of this data room" in e for e in errors.values())
        for col, name in zip(cols, names):
            with col:
                st.markdown(f"**{name}**")
                if name in errors:
                    st.error(errors[name])
                    continue
                if absent:
                    st.caption("It reads the question's words, not the company it names: these are any filer's "
                               "pages.")
                if not rankings[name]:
                    st.caption("no hits")
                for rank, pid in enumerate(rankings[name], start=1):
                    elsewhere = [f"{o} #{units[o].index(unit_of(pid)) + 1}" if unit_of(pid) in units[o] else f"{o} –"
                                 for o in names if o != name and o in rankings]
                    mark = " · ★ gold" if pid in gold else ""
                    st.markdown(f"{rank}. **{escape_markdown(passage_name(pid, titles, IN_TEXT))}**{mark}")
                    if elsewhere:  # the others' ranks, in words a reader needs no id for; the id is on hover
                        st.caption("Elsewhere: " + " · ".join(elsewhere), help=f"Passage `{pid}`. Each other "
                                   f"retriever's rank of its {unit}; “–”: not in that retriever's top {k}.")
        ok = [n for n in names if n in rankings]
        if len(ok) >= 2:
            overlap = pd.DataFrame([[len(set(units[a]) & set(units[b])) for b in ok] for a in ok], index=ok,
                                   columns=ok)
            st.caption(f"Overlap of the top {k} ({unit}s in common)")
            show_table(overlap, width="stretch")
        # why they disagree: one passage that some retrievers rank and others do not, each retriever's reason
        union = list(dict.fromkeys(pid for n in ok for pid in rankings[n]))
        disagree = [pid for pid in union if len({unit_of(pid) in units[n] for n in ok}) > 1]
        if len(ok) >= 2 and disagree:
            why_they_disagree(index, config, question, k, {n: rankings[n] for n in ok}, disagree, titles)

    if "filing-learned" in names:
        about_page_ranker()

    # ---------------------------------------------------------------- the labeled query set
    st.header("Labeled query set")
    if not corpus.queries:
        st.info("This corpus has no labeled queries, so there is nothing to score.")
        st.stop()
    by_page = sum(1 for q in corpus.queries if q.gold_pages)
    dropped = len(corpus.report.questions_left_out)  # a line the file could not score: said, not silently lost
    st.caption(f"{len(corpus.queries)} labeled queries"
               + (f" ({dropped} line{'s' * (dropped > 1)} of the file left out: see the sidebar)" if dropped else "")
               + (f"; {by_page} name their gold by page, and are scored by page: any passage on a gold page is a "
                  "hit, and a page counts once, at its first passage in the ranking." if by_page else "."))
    ks = (1, 3, 5)
    # an evaluation is kept per (corpus, retrievers, parameters): widgets that change none of them
    # (the CI pair, its metric) reuse it instead of evaluating again
    eval_key = (corpus.fingerprint, tuple(names), config)
    evaluations = st.session_state.setdefault("evaluations", {})
    # a link to an evaluated view (eval=1) evaluates again on open
    from_link = asked_by_link("eval", "compare")
    running = st.session_state.get("cmp_job")
    if running is not None and st.session_state.get("cmp_job_key") != eval_key:
        running.cancel()  # its settings are gone from the page: its result would be stale
        st.session_state.pop("cmp_job")
    b1, b2 = st.columns([3, 1])
    asked = b1.button("Evaluate all labeled queries", key="run_eval", type="primary")
    with b2:
        cancel = CancelButton("cmp_job", "cmp_cancel", active="cmp_job" in st.session_state or asked,
                              help="Stop the evaluation after the retriever it is scoring.")
    if (asked or from_link) and eval_key not in evaluations and "cmp_job" not in st.session_state:
        st.session_state["cmp_job"] = evaluation_job(index, names, ks, config)
        st.session_state["cmp_job_key"] = eval_key
    if "cmp_job" in st.session_state:
        evaluated = job_result("cmp_job", cancel)
        if evaluated is not None:
            evaluations.clear()  # keep one: results of other settings are stale on this page
            evaluations[eval_key] = evaluated
            st.session_state["evaluation_count"] = st.session_state.get("evaluation_count", 0) + 1
    else:
        cancel.idle()
    set_params(eval=1 if eval_key in evaluations else None)
    if eval_key not in evaluations:
        set_params(a=None, b=None, metric=None)  # no CI on screen, none in the link
    if eval_key in evaluations:
        result = evaluations[eval_key]
        metrics = metric_names(ks)
        table = pd.DataFrame([{"retriever": n, "method": PLAIN.get(n, n), "kind": "all", **{m: r.means[m] for m in metrics}}
                              for n, r in result.results.items()]
                             + [{"retriever": n, "method": PLAIN.get(n, n), "kind": kind, **{m: v[m] for m in metrics}}
                                for n, r in result.results.items() for kind, v in r.by_kind.items()
                                if len(r.by_kind) > 1])  # one kind is the "all" row again
        show_table(best_in_bold(table, metrics, "kind"), hide_index=True, width="stretch")
        st.caption("The best value of each column, within each group of questions, is in bold.")
        downloads(table, "pathlens-metrics", key="metrics")
        long = table.melt(id_vars=["retriever", "kind"], value_vars=metrics, var_name="metric")
        metric_bars(long[long["kind"] == "all"], key="metrics_chart")

        if len(names) >= 2:
            st.subheader("Paired bootstrap 95% CI")
            a, b, metric = pick_pair(result, names, metrics, any(len(q.gold) > 1 for q in corpus.queries), "ci")
            asked = len(result.results[names[0]].per_query)
            # questions about one document stand or fall together: resample whole documents where there are several
            clusters = doc_clusters(corpus.queries, corpus)
            clustered = clusters is not None
            by_kind = compare_by_kind(result, corpus.queries, a, b, metric, clusters=clusters)
            # the table read out on the metric the CI is about: "the best" only when it leads every other, whichever
            # pair is picked below
            means = {n: result.results[n].means[metric] for n in names}
            unit = "page" if by_page == len(corpus.queries) else "passage"
            said = leader_against_each(means, metric, _leads(result, metric), unit)
            st.info(f"Over the {asked} labeled questions, {said}.")
            rows = [{"queries": kind, "n": n, f"Δ {metric} (A − B)": ci.mean_diff, "95% CI low": ci.low,
                     "95% CI high": ci.high, "verdict": verdict(ci), "P(Δ ≤ 0)": ci.p_not_better}
                    for kind, n, ci in by_kind]
            ci_df = pd.DataFrame(rows)
            show_table(ci_df, hide_index=True, width="stretch")
            how = (f"whole documents ({by_kind[0][2].clusters} groups of questions sharing their gold documents), since "
                   "questions about one document stand or fall together" if clustered else "the questions one by one")
            st.caption(f"Resampled 10,000 times: {how}. P(Δ ≤ 0) is the share of resamples in which {a} did no better "
                       f"than {b}: 0 means {a} was ahead in every resample, 1 that it never was.")
            groups = by_kind[0][2].clusters if clustered else asked
            if groups < 10:  # 3 filings resample to few distinct means: an interval touching 0 beside P(Δ ≤ 0) 0.03
                st.warning(f"Only {groups} {'groups' if clustered else 'questions'} to resample: the interval and "
                           "P(Δ ≤ 0) can take few values and say little; add questions about more documents.")
            downloads(ci_df, "pathlens-bootstrap", key="ci")

        st.subheader("Per query")
        extra_fields = sorted({k for q in corpus.queries for k in q.extra})  # an answer, the evidence: shown as given
        # the link beside the question, in view: after the retrievers and the labeled fields it was off screen
        # the corpus as the sidebar's link names it, with an upload's files: a fresh session asks for them, never
        # answering from another corpus ("4 uploaded files" is no name a link is read by)
        room = {k: st.query_params[k] for k in ("corpus", "files") if k in st.query_params} or {"corpus": corpus.name}
        per = pd.DataFrame([{"id": q.id, "kind": q.kind, "question": q.text,
                             "open": "/?" + urlencode({**room, "q": q.text,
                                                       "retriever": names[0] if names[0] != "rrf" else "bm25"}),
                             **{n: result.results[n].per_query[q.id]["mrr"] for n in names},
                             **{f: field_words(q.extra.get(f, ""), titles) for f in extra_fields}}
                            for q in corpus.queries])
        st.caption("Reciprocal rank of the first gold passage per retriever; “open” shows the query on the Query page.")
        show_table(per, hide_index=True, width="stretch",
                     column_config={"open": st.column_config.LinkColumn("open", display_text="open in Query")})
        downloads(per, "pathlens-per-query", key="perq")
