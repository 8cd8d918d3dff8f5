"""Words for everything the dashboard shows: one definition per metric, parameter, column and
label, written for a reader who has never heard of PageRank. The pages show it in the sidebar
and as column tooltips; a test checks that every column and widget label the pages show has
an entry here.
"""

from __future__ import annotations

import re

from ..catalog import CATALOG, EDGE_PARAMS, PARAMS

TERMS: dict[str, str] = {
    # ---- retrieval and the graph
    "PPR": "Personalized PageRank: a random walk over the entity–passage graph that keeps jumping back to the "
           "question's seeds. A passage's score is how often the walk stands on it.",
    "seed": "Where the walk restarts: an entity named in the question, an alias of one, or (for the hybrids) a "
            "passage that dense similarity finds close to the question.",
    "rule": "Why an entity became a seed. extracted: the extractor found the name in the question; containment: a "
            "name in the question sits inside or around a graph entity; vocabulary: a graph entity's name occurs "
            "in the question; alias (…): BCT added it as an alias of a seed.",
    "weight": "A seed's share of the restart mass (all weights sum to 1); for RRF, how many times a member's votes "
              "count.",
    "passages": "How many passages an entity occurs in. Seeds weigh 1 / this (specificity), so a generic name "
                "such as “Fund” weighs little.",
    "from": "The name in the question that a seed came from, or the seed an alias belongs to.",
    "passage seeds": "Hybrid retrievers: the passages most similar to the question, where the walk also restarts.",
    "cosine": "Dense similarity between the question and a passage or sentence (1 = same meaning).",
    "seed shares": "How much of a passage's score each seed contributed; exact, because PageRank is linear in its "
                   "seeds.",
    "evidence paths": "The heaviest routes the walk took from a seed to the passage (seed → passage → shared entity "
                      "→ passage), with the probability mass each carries.",
    "its score": "The sentence under a hit: where its score comes from, in shares that add up to 100%. “its "
                 "similarity to the question”: the hit is itself one of the passages closest in meaning, where the "
                 "walk restarts; “the name X”: the walk restarts at X, which the hit holds (in a filing, “the statement X”, "
                 "“the note X”, “the section X”, “the table row X”, “the company X” or “the filing X” name a part "
                 "of the filing the question points to); “passages like the "
                 "question that share a name with it”: the walk restarts at passages close to the question and "
                 "crosses to the hit through a name both hold; “from X by way of other passages”: the walk starts "
                 "at X, which the hit does not hold, and reaches it through other passages (the strongest route "
                 "is named); “the second hop”: the names the first walk's best passages held seed a second walk.",
    "path mass": "The probability that the walk, starting at the seed, follows exactly that path.",
    "BCT": "Coreference-aware alias seeding (the Aethel paper's name): a seed also seeds its aliases — defined "
           "terms such as “the Fund”, nested names, acronyms — at weight β.",
    "vocabulary seeding": "Also seed every graph entity whose name occurs in the question, in any case and "
                          "without accents; off, only the names the extractor finds seed the walk.",
    "α": "Restart probability: each step the walk jumps back to a seed with probability α. Larger keeps scores "
         "near the seeds.",
    "β": "BCT's alias weight: an alias seeds at β times the weight of the entity it belongs to.",
    "w": "Hybrid retrievers: the share of the restart mass put on passage seeds; the rest goes to entity seeds.",
    "τ": "Hybrid retrievers: the temperature of the softmax over passage seeds' similarities; smaller favours the "
         "most similar passage more.",
    "λ": "Hybrid retrievers: the share of passage seeds taken from BM25's best passages instead of dense "
         "similarity's.",
    "γ": "Hybrid retrievers: the share of the restart mass given to a second walk, seeded on the names that the "
         "first walk's top passages hold and the question does not (the next link of a chain). 0: one walk; it "
         "starts at 0.6 where passages are each about one thing.",
    "Follow bridges": "Hybrid retrievers: walk a second time from the names the first walk's best passages hold "
                      "and the question does not (the bridges to the next link of a chain), with share γ. On by "
                      "default where passages are each about one thing (most with a title of their own).",
    "t": "Entity graphs: the weight of an about-edge (between a name and the passage about it) against a mere "
         "mention's 1. 1: every edge alike.",
    "about-edge": "The link between a name and the passage about it: a passage whose own title names it, when no "
                  "other passage shares that title (an encyclopedia article, not one chunk of a long report). An "
                  "evidence path that uses one says “(about it)” after the passage.",
    "second hop": "A seed found by a first walk: a name that one of its top passages holds and the question does "
                  "not. A second walk starts there; the table says which passage named it.",
    "RRF k": "Reciprocal Rank Fusion's constant: each member votes weight / (k + rank) for a passage, so a larger k "
             "flattens the difference between ranks.",
    **{PARAMS[name].label: PARAMS[name].help for name in EDGE_PARAMS},
    "iteration cap": "How many steps of the walk are computed at most.",
    "tolerance": "Stop the walk early once a step changes the scores by less than this in total (L1).",
    "residual": "How much one step changed the scores; it shrinks by about (1 − α) per step.",
    "k": "How many passages are shown, or the cut-off of a metric (the top k).",
    "RRF": "Reciprocal Rank Fusion: each member retriever votes weight / (60 + rank) for each passage it ranks; "
           "passages are ordered by their summed votes.",
    "RRF members": "The retrievers whose rankings RRF fuses.",
    "weight of a member": "Weighted RRF: that member's votes count this many times.",
    "retriever": "A way of ranking passages for a question; see each retriever's name.",
    "method": "What a retriever ranks by, in words: word match (bm25), meaning match (dense), a graph of the "
              "names the passages share, or several of these.",
    "graph builder": "How entities are found in passages: regex (capitalised names, tickers, defined terms) or "
                     "ner (spaCy's named-entity recogniser).",
    "stage": "One part of a room's index, built once and kept on disk: the words (tokens), the names found by "
             "each extractor and their graph, and the dense embeddings. Each retriever is built from some of them.",
    "state": "Where a stage of the index is: built, in progress (how many passages are done and the time left), "
             "or to come.",
    "entity": "A name found in the corpus (a company, fund, person, place, defined term); a node of the graph.",
    "alias": "Another name of the same entity (a defined term, a shorter or longer name, an acronym).",
    # ---- metrics
    "HR@k": "Hit rate at k: the share of questions with at least one gold passage in the top k.",
    "MRR": "Mean reciprocal rank: the average of 1 / the rank of the first gold passage (0 if none in the top 10).",
    "Recall@k": "The share of a question's gold passages found in the top k, averaged over questions.",
    "All@k": "The share of questions whose gold passages are all in the top k (what a multi-hop answer needs).",
    "paired-bootstrap CI": "A 95% confidence interval of the difference between two retrievers, from resampling "
                           "the questions 10,000 times with both retrievers' results kept together.",
    "Δ (A − B)": "Retriever A's metric minus retriever B's, over the same questions.",
    "95% CI low": "The lower end of the 95% confidence interval of the difference.",
    "95% CI high": "The upper end of the 95% confidence interval of the difference.",
    "P(Δ ≤ 0)": "The share of bootstrap resamples in which A did not beat B.",
    "Show the whole 0–1 scale": "The sweep chart's metric axis: off, fitted to the values so close lines are told "
                                "apart; on, from 0 to 1.",
    "verdict": "The CI in words: A or B better when the whole 95% interval lies on one side of 0, otherwise not "
               "significant (the interval includes 0).",
    "metric": "What is measured: HR@k, MRR, Recall@k or All@k.",
    "gold": "A passage that a labeled question's answer is in; marked ★ gold.",
    "★ gold": "This passage holds (part of) the labeled answer.",
    "no seed": "A graph retriever found nothing in the question to start from, so it returned no hits.",
    "A": "The first retriever of the compared pair.",
    "B": "The second retriever of the compared pair.",
    "n": "How many questions the row covers.",
    "queries": "Which questions the row covers: all, or one kind.",
    "kind": "The question's kind as its file labels it: single-hop (one passage answers) or multi-hop (the answer "
            "needs passages linked by a shared entity), or any label a file uses (FinanceBench's metrics-generated, "
            "domain-relevant, novel-generated). Every metric is reported per kind.",
    "evidence": "What the labeled question's file says its gold page or passage holds (a figure, a phrase), shown "
                "as the file gives it.",
    "answer": "The answer the labeled question's file gives, shown as it is; it is not scored.",
    "needs": "What a labeled question needs, as its file tags it: year (the right fiscal year among several "
             "filings of one company), note (a statement and the note it points to).",
    "open": "A link that opens the question on the Query page.",
    # ---- corpus and tables
    "corpus": "The collection of passages being searched.",
    "passage": "A chunk of a document: the unit that is retrieved.",
    "passage_id": "A passage's identifier: its file and chunk number.",
    "id": "An identifier.",
    "title": "The title of the passage's document.",
    "text": "The passage's text.",
    "document": "The file a passage comes from.",
    "source": "Where a passage comes from: its document's title (company, form and period for a filing) and, "
              "for a PDF, the page it is on, numbered as a PDF viewer numbers them.",
    "pages": "How many pages a PDF document has (blank for formats without pages), or, for a dropped running "
             "line, on how many pages it was found.",
    "line (first seen)": "A running header, footer or page number as it appeared on the first page that had it.",
    "file": "A file (or a zip member, as zip:member) that was left out, with the reason.",
    "why left out": "Why a file or some of its pages were left out: encrypted, unreadable, no text layer (a scan), "
              "a path outside the zip, too large.",
    "characters": "The passage's length in characters.",
    "rank": "Position in the ranking (1 = best).",
    "score": "The retriever's score; only the order matters, scores of different retrievers do not compare.",
    "question": "A labeled question.",
    "labeled example questions": "Questions with known gold passages, shipped with the corpus.",
    "builder": "The graph builder: regex or ner.",
    "raw mentions": "Names the extractor found before the filter.",
    "kept entities": "Names left after the filter: the graph's entities.",
    "distinct names dropped": "How many different names the filter dropped for this reason.",
    "reason": "Why the filter dropped a name (a number, an OCR fragment, a stop phrase, …).",
    "examples": "A few of the names dropped for this reason.",
    "why it is large": "Why a word a reader may take for a generic one is among the largest entities: the documents "
                       "define it as a name (“the Corporation”), or most of its passages are linked to a longer name "
                       "that holds it: a passage naming “United States” is linked to “United” too.",
    "edges": "Links between a passage and an entity it mentions.",
    "isolated passages": "Passages that mention no entity, which no walk can reach.",
    "mean passage degree": "How many entities a passage mentions, on average.",
    "entity name": "Search the graph's entities by (part of) a name.",
    # ---- evaluation runs
    "sizes": "Corpus sizes the sweep samples; each sample keeps every gold passage.",
    "resamples per size": "How many random samples are drawn at each size.",
    "random seed": "Seed of the random sampling, so a run can be repeated exactly.",
    "mean": "The average over resamples.",
    "min": "The lowest value over resamples.",
    "max": "The highest value over resamples.",
    "median": "The middle value.",
    "format": "The benchmark file's format: MuSiQue, HotpotQA or 2WikiMultiHopQA.",
    "mode": "closed pool: each question searches its own paragraphs; open corpus: all questions search one pool.",
    "file path": "Where the benchmark file is on this machine.",
    "sample size": "How many questions are drawn at random (0 = all).",
    "size": "How many passages the sampled corpus holds.",
    "resamples": "How many random samples were drawn at this size.",
    "value": "The metric's value.",
    "retrievers": "The retrievers to run; see each retriever's name.",
    "BCT alias seeding": "Coreference-aware alias seeding (BCT): the question's entities also seed their aliases — "
                         "defined terms such as “the Fund”, nested names and acronyms — at weight β.",
    "Also seed aliases": "The switch for BCT alias seeding (Advanced settings): the question's entities also seed "
                         "their aliases — defined terms such as “the Fund”, nested names and acronyms — at weight β.",
    "Seed every known name": "The switch for vocabulary seeding (Advanced settings): every graph entity named "
                             "anywhere in the question seeds the walk, weighted by how specific it is. Off: only "
                             "the names the extractor finds, weighted equally, as in the Aethel paper.",
    "Search method": "How the passages are ranked: plain words for the method, then its name in brackets, which "
                     "links, the CLI and the evidence report use (see each retriever's name).",
    "Passages to show": "How many passages are shown (k).",
    "entities": "Names found in the corpus that the graph links to the passages mentioning them.",
    "shared passages": "How many passages mention both entities.",
    "documents": "Files in the corpus.",
    "labeled queries": "Questions with known gold passages.",
    "distinct raw names": "Different names the extractor found before the filter.",
    "passage ranked by some and not others": "Pick a passage that some of the compared retrievers put in their top "
                                             "k and others do not, to read each retriever's reason.",
    "take out entities": "What-if: rank as if the extractor had never found these names; the walk is rerun "
                         "exactly on the graph without them.",
    "take out passages": "What-if: rank as if the corpus lacked these passages.",
    "why": "Why the retriever scored the passage: matched words and their shares (bm25, tfidf), the nearest "
           "sentences (dense), each member's vote (rrf), or the named parts that ranked the page (filing-learned).",
    "how the graph search reached it": "Under a learned page ranker: the shares of the walk that found the page, "
                                       "which ranked it before the ranker reordered the pool.",
}


