"""What an analyst would name about a candidate page, as numbers a learned ranker weighs (`engine.rank.learned`).

The filings retriever's walk finds the right filing and a pool of its pages; which page of the pool answers is
what the walk is worst at (docs/filings.md): statements and boilerplate outrank the MD&A page that gives the
drivers, the risk factors, or the note. The features say, for each candidate page:
- how the walk reached it: its score against the pool's best, and each seed kind's share (the scope's structure,
  the question's names, the passages like the question);
- how its words and meaning match the question: BM25 and dense similarity of its best passage, BM25 over its
  context (the filing, its Item, note or statement), and the share of the question's words it prints, each weighed
  by how few pool pages print it ("Intelligent Cloud", "margin", "EMEA": what a statement page lacks);
- what the question asks for against what the page is: drivers × an MD&A page, risk × Item 1A, a figure × a
  statement, …: each pair its own named feature, so a part of a score reads as a reason;
- boilerplate (signatures, subsidiary lists, exhibit indexes, certifications, the stock-performance graph, a page
  that only points elsewhere), a parent-only statement, figures per word, the lexicon's rows it holds, and its place
  in the filing;
- whether it lies in the note, Item or statement the question names, and on the statement its figure is in.

Every feature is a plain number of one page and one question; no feature names a company or a filing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from ..filings.scope import BREAKDOWN, DRIVERS
from ..filings.structure import PARENT_ONLY, FilingStructure
from ..ingest.passage import Passage, page_ref
from ..text import STOPWORDS, normalize_name

# What a question asks for, by its words. A question may ask for several (a figure and its drivers).
ASKS: dict[str, re.Pattern] = {
    "figure": re.compile(r"\b(?:how much|how many|what (?:was|were|is|are) (?:the |its |their )?(?:total|net|amount|value)"
                         r"|revenue|sales|income|earnings|margin|capex|capital expenditure|cash|assets|liabilit|debt|"
                         r"ratio|expense|eps|in (?:usd|millions|billions)|\$)", re.IGNORECASE),
    "drivers": DRIVERS,
    "risk": re.compile(r"\b(?:risks?|cyclical\w*|dependen\w*|depend on|exposed|vulnerab\w*|threats?|uncertaint\w*)\b",
                       re.IGNORECASE),
    "business": re.compile(r"\b(?:customers?|clients?|segments?|geograph\w*|products?|employees?|headcount|workforce"
                           r"|competitors?|competition|business model|operat(?:e|es) in|what does)\b", re.IGNORECASE),
    "legal": re.compile(r"\b(?:litigation|lawsuits?|legal|proceedings?|settlements?|contingen\w*|investigations?|antitrust"
                        r"|class action|court|regulatory matters?)\b", re.IGNORECASE),
    "guidance": re.compile(r"\b(?:guidance|outlook|forecast\w*|expects?|expected|anticipat\w*|next (?:fiscal )?(?:year|quarter)"
                           r"|targets?)\b", re.IGNORECASE),
    "per share": re.compile(r"\b(?:per share|eps|book value|dividends? per|liquidat\w*|each shareholder|share count"
                            r"|shares outstanding|diluted)\b", re.IGNORECASE),
    "cover": re.compile(r"\b(?:trading symbols?|ticker|stock exchange|exchange|listed|registered|debt securities"
                        r"|filer|par value)\b", re.IGNORECASE),
    "a part": BREAKDOWN,  # a segment's, a region's or a channel's share of a line item: MD&A and the segment note
    "signer": re.compile(r"\b(?:signed|signs|signatory|signature|signing)\b", re.IGNORECASE),
}

# What a page is, from the filing's structure (Items by Regulation S-K's numbering) and its form.
PAGE_KINDS = ("statement", "note", "MD&A", "Item 1 business", "Item 1A risk factors", "Item 3 legal proceedings",
              "Item 5 market", "cover", "earnings release", "boilerplate")
# an Item's kind by its title, which says the same in a 10-K and a 10-Q; a 10-Q numbers its Items again in Part II
# (Part I Item 1 is its financial statements, Part II Item 1 its legal proceedings), so only a 10-K's number is read
# where the title says nothing these know
_ITEM_TITLE_KIND = ((re.compile(r"legal proceedings", re.IGNORECASE), "Item 3 legal proceedings"),
                    (re.compile(r"risk factors", re.IGNORECASE), "Item 1A risk factors"),
                    (re.compile(r"management['’]?s discussion|quantitative and qualitative disclosures",
                                re.IGNORECASE), "MD&A"),
                    (re.compile(r"market for (?:the )?registrant", re.IGNORECASE), "Item 5 market"),
                    (re.compile(r"^\s*business\s*$", re.IGNORECASE), "Item 1 business"))
_ITEM_KIND = {"1": "Item 1 business", "1A": "Item 1A risk factors", "3": "Item 3 legal proceedings",
              "5": "Item 5 market", "7": "MD&A", "7A": "MD&A"}


def item_kind(title: str, number: str, form: str) -> str | None:
    """The page kind of an Item, by its title ("Item 1. Condensed Consolidated Financial Statements" in a 10-Q is
    none of these), else by a 10-K's Item number."""
    for pattern, kind in _ITEM_TITLE_KIND:
        if pattern.search(title):
            return kind
    return _ITEM_KIND.get(number) if form == "10-K" else None


