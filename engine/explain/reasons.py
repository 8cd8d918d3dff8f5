"""A walk's explanation in a reader's words: passages named by document and page (never by id), routes with the
share of the score they carry (never a raw mass), and one sentence per hit saying what its score owes to what.

The Query page, the evidence report and the demo question's choice all read it, so they say the same thing."""

from __future__ import annotations

import math
from typing import Mapping, Sequence

import numpy as np

from ..filings.graph import NODE_PREFIX
from ..graph.push import PROVEN_TOP
from ..ingest.passage import PageRef
from ..retrieve.graph_explain import EvidencePath, GraphAnswer, HitExplanation
from ..retrieve.page_ranker import POOL, LearnedPageRetriever

SHOWN_SHARE = 0.005  # a part of a score below this is left out of a sentence (it would read "0%")
MAX_LABEL = 30  # characters of a title in a graph label
IN_TEXT = 120  # in running text or a heading: room for a document's whole title


def short(text: str, n: int = MAX_LABEL) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


def short_document(title: str, doc: str) -> str:
    """A document's name in a few words: a filing's identity as the index names it ("McDonald's Q1 FY2023 earnings
    release", a title of one part), else the file-made name ("APPLE 2022 10-K", the last part of a cover's title)
    or the file's stem, capitalised where it shouts, without a trailing "dated …"."""
    if title and " · " not in title:
        return title
    words = (title.split(" · ")[-1] if " · " in title else doc.rsplit(".", 1)[0].replace("_", " ")).split()
    words = words[:words.index("dated")] if "dated" in words else words
    return " ".join(w.capitalize() if w.isalpha() and w.isupper() and len(w) > 3 else w for w in words[:4])


def passage_name(pid: str, titles: Mapping[str, str], width: int = MAX_LABEL) -> str:
    """A passage as a reader tells it from the others: a PDF page leads with the document and page ("Apple 2022
    10-K p.32"); another passage is its document's title (cut to `width`: a graph's label is short, a page's
    heading has room) and which part of the document it is."""
    paged = PageRef.from_id(pid)
    if paged:
        return short_document(titles.get(pid, ""), paged.doc) + f" p.{paged.page}" + (
            f", part {paged.part + 1}" if paged.part else "")
    doc, _, part = pid.rpartition("#")
    name = short(titles.get(pid) or doc or pid, width)
    return name + (f" · part {int(part) + 1}" if doc and part.isdigit() else "")


def field_words(value: str, titles: Mapping[str, str]) -> str:
    """A labeled question's extra field as a person reads it: a map of passage ids (the evidence each passage
    holds, as JSON) by passage names; any other value as written."""
    import json

    try:
        held = json.loads(value)
    except ValueError:
        return value
    if isinstance(held, dict) and held and all(pid in titles for pid in held):
        return "; ".join(f"{passage_name(pid, titles, IN_TEXT)}: “{v}”" for pid, v in held.items())
    return value


def passage_place(pid: str) -> str:
    """Where a passage is, in words: "page 32 of APPLE_2022_10K.pdf" (", part 2" past a page's first passage),
    "part 2 of 06-juniper-peak-ii-q3-2024-lp-report.md"; an id of no known form as it is."""
    paged = PageRef.from_id(pid)
    if paged:
        return f"page {paged.page} of {paged.doc}" + (f", part {paged.part + 1}" if paged.part else "")
    doc, _, part = pid.rpartition("#")
    return f"part {int(part) + 1} of {doc}" if doc and part.isdigit() else pid


def k_past_corpus(k: int, n: int) -> str:
    """What a k past a corpus of n passages gets: every passage the retriever ranks (bm25 ranks only the passages
    that share a word with the question, so not always all n)."""
    return (f"k = {k} is larger than the corpus ({n:,} passage{'s' * (n != 1)}): every passage the retriever ranks "
            "is shown")


def percent(share: float) -> str:
    """A share as a reader reads it: whole percents, "<1%" for a small one that is not nothing."""
    return "<1%" if 0 < share < SHOWN_SHARE else f"{share:.0%}"