def _norm(label: str) -> str:
    return " ".join(label.lower().split())


_BY_NORM = {_norm(t): t for t in TERMS}
_METRIC = re.compile(r"^(hr|recall|all)@\d+$")


def lookup(label: str) -> str | None:
    """The glossary term that explains a column name or widget label, or None.

    Metric names with a cut-off ("hr@5") find their @k entry; a label with a parenthesis
    ("α (restart probability)") finds its leading word; a retriever's name finds the catalog's
    description, which is its definition."""
    text = _norm(label)
    if text in _BY_NORM:
        return _BY_NORM[text]
    if text in CATALOG:
        return text
    m = _METRIC.match(text)
    if m:
        return {"hr": "HR@k", "recall": "Recall@k", "all": "All@k"}[m.group(1)]
    if text.startswith("δ ") and text.endswith("(a − b)"):
        return "Δ (A − B)"
    if text.startswith("weight of "):
        return "weight of a member"
    head = re.sub(r"\s*\(.*\)$", "", text)
    return _BY_NORM.get(head) or (head if head in CATALOG else None)


def definition(term: str) -> str:
    return TERMS[term] if term in TERMS else CATALOG[term].description


def entries() -> list[tuple[str, str]]:
    """Every term with its definition, retrievers included, in alphabetical order of their first word ("95% CI high"
    under C: a newcomer opening the glossary meets words before interval bounds)."""
    out = dict(TERMS)
    out.update({name: spec.description for name, spec in CATALOG.items()})
    return sorted(out.items(), key=lambda kv: (re.sub(r"^[\d\W_]+", "", kv[0].lower()), kv[0].lower()))