# each ask, the page kinds an analyst expects its answer on: one named feature a pair
PAIRS = (("figure", "statement"), ("figure", "note"), ("figure", "MD&A"), ("figure", "earnings release"),
         ("drivers", "MD&A"), ("drivers", "earnings release"), ("drivers", "statement"),
         ("risk", "Item 1A risk factors"), ("business", "Item 1 business"), ("business", "note"),
         ("legal", "note"), ("legal", "Item 3 legal proceedings"), ("guidance", "earnings release"),
         ("guidance", "MD&A"), ("per share", "statement"), ("per share", "Item 5 market"), ("cover", "cover"),
         ("a part", "statement"), ("a part", "MD&A"), ("a part", "note"), ("signer", "boilerplate"))

# Boilerplate by its own words: pages a filing must carry that answer no analyst's question.
_BOILERPLATE = (
    re.compile(r"pursuant to the requirements of (?:section 13|the securities exchange act)[\s\S]{0,400}?signed",
               re.IGNORECASE),
    re.compile(r"\bsubsidiaries of (?:the registrant|[A-Z][\w.,&' ]{2,40})\b|jurisdiction of (?:incorporation|organization)",
               re.IGNORECASE),
    re.compile(r"\bexhibit\s+(?:index|no\.?|number)\b", re.IGNORECASE),
    re.compile(r"\bcertif(?:y|ication)[\s\S]{0,200}?(?:sarbanes|section (?:302|906)|rule 13a-14)", re.IGNORECASE),
    re.compile(r"\bcumulative total (?:shareholder|stockholder)s?['’]? return|\bperformance graph\b", re.IGNORECASE),
    re.compile(r"\btable of contents\b", re.IGNORECASE),
)
_POINTER = re.compile(r"\bincorporated (?:herein )?by reference\b|\b(?:see|refer to|is included in|are included in|"
                      r"described in|discussed in)\s+(?:the\s+)?(?:note|item|part)\s+\w+", re.IGNORECASE)
_FIGURE = re.compile(r"(?<![\w.])\(?\$?\d{1,3}(?:,\d{3})+(?:\.\d+)?\)?|(?<![\w.,])\d+\.\d+%?|(?<![\w.,])\d+%")
_COVER = re.compile(r"securities registered pursuant to section 12|commission file number|exact name of registrant",
                    re.IGNORECASE)

# Each feature in words a reader who never heard of PageRank or BM25 reads (the parts chart's labels); "the graph
# search" is the walk over the filings' structure, "passages worded like the question" its dense passage seeds.
WALK_FEATURES = ("how strongly the graph search reached it (1: the best page)", "its rank in the graph search",
                 "reached from the question's company and period", "reached from the names in the question",
                 "reached from passages worded like the question")
MATCH_FEATURES = ("its words match the question's", "its meaning is close to the question's",
                  "the question's words in its headings", "the question's rarer words on it")
PAGE_FEATURES = ("a boilerplate page (signatures, exhibit list, …)", "a page that only points elsewhere",
                 "the parent company's own statement, not the group's", "how much of it is figures",
                 "table rows the question names", "how far into the filing (0 start, 1 end)")
# the sections a question names ("Note 11 — Postemployment Benefits", "risk factors", "the cash flow statement") and
# the statement its words ask for ("cash and cash equivalents": the balance sheet), against the page's own sections
NAMED_FEATURES = ("in the note, Item or statement the question names", "on the statement the question's figure is in")
# how a bar of the chart names a page kind and an ask
KIND_WORDS = {"statement": "statement page", "note": "note page", "MD&A": "MD&A page",
              "Item 1 business": "Item 1 (business) page", "Item 1A risk factors": "Item 1A (risk factors) page",
              "Item 3 legal proceedings": "Item 3 (legal) page", "Item 5 market": "Item 5 (stock market) page",
              "cover": "cover page", "earnings release": "earnings-release page", "boilerplate": "boilerplate page"}
