"""Corpus & graph: passages, documents, labeled queries, both entity graphs, the filter, aliases."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict

import pandas as pd
import streamlit as st

from engine.catalog import default_retriever, stages_for
from engine.explain.entity_notes import largest_entities
from engine.filings.identity import identity_row
from engine.components import BUILDERS, COMPONENTS, key as component_key
from engine.ingest.textfiles import MAX_FILE_BYTES
from engine.ingest.documents import MAX_PAGE_CHARS, MAX_PDF_PAGES, left_out_files
from engine.ingest.zips import MAX_ZIP_FILES
from engine.indexing.background import running
from engine.ingest.isolated import ReadLimits
from ui.builds import ensure, fresh_area, planned_work, still_to_build
from ui.staged import show_room_build
from ui.corpora import UPLOAD, UPLOAD_TYPES, left_out_words, use_uploaded
from ui.frame import frame
from ui.render import downloads, escape_markdown, show_table
from ui.url_state import param, set_params

LIMITS = ReadLimits.from_env()
st.title("Corpus & graph")
index = frame()
# the page's own way in for a user's documents: they become the corpus of every page, as a sidebar upload does.
# Once uploads are the corpus the sidebar holds their uploader, so the page draws no second one
if st.session_state.get("corpus_selected") == UPLOAD:
    st.caption("Your uploaded files are the corpus of every page: add or replace them in the sidebar.")
else:
    st.file_uploader("Add your own documents: PDF, Word, HTML, text, a .zip of them, or .jsonl passages",
                     type=UPLOAD_TYPES, accept_multiple_files=True, key="corpus_page_upload", on_change=use_uploaded,
                     args=("corpus_page_upload",),
                     help="They replace the corpus shown on every page for this session; PDF passages cite their page. "
                          "A queries.jsonl among them supplies labeled questions.")
if st.session_state.get("upload_error"):
    st.error(st.session_state.pop("upload_error"))
if index is None:
    st.stop()
corpus = index.corpus

docs = Counter(p.doc_id for p in corpus.passages)
m1, m2, m3 = st.columns(3)
m1.metric("Passages", f"{len(corpus):,}")
m2.metric("Documents", f"{len(docs):,}")
m3.metric("Labeled queries", f"{len(corpus.queries):,}")

st.caption(f"Files you bring: up to {MAX_FILE_BYTES // 1024 ** 2} MB each (uploads and folders alike); a PDF is read "
           f"to {MAX_PDF_PAGES:,} pages and {MAX_PAGE_CHARS:,} characters a page, a zip to {MAX_ZIP_FILES:,} files; each "
           f"document is read in a worker process of its own, within {LIMITS.seconds:g} s and "
           f"{LIMITS.memory_bytes // 1024 ** 3:g} GiB. A file or page past a limit, or damaged, is named under "
           "Documents and the rest is kept.")
report = corpus.report
if report.skipped:
    st.warning(left_out_words(*left_out_files(report.skipped, docs)))
tab_p, tab_d, tab_q = st.tabs(["Passages", "Documents", "Labeled queries"])
with tab_p:
    # what a reader scans first (the title, then the text) at the left; the ids a link or an export needs after
    passages = pd.DataFrame([{"title": p.title, "text": p.text, "characters": len(p.text), "document": p.doc_id,
                              "passage_id": p.id} for p in corpus.passages])
    show_table(passages, {"title": st.column_config.TextColumn(width="large"),
                          "text": st.column_config.TextColumn(width="large")},
               hide_index=True, width="stretch", height=320)
    downloads(passages, "pathlens-passages", key="passages")
with tab_d:
    labels = index.filing_labels()  # a filing as its hits name it ("PG&E Q1 FY2023 earnings release"), not its file
    titles = {p.doc_id: labels.get(p.doc_id) or p.title for p in corpus.passages}
    # page counts are numbers (aligned as such); documents without pages (text, Markdown) leave the cell empty
    pages_of = {p.doc_id: int(p.metadata["pages"]) for p in corpus.passages if "pages" in p.metadata}
    documents = pd.DataFrame([{"document": d, "title": titles[d], "pages": pages_of.get(d), "passages": n}
                              for d, n in docs.items()])
    documents["pages"] = documents["pages"].astype("Int64")
    show_table(documents, hide_index=True, width="stretch")
    if pages_of:
        st.subheader("Who filed each")
        st.caption("Read off each filing's own cover or release, the file name last; the question's company, year "
                   "and form are matched against these (`python -m engine filings` prints the same).")
        identities = [identity_row(f) for _, f in sorted(index.structure().filings.items())]
        show_table(pd.DataFrame([{"document": r["doc"], "company": r["company"] or "unknown", "form": r["form"] or "unknown",
                                  # a 10-K has no quarter: a dash, not the word None
                                  "fiscal year": r["fiscal_year"], "quarter": f"Q{r['quarter']}" if r["quarter"] else "—",
                                  "period end": r["period_end"], "names it answers to": ", ".join(r["names"] + r["symbols"])}
                                 for r in identities]),
                   wide=("names it answers to",), hide_index=True, width="stretch")  # a cell was cut off (walk 12)
        # one row a field, so no rule is cut off in a narrow column (a sentence a filing was, even in full screen)
        st.caption("Where each field was read: the page (blank: the file name, or a default) and the rule that read it.")
        show_table(pd.DataFrame([{"document": r["doc"], "field": x["field"].replace("_", " "),
                                  "page": x["page"] or None, "rule": x["rule"]}
                                 for r in identities for x in r["read_from"]]).astype({"page": "Int64"}),
                   column_config={"rule": st.column_config.Column(  # the glossary's "rule" is a seed's
                       help="What on the page gave the field, or the file name", width="large")},
                   hide_index=True, width="stretch")
    if report.skipped:
        st.subheader("Left out")  # in full sentences: a table's cell cut the reason off (three walk-throughs)
        st.markdown("\n".join(f"- **{escape_markdown(p.file)}**: {escape_markdown(p.message)}" for p in report.skipped))
    if report.dropped:
        st.subheader("Running headers, footers and page numbers dropped")
        st.caption("Lines at the top or bottom of a page that recur on many pages of a document (page numbers "
                   "included) are taken out, so they do not make pages look alike to the retrievers.")
        show_table(pd.DataFrame([{"document": d.file, "line (first seen)": d.example, "pages": d.pages}
                                 for d in report.dropped]), hide_index=True, width="stretch")
with tab_q:
    if corpus.queries:
        queries = pd.DataFrame([{"id": q.id, "kind": q.kind, "question": q.text,
                                 "gold": ", ".join(q.gold_pages or q.gold)}
                                for q in corpus.queries])
        show_table(queries, hide_index=True, width="stretch")
        downloads(queries, "pathlens-queries", key="queries")
    else:
        st.caption("This corpus has no labeled queries.")

REGEX = [component_key(part, "regex") for part in ("extraction", "graph")]
# the regex graph takes seconds: built before the build table draws, so the table and every sentence below it read
# one status (NER's graph is shown once built, or asked for below)
if not ensure(index, REGEX, purpose="its regex entity graph"):
    st.stop()
st.header("Index build")
st.caption("What each retriever is built from, stage by stage. Each retriever answers once its own stages are "
           "built; until then the Query page answers with one that is ready and says so.")
show_room_build(index)

st.header("Entity graph")
with fresh_area(index, REGEX, "corpus"):  # no stale graph under a build
    # "ready" means ready for this page: say what the Query page's first question will still build
    opening = default_retriever(corpus.paged)
    still = [s for s in stages_for([opening]) if COMPONENTS[s].slow and not index.stored(s)]
    if still:
        building = any(set(still) & set(job.stages) for job in running(index))
        st.info(still_to_build(opening, still, planned_work(index, still), building))
    shown = [b for b in BUILDERS if index.stored(component_key("graph", b))]
    builder_stats = {b: index.graph(b).stats(top=15) for b in shown}
    both = pd.DataFrame([{"builder": b, "raw mentions": index.extraction(b).raw_mentions,
                          "kept entities": index.extraction(b).kept, "edges": builder_stats[b].edges,
                          "isolated passages": builder_stats[b].isolated_passages,
                          "mean passage degree": round(builder_stats[b].passage_degree["mean"], 2)}
                         for b in shown])
    show_table(both, hide_index=True, width="stretch")
    if len(shown) < len(BUILDERS):
        st.caption("The ner graph is not built yet: choose it below to build it now (spaCy reads every passage), or "
                   "use “Build the rest now” above.")
    downloads(both, "pathlens-builders", key="builders")
    builder = st.radio("Graph builder", BUILDERS, horizontal=True, key="builder",
                       index=BUILDERS.index(param("builder", "regex")) if param("builder", "regex") in BUILDERS else 0,
                       help="regex: capitalised names, tickers, hyphenated and defined terms · ner: spaCy en_core_web_sm "
                            "entities after the filter")
    set_params(builder=builder)
    graphed = component_key("graph", builder) in index.built()  # then only its aliases are built: said so, not
    if not ensure(index, [component_key(part, builder) for part in ("extraction", "graph", "aliases")],  # a 2nd graph
                  purpose=f"the {builder} graph's aliases (BCT)" if graphed else f"its {builder} entity graph"):
        st.stop()
    ex, graph, aliases = index.extraction(builder), index.graph(builder), index.aliases(builder)
    stats = builder_stats[builder] if builder in builder_stats else graph.stats(top=15)

    s1, s2, s3, s4 = st.columns(4)
    s1.metric("Entities", f"{stats.entities:,}")
    s2.metric("Edges", f"{stats.edges:,}")
    s3.metric("Isolated passages", f"{stats.isolated_passages:,}")
    s4.metric("Mean passage degree", f"{stats.passage_degree['mean']:.1f}")
    if stats.edges == 0:
        st.warning(f"The {builder} builder found no entity in any passage: the graph retrievers are disabled for this "
                   "corpus. BM25, TF-IDF and dense retrieval still work.")

    st.subheader("Extraction filter")
    f1, f2, f3 = st.columns(3)
    f1.metric("Raw mentions", f"{ex.raw_mentions:,}")
    f2.metric("Distinct raw names", f"{ex.raw_unique:,}")
    f3.metric("Kept entities", f"{ex.kept:,}")
    st.caption(ex.count_words())
    dropped = pd.DataFrame([{"reason": r, "distinct names dropped": n, "examples": " · ".join(ex.dropped_examples[r])}
                            for r, n in ex.dropped.items()])
    if len(dropped):
        show_table(dropped, hide_index=True, width="stretch")
        downloads(dropped, f"pathlens-dropped-{builder}", key="dropped")
    else:
        st.caption("Nothing was dropped.")

    st.subheader("Largest entities")  # the page's width: its reasons are sentences (cut off in half of it)
    largest = pd.DataFrame([(n.entity, n.passages, n.note) for n in largest_entities(graph, index.graph_texts, 15)],
                           columns=["entity", "passages", "why it is large"])
    show_table(largest, hide_index=True, width="stretch",
               widths={"entity": 240, "passages": 70, "why it is large": 640})
    downloads(largest, f"pathlens-largest-{builder}", key="largest")
    st.subheader("Degrees")
    show_table(pd.DataFrame({"passages": stats.passage_degree, "entities": stats.entity_degree}).T, width="stretch")

    st.subheader("Alias table (BCT)")
    position = graph.entity_index
    alias_df = pd.DataFrame([{**asdict(a), "entity": graph.display[position[a.entity]],
                              "alias": graph.display[position[a.alias]]} for a in aliases.rows],
                            columns=["entity", "alias", "rule", "passage_id"])
    show_table(alias_df, hide_index=True, width="stretch", height=260)
    downloads(alias_df, f"pathlens-aliases-{builder}", key="aliases")

    st.subheader("Find an entity")
    needle = st.text_input("Entity name (or part of one)", key="entity_search")
    if needle.strip():
        matches = graph.find_entities(needle)
        if not matches:
            st.warning(f"No {builder} entity contains “{needle}”.")
        else:
            pick = st.selectbox("Entity", matches, format_func=lambda j: graph.display[j], key="entity_pick")
            rows = graph.passages_of(pick)
            st.markdown(f"**{graph.display[pick]}** appears in {len(rows)} passage(s).")
            show_table(pd.DataFrame([{"passage_id": graph.passage_ids[i], "text": corpus.passages[i].text[:300]}
                                       for i in rows]), hide_index=True, width="stretch")
            st.markdown("Neighbours (entities sharing passages with it):")
            show_table(pd.DataFrame([{"entity": graph.display[j], "shared passages": n}
                                     for j, n in graph.co_occurring(pick)]), hide_index=True, width="stretch")