def path_words(path: EvidencePath, titles: Mapping[str, str], width: int = IN_TEXT) -> str:
    """A route in words: entities by name, passages by document and page; a passage reached or left along an
    about-edge (its own title names the entity) says so: "Kelly Reichardt → Kelly Reichardt (about it) → …"."""
    about = {i for k, edge in enumerate(path.edges) if edge == "about" for i in (k, k + 1)}
    return " → ".join((passage_name(nid[2:], titles, width) + (" (about it)" if i in about else ""))
                      if nid.startswith("p:") else label
                      for i, (nid, label) in enumerate(zip(path.node_ids, path.nodes)))


def _route(e: HitExplanation, seed_id: str) -> EvidencePath | None:
    """The seed's heaviest route to the hit among those the explanation lists."""
    return next((p for p in e.paths if p.node_ids[0] == seed_id), None)


BY_WAY = " by way of other passages (strongest route through "


def bridged_words(seed: str, bridge: str) -> str:
    """A share reached from a seed the hit is joined to through other passages: "from Solano Foods by way of other
    passages (strongest route through Juniper Peak Growth Fund II)"."""
    return f"from {seed}{BY_WAY}{bridge})"


def bridged_parts(words: str) -> tuple[str, str] | None:
    """(seed, bridge) of a clause `bridged_words` wrote; None for any other clause."""
    if not (words.startswith("from ") and BY_WAY in words and words.endswith(")")):
        return None
    seed, bridge = words[len("from "):-1].split(BY_WAY, 1)
    return seed, bridge


def parts(e: HitExplanation) -> list[tuple[float, str, bool]]:
    """What the hit's score owes to what, heaviest first: (share, words, through a bridging entity?). Entity seeds
    are each a part, named by their heaviest listed route; the passage seeds are read together as the hit's
    similarity to the question (its own, and similar passages' that share a name with it)."""
    label = dict(zip((seed_id for seed_id, _ in e.contributions), e.seed_names))
    hop = dict(zip((seed_id for seed_id, _ in e.contributions), e.seed_hops))
    # a seed the question names only by a lower-case word is said as that word, not as a name it wrote
    words = {seed_id: f"the question's word “{w}”" for (seed_id, _), w in zip(e.contributions, e.seed_words) if w}
    label.update(words)
    # each seed's heaviest route, listed or not: a share is named by it, not by whether a listed route starts there
    heaviest = dict(zip((seed_id for seed_id, _ in e.contributions), e.seed_routes))
    own = f"p:{e.passage_id}"
    out: list[tuple[float, str, bool]] = []
    similar = 0.0
    bridges: list[tuple[float, str]] = []  # second-hop seeds, said together: one clause however many there are
    for seed_id, share in e.seed_shares:
        if seed_id == own:
            out.append((share, "its similarity to the question", False))
        elif seed_id.startswith("p:"):
            similar += share
        else:
            route = heaviest[seed_id] if seed_id in heaviest else _route(e, seed_id)
            if hop.get(seed_id):  # a second-hop seed: a name the first walk's top passage #n gave it
                bridges.append((share, seed_id))
            elif route is not None and len(route.node_ids) == 4:  # seed → passage → bridging entity → hit
                # the share counts every walk from the seed, so the clause names the seed and only the strongest
                # route's bridge: "through A → B" read as one route carrying it all, and that route carries a tenth
                out.append((share, bridged_words(label[seed_id], route.nodes[2]), True))
            elif route is None and seed_id in heaviest:  # the hit does not hold the name, and no two-hop route leads
                out.append((share, f"from {label[seed_id]} by way of other passages (routes of three hops or more)",
                            True))
            elif seed_id.startswith("e:" + NODE_PREFIX):  # a part of a filing's structure: a reader knows its kind
                kind = _STRUCTURE_WORDS.get(seed_id[2 + len(NODE_PREFIX):].split(" ", 1)[0], "the section")
                out.append((share, f"{kind} “{label[seed_id]}”", False))
            else:
                out.append((share, words.get(seed_id) or f"the name “{label[seed_id]}”", False))
    if similar:
        out.append((similar, "passages like the question that share a name with it", False))
    if bridges:
        top, seed_id = max(bridges, key=lambda b: (b[0], b[1]))
        others = f" and {len(bridges) - 1} more" if len(bridges) > 1 else ""
        out.append((sum(b for b, _ in bridges), f"the second hop, through “{label[seed_id]}” (named by the first "
                                                f"walk's #{hop[seed_id]}){others}", True))
    merged: dict[tuple[str, bool], float] = {}  # seeds of one name (each filing's "Income statement") said once
    for share, words, through in out:
        merged[words, through] = merged.get((words, through), 0.0) + share
    return sorted(((share, words, through) for (words, through), share in merged.items()), key=lambda p: (-p[0], p[1]))