ASK_WORDS = {"figure": "a figure", "drivers": "drivers", "risk": "risks", "business": "the business",
             "legal": "legal matters", "guidance": "guidance", "per share": "a per-share figure",
             "cover": "cover facts", "a part": "a segment's or region's part", "signer": "who signed"}


def _on(kind: str) -> str:
    words = KIND_WORDS[kind]
    return ("an " if words[0].upper() in "AEIOU" or words.startswith("MD&A") else "a ") + words  # "an MD&A page"


FEATURES = (WALK_FEATURES + MATCH_FEATURES + tuple(KIND_WORDS[k] for k in PAGE_KINDS)
            + tuple(f"asks for {ASK_WORDS[a]}, on {_on(k)}" for a, k in PAIRS) + PAGE_FEATURES + NAMED_FEATURES)


def asks(question: str) -> frozenset[str]:
    """What a question asks for, by its words ("What drove Nike's gross margin?" asks for drivers and a figure)."""
    return frozenset(a for a, pattern in ASKS.items() if pattern.search(question))


@dataclass(frozen=True)
class PageFacts:
    """What a page is, read once per room: its kinds, its context's words, and its text's boilerplate marks."""

    kinds: frozenset[str]
    context: str  # "Nike FY2019 10-K Item 7. Management's Discussion … Note 8 — Debt": what BM25 over context reads
    boilerplate: bool
    pointer_only: bool
    parent_only: bool
    figures_per_word: float
    place: float  # the page's number over the filing's last page: 0 at the cover, 1 at the end
    nodes: frozenset[int]  # the structure nodes its passages touch


def page_facts(passages: Sequence[Passage], structure: FilingStructure) -> dict[str, PageFacts]:
    """Every page of the room's filings (by `doc#pN` key), read off its passages and the filings' structure."""
    rows_of: dict[str, list[int]] = {}
    for i, p in enumerate(passages):
        key = at.key if (at := page_ref(p)) else None
        if key is not None and p.doc_id in structure.filings:
            rows_of.setdefault(key, []).append(i)
    touched: dict[int, set[int]] = {}
    for row, node, edge in structure.edges:
        if edge in ("section", "line item"):
            touched.setdefault(row, set()).add(node)
    last_page: dict[str, int] = {}
    for key, rows in rows_of.items():
        doc = passages[rows[0]].doc_id
        last_page[doc] = max(last_page.get(doc, 0), page_ref(passages[rows[0]]).page)
    out = {}
    for key, rows in rows_of.items():
        doc = passages[rows[0]].doc_id
        filing = structure.filings[doc]
        text = "\n".join(passages[i].text for i in rows)
        nodes = frozenset(n for i in rows for n in touched.get(i, ()))
        kinds: set[str] = set()
        section_labels: list[str] = []
        for n in sorted(nodes):
            node = structure.nodes[n]
            if node.kind == "statement":
                kinds.add("statement")
                section_labels.append(node.label)
            elif node.kind == "note":
                kinds.add("note")
                section_labels.append(node.label)
            elif node.kind == "item":
                if kind := item_kind(node.label.split(". ", 1)[-1], node.ref, filing.form):
                    kinds.add(kind)
                section_labels.append(node.label)
        page = page_ref(passages[rows[0]]).page
        if filing.form == "earnings release":
            kinds.add("earnings release")
        if page <= 3 and _COVER.search(text):
            kinds.add("cover")
        boiler = any(p.search(text) for p in _BOILERPLATE) or _contents_listing(text)
        if boiler:
            kinds.add("boilerplate")
        words = len(text.split())
        figures = len(_FIGURE.findall(text))
        pointer = bool(_POINTER.search(text)) and words < 250 and figures < 10
        out[key] = PageFacts(frozenset(kinds), " ".join([filing.label, *section_labels]), boiler, pointer,
                             bool(PARENT_ONLY.search(text)), figures / (words + 1),
                             page / last_page[doc] if last_page[doc] else 0.0, nodes)
    return out


# a line of a contents listing: a title, then the page it starts on ("(e) CHIEF FINANCIAL OFFICER 22")
_LISTED = re.compile(r"^(.{3,90}?[A-Za-z].*?)\s(\d{1,3})$")


def _contents_listing(text: str) -> bool:
    """A table of contents' page past its heading (a bylaws' contents, continued): most of its lines, and at least
    eight, name a title and a page, and the pages never go back (a statement's small figures do)."""
    # each line once: a page's passages overlap, and a line read twice would seem to turn back
    lines = list(dict.fromkeys(line.strip() for line in text.splitlines() if line.strip()))
    pages = [int(m.group(2)) for line in lines if (m := _LISTED.match(line))]
    return (len(pages) >= 8 and len(pages) >= 0.6 * len(lines)
            and all(a <= b for a, b in zip(pages, pages[1:])))


@dataclass(frozen=True, eq=False)
class Candidates:
    """One question's candidate pages and their features (rows in `FEATURES` order)."""

    pages: tuple[str, ...]  # `doc#pN` keys, in the walk's order
    passage_ids: tuple[str, ...]  # each page's best passage by the walk: what a hit cites
    walk_scores: np.ndarray
    x: np.ndarray  # (pages, len(FEATURES))


def feature_rows(question: str, pages: Sequence[str], facts: Mapping[str, PageFacts], walk_scores: np.ndarray,
                 shares: np.ndarray, bm25_best: np.ndarray, dense_best: np.ndarray, context_bm25: np.ndarray,
                 rare_words: np.ndarray, lexicon_rows: frozenset[int], named: frozenset[int] = frozenset(),
                 statements: frozenset[int] = frozenset()) -> np.ndarray:
    """The feature matrix of a question's candidate pages. `shares` (pages, 3) is each seed kind's part of the walk
    score over that score; `bm25_best` and `context_bm25` are scaled to the pool's best (1 the best, 0 none);
    `dense_best` is a cosine; `rare_words` is `rare_word_shares`; `lexicon_rows` the structure nodes the question's
    lexicon terms seed; `named` the notes, Items and statements it names; `statements` the statements its
    scope reads (named, or implied by its terms)."""
    asked = asks(question)
    top = float(walk_scores.max()) if walk_scores.size else 0.0
    x = np.zeros((len(pages), len(FEATURES)))
    for r, key in enumerate(pages):
        f = facts.get(key)
        kinds = f.kinds if f else frozenset()
        row = [walk_scores[r] / top if top > 0 else 0.0, 1.0 / (r + 1), *shares[r],
               bm25_best[r], dense_best[r], context_bm25[r], rare_words[r]]
        row += [1.0 if k in kinds else 0.0 for k in PAGE_KINDS]
        row += [1.0 if a in asked and k in kinds else 0.0 for a, k in PAIRS]
        row += [float(f.boilerplate) if f else 0.0, float(f.pointer_only) if f else 0.0,
                float(f.parent_only) if f else 0.0, f.figures_per_word if f else 0.0,
                float(len(f.nodes & lexicon_rows)) if f else 0.0, f.place if f else 0.0,
                float(bool(f.nodes & named)) if f else 0.0, float(bool(f.nodes & statements)) if f else 0.0]
        x[r] = row
    return x


def context_words(text: str) -> list[str]:
    return normalize_name(text).split()


# a word's first letters stand for it: "competitors" meets "competition" and "competitive", "memberships"
# "membership" (truncation stemming); 7 read best of 6, 7 and a plural's s dropped, by cross-validation on the
# tuning halves (docs/filings.md)
PREFIX = 7


def content_words(text: str) -> frozenset[str]:
    """A text's words as the rarer-words feature compares them: folded, no stop word, no figure or period ("2022",
    "fy22"), each cut to its first PREFIX letters."""
    words = set()
    for t in normalize_name(text).split():
        if len(t) >= 3 and t not in STOPWORDS and not any(c.isdigit() for c in t):
            words.add(t[:PREFIX])
    return frozenset(words)


def rare_word_shares(question_words: frozenset[str], page_words: Sequence[frozenset[str]]) -> np.ndarray:
    """Each page's share of the question's words, each word weighed by how few of these pages print it:
    log(1 + pages / pages printing it), so a word every candidate prints ("revenue" in a revenue question) weighs
    least and the one only the answering pages print ("margin", "EMEA") most. Words no page prints weigh nothing."""
    n = len(page_words)
    # in sorted order: a set's order follows the process's hash seed, and float sums follow their order
    df = {t: sum(t in words for words in page_words) for t in sorted(question_words)}
    weight = {t: float(np.log1p(n / d)) for t, d in df.items() if d}
    total = sum(weight.values())
    if not total:
        return np.zeros(n)
    return np.array([sum(w for t, w in weight.items() if t in words) / total for words in page_words])


__all__ = ["ASKS", "ASK_WORDS", "KIND_WORDS", "Candidates", "FEATURES", "NAMED_FEATURES", "PAGE_KINDS", "PAIRS",
           "PageFacts", "asks", "content_words", "context_words", "feature_rows", "item_kind", "page_facts",
           "rare_word_shares"]