# a structure seed's kind (its key's first word, `engine.filings.structure`) as a reader names it: "the statement
# “Income statement”", not "the name “Income statement”"
_STRUCTURE_WORDS = {"company": "the company", "filing": "the filing", "item": "the section", "note": "the note",
                    "statement": "the statement", "row": "the table row"}


def whole_percents(shares: Sequence[float]) -> list[int]:
    """Shares as whole percents that add up to their sum's own percent (largest remainders first, ties in order):
    rounded one by one, 0.335, 0.335 and 0.33 read 34 + 34 + 33 = 101 of a whole score; here 34, 33, 33."""
    exact = [100 * s for s in shares]
    out = [math.floor(x) for x in exact]
    spare = round(sum(exact)) - sum(out)
    for i in sorted(range(len(exact)), key=lambda i: (out[i] - exact[i], i))[:max(spare, 0)]:
        out[i] += 1
    return out


def reason(e: HitExplanation) -> str:
    """One plain sentence of a hit's shares: "61% its similarity to the question, 36% the name “Agent”, 3% from
    Elliot Park by way of other passages (strongest route through Brightwater)." Shares under half a percent are
    left out; those shown add up as the score does (`whole_percents`)."""
    kept = [(share, words) for share, words, _ in parts(e) if share >= SHOWN_SHARE]
    shown = [f"{n}% {words}" if n else f"<1% {words}"
             for n, (_, words) in zip(whole_percents([share for share, _ in kept]), kept)]
    return "Its score: " + (", ".join(shown) if shown else "spread thinly over many seeds") + "."


def explanation_lines(e: HitExplanation, titles: Mapping[str, str]) -> list[tuple[str, str]]:
    """What a walk's hit says, line by line, as (kind, plain text): its "reason", its "typed path" (the filings
    retriever's), each evidence "path" with its share. The page and the report format the same lines."""
    out = [("reason", reason(e))]
    if e.typed_path is not None:
        out.append(("typed path", f"{where_it_sits(e.typed_path)} (these seeds carry {percent(e.typed_path.share)} "
                                  "of the score)"))
    said: dict[str, float] = {}  # two routes through passages of one name read alike: one line, their shares added
    for p in e.paths:
        words = path_words(p, titles)
        said[words] = said.get(words, 0.0) + p.share
    out += [("path", f"Evidence path: {words} (walks along it carry {percent(share)} of the score)")
            for words, share in said.items()]
    if len(said) > 1:  # a seed's share above counts every walk from it; the routes listed are its shortest
        out.append(("path", f"These {len(said)} routes carry {percent(sum(p.share for p in e.paths))} of the score "
                            "together; the shares above count every walk from each seed, longer ones included."))
    return out


def move_words(earlier: Mapping[str, tuple[int, float]] | None, passage_id: str, rank: int, score: float) -> str:
    """A hit's move against an earlier ranking of the same question (passage id → (rank, score)), as the page and
    the report show it: its rank arrow ("same rank" when it kept it), and its earlier score when that changed
    (" · same rank · score 0.031 → 0.025,
    −19%"), so a what-if that moves no rank still shows what it did; "" with nothing to compare with."""
    if earlier is None:
        return ""
    if passage_id not in earlier:
        return " · new in the top"
    was_rank, was_score = earlier[passage_id]
    moved = was_rank - rank
    arrow = f" · ↑{moved}" if moved > 0 else f" · ↓{-moved}" if moved < 0 else " · same rank"
    if abs(score - was_score) <= 1e-12 * max(abs(was_score), 1e-300):
        return arrow
    share = (score - was_score) / was_score if was_score else 0.0
    change = f", {share:+.{0 if abs(share) >= 0.01 else 1}%}".replace("-", "−") if was_score else ""
    return f"{arrow} · score {was_score:.5g} → {score:.5g}{change}"


WHERE_IT_SITS = "Where this page sits"


def where_it_sits(path) -> str:
    """A filing page's place, outermost first ("Acme Widgets › Acme Widgets FY2019 10-K › Statement of cash flows ›
    “Additions to property, plant and equipment” › page 5"): the structure seeds the page stands in or holds, not
    a route the walk took, so it reads as a breadcrumb, not with the arrows of an evidence path."""
    return " › ".join(path.nodes)


def bridged_share(e: HitExplanation) -> float:
    """The share of the hit's score owed to seeds whose heaviest route reaches it through a bridging entity: how
    much of the answer the graph's multi-hop links explain."""
    return sum(share for share, _, bridged in parts(e) if bridged)


def walk_words(e: HitExplanation, titles: Mapping[str, str]) -> str:
    """A walk's hit in a few sentences, for a page that sets retrievers side by side: its rank in the whole walk,
    its shares (`reason`) and its heaviest route, passages named as a reader names them."""
    route = (f"{WHERE_IT_SITS}: {where_it_sits(e.typed_path)}." if e.typed_path is not None else
             f"Evidence path: {path_words(e.paths[0], titles)}." if e.paths else "No evidence path within two hops.")
    return f"Rank {e.hit.rank} in the walk. {reason(e)} {route}"


def exactness_words(walk: GraphAnswer) -> str:
    """How exact a walk's scores are, for a reader who has never heard of PageRank."""
    if not walk.pushed:
        return f"Every score is exact: the walk ran all {walk.iterations} steps over the whole graph."
    top = f" (the top score is {plain(walk.hits[0].score)})" if walk.hits else ""
    local = ("This graph is large, so the walk ran locally: it followed a link only while the weight it carried "
             "was worth the link (forward push), instead of stepping over the whole graph. ")
    if walk.bound == 0:
        scores = "Every score shown is exact: nothing it left behind can reach these passages."
    else:
        scores = (f"Every score shown is exact to within {plain(walk.bound)}{top}: never above its exact value, and "
                  "at most that much below it.")
    if not walk.proven:  # also when the hits shown are exact: another of the first 10, or a tie, leaves it open
        return (local + scores + f" Some of the first {PROVEN_TOP} passages score closer together than these "
                "bounds, even with the walk followed finer, so their order may differ from a whole-graph walk's.")
    if walk.bound == 0:
        return local + scores
    return local + scores + f" These bounds prove the order of the first {PROVEN_TOP} passages."


def plain(x: float) -> str:
    """A small number to two significant figures, written out ("0.00011", not "1.1e-04", which a reader without
    the notation cannot compare with a score)."""
    return np.format_float_positional(x, precision=2, unique=False, fractional=False, trim="-")


def unreached(retriever, question: str, pid: str, ranking: list[str], pages: Mapping[str, PageRef],
              titles: dict[str, str]) -> str:
    """Why a retriever has nothing to say of a passage: outside the question's scope, another passage of its page
    ranking for the page, outside a learned ranker's pool, or no score at all (said without guessing a cause: a walk
    seeded from the top passages alone misses a passage that shares words with the question)."""
    if outside := getattr(retriever, "outside_scope", lambda q, p: "")(question, pid):
        return outside
    page = at.key if (at := pages.get(pid)) else None
    stand_in = next((other for other in ranking if page and other != pid and (o := pages.get(other)) and o.key == page),
                    None)
    if stand_in is not None:
        return (f"another passage of its page ranks in its place ({passage_name(stand_in, titles, IN_TEXT)}): "
                "a page ranks once, as its best passage")
    if isinstance(retriever, LearnedPageRetriever):  # it orders a pool: a page outside has no parts, shared words or not
        return (f"its page is not among the {POOL} pages the graph search gathers for this ranker to order, so the "
                "ranker never scores it")
    return "it gives this passage no score: nothing it searched from the question reached it"


__all__ = ["IN_TEXT", "MAX_LABEL", "bridged_parts", "bridged_words", "WHERE_IT_SITS", "where_it_sits", "bridged_share", "exactness_words", "explanation_lines", "field_words", "k_past_corpus", "move_words", "parts", "passage_name", "passage_place", "path_words", "percent", "plain", "reason", "short", "short_document", "unreached", "walk_words"]
