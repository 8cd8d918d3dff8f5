"""The evidence graph as a self-contained pyvis HTML page, laid out to be read.

Layout: deterministic layers, left to right — seeds (entity seeds, aliases, the hybrid's
passage seeds), first-hop passages, bridge entities, second-hop passages — each node in the
first layer of any evidence path it lies on, ordered within its layer by role, rank and mass.
Positions are fixed and physics is off, so the same view always gives the same picture.
Passages show their rank and their document's title on two lines (id and text on hover); evidence-path
edges are drawn dark with a width by the mass they carry, the rest thin and grey; about-edges (the passage's own
title names the entity: entity_graph.subject_edges) are drawn purple, on a path or off it. Selecting
a hit highlights its paths and dims the rest; the legend is drawn in the frame.

Labels and hover titles are untrusted text: pyvis embeds them with Jinja's `tojson`, which
escapes <, > and & inside the script, and vis-network shows string titles as text. The path
map injected for selection is escaped the same way. The page loads nothing from the network:
vis-network is inlined, CDN links are removed.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Mapping, Sequence

from ..retrieve.graph_explain import GraphAnswer, SubgraphNode
from .graph_script import graph_script
from .reasons import IN_TEXT, MAX_LABEL, passage_name, passage_place, percent, short

COLORS = {"seed": "#d62728", "read-seed": "#8c564b", "word-seed": "#e377c2", "alias": "#ff9896", "hop-seed": "#9467bd",
          "passage-seed": "#ff7f0e", "hit": "#1f77b4", "bridge": "#2ca02c", "bridge-passage": "#aec7e8"}
ORDER = {"seed": 0, "read-seed": 0, "word-seed": 0, "alias": 1, "hop-seed": 2, "passage-seed": 3, "hit": 4, "bridge-passage": 5,
         "bridge": 6}  # seeds first, then hits
# each role in words a stakeholder who never heard of PageRank reads (the legend, and the hover boxes)
ROLE_WORDS = {"seed": "named in the question: the search starts here", "read-seed": "read from the question (its "
              "filing, statement or line item): the search starts here", "word-seed": "a word of the question that is a "
              "name here too: the search starts here", "alias": "another name of one in the question "
              "(alias seeding)", "hop-seed": "second hop: a name the first answers hold, where a second search starts",
              "passage-seed": "passage worded like the question: a start too", "hit": "ranked passage",
              "bridge": "a name linking the question to a passage", "bridge-passage": "passage on a path"}
# about-edges in purple (on a path, off it); mentions dark or grey; a clicked hit's paths in a colour no node has
ABOUT_COLOR, ABOUT_FAINT, PATH_COLOR, FAINT, TRACE_COLOR = "#7b4fa6", "#c9b3dd", "#444444", "#cccccc", "#17becf"
_REMOTE = re.compile(r'<(?:link|script)[^>]*(?:href|src)="https?://[^"]*"[^>]*>(?:\s*</script>)?', re.IGNORECASE)
# Label sizes from their text: vis-network fits the graph to its frame, so its width in label-widths sets the text's
# size. Passage labels wrap onto two lines of LINE characters: half the widest layer for one more line of height.
LINE = 26  # characters on one line of a passage's label
# Measured in Chromium for vis-network's 14 px labels: 6.7-7.3 px a character in labels of 30 or more (short ones
# more, which the margins below cover), boxes 22 px tall plus 14 a line, ellipses 28
CHAR_PX = 7.1
ELLIPSE_PX = 28  # an entity's one-line ellipse, measured as above
LAYER_GAP = 70  # between the widest labels of neighbouring layers: room for the arrows
ROW_GAP = 14  # between the tallest labels of one layer's neighbouring rows


@lru_cache(maxsize=4)
def _template_env(template_dir: str):
    """One Jinja environment per template folder, built as pyvis builds its own: pyvis makes a
    new one per Network, which recompiles its templates on every render (~40 ms each)."""
    from jinja2 import Environment, FileSystemLoader

    return Environment(loader=FileSystemLoader(template_dir))


def offline_page(net) -> str:
    """A pyvis Network's page (made with cdn_resources="in_line") asking nothing of the network: CDN links removed,
    the templates compiled once a process. The evidence graph and the Precedents page's deal graph are drawn so."""
    net.templateEnv = _template_env(net.template_dir)
    return _REMOTE.sub("", net.generate_html(notebook=False))


def wrap(label: str, line: int = LINE) -> str:
    """A label longer than `line` characters on two lines: split before its page or part ("p.32", "· part 2") when
    both lines then fit, otherwise at the space that makes the longer line shortest."""
    spaces = [i for i, c in enumerate(label) if c == " "]
    if len(label) <= line or not spaces:
        return label
    longer = lambda i: max(i, len(label) - i - 1)  # noqa: E731
    fits = [i for i in spaces if longer(i) <= line and label[i + 1:i + 3] in ("p.", "· ")]
    cut = min(fits or spaces, key=lambda i: (longer(i), i))
    return label[:cut] + "\n" + label[cut + 1:]


def label_width(label: str, node_id: str) -> float:
    """A node's estimated width in the graph's units: its longest line, plus a box's margins or an ellipse's ends
    (vis-network draws an ellipse as wide as its text plus its own height, so each line adds to its ends)."""
    text = CHAR_PX * max(len(part) for part in label.split("\n"))
    lines = label.count("\n") + 1
    return text + (14 if node_id.startswith("p:") else 26 + ELLIPSE_PX * (lines - 1))


def label_height(label: str, node_id: str) -> float:
    """A node's estimated height: a passage's box grows by its lines, an entity's ellipse by its own height a line
    (vis-network makes an ellipse twice as tall as its text)."""
    lines = label.count("\n") + 1
    return 22 + 14 * lines if node_id.startswith("p:") else ELLIPSE_PX * lines


def extent(pos: dict[str, tuple[int, int]], labels: dict[str, str]) -> tuple[float, float, float, float]:
    """Left, top, right and bottom of the estimated boxes of every label placed at `pos` (not empty)."""
    boxes = [(x - label_width(labels[n], n) / 2, y - label_height(labels[n], n) / 2,
              x + label_width(labels[n], n) / 2, y + label_height(labels[n], n) / 2) for n, (x, y) in pos.items()]
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def layout(answer: GraphAnswer, labels: dict[str, str]) -> dict[str, tuple[int, int]]:
    """Node id → (x, y): each node in the first layer of any evidence path through it. Layers stand as close as
    their widest `labels` (node id → label) allow, and rows as their tallest."""
    layer: dict[str, int] = {}
    ends: dict[str, int] = {}  # a hit sits where its paths end, even if it also seeds other paths
    for e in answer.explanations:
        for p in e.paths:
            # a passage seed's path skips the first-hop passage layer: seed (0) → bridge (2) → hit (3)
            slots = (0, 2, 3) if len(p.node_ids) == 3 else tuple(range(len(p.node_ids)))
            for nid, slot in zip(p.node_ids, slots):
                layer[nid] = min(layer.get(nid, slot), slot)
            ends[p.node_ids[-1]] = min(ends.get(p.node_ids[-1], slots[-1]), slots[-1])
    layer.update(ends)
    rank = {f"p:{h.passage_id}": h.rank for h in answer.hits}
    for n in answer.nodes:  # nodes on no path: seeds first, hits next to them
        layer.setdefault(n.id, 0 if ORDER[n.kind] < ORDER["hit"] else 1 if n.kind == "hit" else 2)
    columns: dict[int, list] = {}
    for n in answer.nodes:
        columns.setdefault(layer[n.id], []).append(n)
    pos, x, last = {}, 0.0, None
    for col in sorted(columns):
        nodes = sorted(columns[col], key=lambda n: (ORDER[n.kind], rank.get(n.id, 10**6), -n.mass, n.id))
        half = max(label_width(labels[n.id], n.id) for n in nodes) / 2
        x = 0.0 if last is None else x + last + LAYER_GAP + half
        last = half
        row = ROW_GAP + max(label_height(labels[n.id], n.id) for n in nodes)
        top = -(len(nodes) - 1) * row / 2
        for i, n in enumerate(nodes):
            pos[n.id] = (int(round(x)), int(round(top + i * row)))
    return pos


FRAME_WIDTH = 900  # the page's main column in a 1400 px window, where the evidence graph is drawn
LEGEND_PX = 60  # the legend strip under the canvas


def page_height(answer: GraphAnswer, titles: dict[str, str] | None = None, gold: frozenset[str] = frozenset(),
                removed: Sequence[str] = (), low: int = 320, high: int = 620) -> int:
    """How tall `subgraph_html`'s page needs to be (canvas and legend) to draw this graph as large as a frame
    FRAME_WIDTH wide allows, from `low` to `high` px: a short graph gets a short frame, not an empty band."""
    labels = node_labels(answer, titles or {}, gold)
    pos = layout(answer, labels)
    if not pos:
        return low
    left, top, right, bottom = extent(pos, labels)
    width, tall = right - left, bottom - top + len(removed) * (ELLIPSE_PX + ROW_GAP)
    scale = min(1.0, FRAME_WIDTH / width)  # vis-network's fit never draws larger than 1:1
    return int(min(high, max(low, tall * scale * 1.1 + 40 + LEGEND_PX)))  # its fit leaves a margin of about 10%


def node_label(node: SubgraphNode, rank: dict[str, int], titles: dict[str, str],
               gold: frozenset[str] = frozenset()) -> str:
    """Passages: a star when gold, rank, and the passage by document and page or part (reasons.passage_name: a
    PDF page leads with what tells pages apart, "#1 Apple 2022 10-K p.32"; its full identity is in the hover);
    entities: their name, on two lines past MAX_LABEL characters ("Additions to property, / plant and
    equipment"). A passage's label has two lines' room (`wrap`)."""
    if node.id.startswith("p:"):
        pid = node.id[2:]
        head = ("★ " if pid in gold else "") + (f"#{rank[node.id]} " if node.id in rank else "")
        return wrap(head + passage_name(pid, titles, 2 * LINE - len(head) - 9))  # 9: room for " · part 12"
    return wrap(short(node.label, 2 * MAX_LABEL), MAX_LABEL)


def node_labels(answer: GraphAnswer, titles: dict[str, str], gold: frozenset[str] = frozenset()) -> dict[str, str]:
    """Every node's label (`node_label`), by node id: what the layout is sized by and the drawings show."""
    rank = {f"p:{h.passage_id}": h.rank for h in answer.hits}
    labels = {n.id: node_label(n, rank, titles, gold) for n in answer.nodes}
    # two nodes never share a label: a filing's structure node that reads like an entity says what it is
    # ("Intel (company)" beside the entity "Intel"), and any other twin is numbered
    seen: dict[str, int] = {}
    for node_id in sorted(labels, key=lambda i: (i.startswith("e:§"), i)):
        label = labels[node_id]
        if label in seen and node_id.startswith("e:§"):
            label = f"{label} ({node_id[3:].split(' ', 1)[0]})"
        if label in seen:
            seen[label] += 1
            label = f"{label} ({seen[label]})"
        seen.setdefault(label, 1)
        labels[node_id] = label
    return labels


def hover_text(node: SubgraphNode, answer: GraphAnswer, texts: dict[str, str],
               titles: dict[str, str] | None = None, defined: Mapping[str, str] | None = None) -> str:
    """What a node says on hover (plain text; vis-network shows string titles as text): its role,
    the share of the walk's time it holds (its PPR mass, as a percentage), and who it is — a seed's rule and
    weight, and what the documents define the name as (`defined`: entity key → words, engine.explain.entity_notes:
    a walk-through took "Partnership" for a generic word); a passage's document's full identity, where in it the
    passage is, its dense cosine, its text."""
    seed = next((s for s in answer.seeds if s.entity == node.id[2:]), None) if node.id.startswith("e:") else None
    role = ROLE_WORDS.get(node.kind, node.kind)
    if seed is not None and seed.word:
        role = f"the question's word “{seed.word}” matched it: the search starts here"
    head = f"{role} · the walk spends {percent(node.mass)} of its time here\n"
    if node.id.startswith("e:"):
        who = (f"{node.label} — bridging entity" if seed is None else
               f"{seed.label} — {seed.source} seed ({seed.rule}), weight {seed.weight:.3f}")
        meaning = (defined or {}).get(node.id[2:], "")
        return head + who + (f"\n{meaning[0].upper()}{meaning[1:]}." if meaning else "") + nested_words(node, answer)
    pid = node.id[2:]
    cosine = next((p.cosine for p in answer.passage_seeds if p.passage_id == pid), None)
    seed = f"a passage seed: its similarity to the question is {cosine:.3f} (cosine)\n" if cosine is not None else ""
    identity = f"{titles[pid]}\n" if titles and titles.get(pid) else ""
    return head + f"{identity}{passage_place(pid)}\n{seed}{_opening(texts.get(pid, ''))}"


def nested_words(node: SubgraphNode, answer: GraphAnswer) -> str:
    """For an entity whose name sits inside a longer one the graph draws ("Brightwater" in "Brightwater
    Logistics"), or holds a shorter one: that they are two nodes of one thing, joined by the passages that name
    the longer (a passage is linked to every name its text holds, engine.graph.entity_graph); "" otherwise."""
    key = f" {node.id[2:]} "
    others = [n for n in answer.nodes if n.id.startswith("e:") and n.id != node.id]
    longer = [n.label for n in others if key in f" {n.id[2:]} "]
    shorter = [n.label for n in others if f" {n.id[2:]} " in key]
    if not longer and not shorter:
        return ""
    said = ([f"inside the longer name{'s' if len(longer) > 1 else ''} " + ", ".join(f"“{x}”" for x in longer)]
            if longer else []) + ([", ".join(f"“{x}”" for x in shorter) + " inside it"] if shorter else [])
    return (f"\nNamed two ways: {' and '.join(said)}. The graph keeps each name as its own node and links every "
            "passage holding the longer name to both, so the walk passes freely between them.")


# a Markdown heading line of a source, its words in group 1 (the report shows it bold, a hover as plain words)
MARKDOWN_HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$", re.MULTILINE)


def _opening(text: str, n: int = 400) -> str:
    """A passage's first n characters for a tooltip, cut at a word with "…" when there is more; a Markdown
    heading reads as its words ("# Juniper Peak …" as "Juniper Peak …"), as the page shows it."""
    text = MARKDOWN_HEADING.sub(r"\1", text)
    if len(text) <= n:
        return text
    cut = text[:n]
    if not (text[n].isspace() or cut[-1].isspace()):  # the cut falls inside a word: end before that word
        words = cut.rsplit(None, 1)
        cut = words[0] if len(words) > 1 else cut
    return cut.rstrip() + "…"


def passage_seed_summary(answer: GraphAnswer) -> str:
    """A few sentences on a hybrid's passage seeds, for a reader without the jargon: what chose them (meaning, and
    shared words when BM25 has a share λ of them), their share of the walk's restarts, and what the similarity is,
    read off the seeding that chose them (`GraphAnswer.passage_params`). The Query page and the report print it."""
    seeds, params = answer.passage_seeds, answer.passage_params
    taken = f"{len(seeds)} passage{'s' if len(seeds) != 1 else ''} take {sum(p.weight for p in seeds):.0%} of the walk's restarts"
    lexical = params.lexical if params is not None else 0.0
    top = min(params.top, len(seeds)) if params is not None else len(seeds)  # a list is no longer than the seeds
    if lexical == 0:
        how = f"Passage seeds: {taken}, the {top} closest in meaning to the question; the closer, the larger its share."
    else:  # two lists, each weighted by its own score: a passage's weight does not follow its similarity alone
        how = (f"Passage seeds: {taken}: the {top} closest in meaning to the question share {1 - lexical:.0%} of "
               f"that, the closer the larger; the {top} sharing the most words with it (BM25) share {lexical:.0%}, "
               "the more the larger. A passage on both lists gets both, so its weight does not follow its "
               "similarity alone.")
    return how + " Similarity is the cosine of the dense embeddings: 1 for the same meaning, near 0 for unrelated text."


def second_hop_summary(answer: GraphAnswer, titles: dict[str, str]) -> str:
    """One sentence on a walk's second hop: what the question names, which of the first walk's top passages named
    the bridges, and their share of the restart mass; or why it was left off. Empty when none was asked for."""
    if answer.hop_left_off:
        return (f"Second hop: left off, since the question {answer.hop_left_off}: the passages about those names "
                "answer it, and a second walk from the other names they mention would crowd them out.")
    bridges = [s for s in answer.seeds if s.named_at]
    if not bridges:
        return ""
    asked = [s.label for s in answer.seeds if s.source == "query"][:3]
    by_rank: dict[int, list] = {}
    for s in bridges:
        by_rank.setdefault(s.named_at, []).append(s)
    named = "; ".join(f"the first walk's #{rank} ({passage_name(seeds[0].via, titles, IN_TEXT)}) names "
                      + ", ".join(f"“{s.label}”" for s in seeds[:3]) + (" and more" if len(seeds) > 3 else "")
                      for rank, seeds in sorted(by_rank.items())[:3])
    head = ("The question names " + ", ".join(f"“{x}”" for x in asked) + "; ") if asked else ""
    return (f"Second hop: {head}{named}. A second walk started at these {len(bridges)} names, each weighted by "
            f"how often the first walk passed through it; together they carry {sum(s.weight for s in bridges):.0%} "
            f"of its starting weight. "
            + hop_moves(answer, titles))


def hop_moves(answer: GraphAnswer, titles: dict[str, str]) -> str:
    """What the second hop changed in the top k, against the first walk's top k: "" without a second hop."""
    if not answer.first_hits:
        return ""
    now = [h.passage_id for h in answer.hits]
    if now == list(answer.first_hits):
        return f"The second hop moved no passage: the top {len(now)} are the first walk's, in its order."
    new = [pid for pid in now if pid not in answer.first_hits]
    moved = sum(1 for r, pid in enumerate(now) if pid in answer.first_hits and answer.first_hits.index(pid) != r)
    said = [f"{moved} passage{'s' if moved != 1 else ''} of the first walk's top {len(answer.first_hits)} "
            "changed place"] if moved else []
    if new:
        said.append("it brought in " + "; ".join(passage_name(pid, titles, IN_TEXT) for pid in new))
    return "The second hop changed the ranking: " + ", and ".join(said) + "."


# vis-network's hover box: the page's sans-serif, wrapped inside the frame (its default is the browser's serif, one
# line as wide as the text); none while the pointer rests on a node just clicked (the script's 'pathlens-quiet')
TOOLTIP_CSS = ("<style>div.vis-tooltip{font:12px/1.4 sans-serif;white-space:pre-wrap;max-width:340px;"
               "overflow-wrap:anywhere}body.pathlens-quiet div.vis-tooltip{visibility:hidden!important}</style>")


def _legend(kinds: set[str], about: bool = False) -> str:
    """The colours of the roles this graph draws, and only those; the about-edges' colour when it draws one."""
    rows = "".join(f'<div><span style="display:inline-block;width:12px;height:12px;margin-right:6px;'
                   f'background:{COLORS[k]};border-radius:2px"></span>{ROLE_WORDS[k]}</div>'
                   for k in COLORS if k in kinds)
    if "removed" in kinds:
        rows += ('<div><span style="display:inline-block;width:12px;height:12px;margin-right:6px;'
                 'border:1px dashed #999;border-radius:6px"></span>✕ taken out (what-if)</div>')
    if about:
        rows += (f'<div><span style="display:inline-block;width:14px;height:3px;margin:0 6px 3px 0;'
                 f'background:{ABOUT_COLOR}"></span>about-edge: the passage\'s own title names the entity</div>')
    # a strip under the canvas, so it never covers a node
    return ('<div id="pathlens-legend" style="display:flex;flex-wrap:wrap;gap:4px 14px;padding:6px 8px;'
            f'font:12px sans-serif;color:#333;border-top:1px solid #ddd">{rows}'
            '<div>dark arrows: evidence paths, the thicker the more of the search went along them · click a ranked '
            f'passage to trace its paths in <span style="color:{TRACE_COLOR};font-weight:600">teal</span></div></div>')


def subgraph_html(answer: GraphAnswer, height: int = 560, titles: dict[str, str] | None = None,
                  texts: dict[str, str] | None = None, gold: frozenset[str] = frozenset(),
                  removed: Sequence[str] = (), defined: Mapping[str, str] | None = None) -> str:
    """The page; `height` covers the canvas and the legend strip under it (about 60 px). `titles`
    and `texts` (passage id → document title, text) label and describe passages; `gold` passages
    get a star and a thick border; `removed` entities (a what-if took them out of the graph) are drawn crossed
    out, hollow and dashed, under the seeds, linked to nothing: the walk ran without them. `defined` (entity key →
    words) says on hover what the documents define a name as."""
    from pyvis.network import Network

    titles, texts = titles or {}, texts or {}
    net = Network(height=f"{height - LEGEND_PX}px", width="100%", directed=True, cdn_resources="in_line")
    labels = node_labels(answer, titles, gold)
    pos = layout(answer, labels)
    for n in answer.nodes:
        shape = "box" if n.id.startswith("p:") else "ellipse"
        net.add_node(n.id, label=labels[n.id], title=hover_text(n, answer, texts, titles, defined), shape=shape,
                     x=pos[n.id][0], y=pos[n.id][1], color=COLORS.get(n.kind, "#999999"),
                     borderWidth=3 if n.id[2:] in gold and n.id.startswith("p:") else 1,
                     font={"color": "#ffffff" if n.kind in ("seed", "read-seed", "hit", "bridge") else "#222222"})
    bottom = max((y for _, y in pos.values()), default=0)
    for i, label in enumerate(removed):
        net.add_node(f"x:{i}", label=f"✕ {short(label)}", shape="ellipse", x=0, y=bottom + (i + 1) * (ELLIPSE_PX + ROW_GAP),
                     title=f"{label} — taken out of the graph (what-if): the walk ran without it",
                     color={"background": "#ffffff", "border": "#999999"}, shapeProperties={"borderDashes": [4, 3]},
                     font={"color": "#777777"})
    # edges follow the walk (seed → … → hit); path edges get a width by the heaviest path mass through them
    path_mass: dict[tuple[str, str], float] = {}
    path_share: dict[tuple[str, str], float] = {}  # the largest share of its hit's score a path through it carries
    by_hit: dict[str, list[str]] = {}
    about = {frozenset((e.source, e.target)) for e in answer.edges if e.about}  # the subgraph holds every path step
    for e in answer.explanations:
        for p in e.paths:
            for a, b in zip(p.node_ids, p.node_ids[1:]):
                path_mass[(a, b)] = max(path_mass.get((a, b), 0.0), p.mass)
                path_share[(a, b)] = max(path_share.get((a, b), 0.0), p.share)
                by_hit.setdefault(f"p:{e.hit.passage_id}", []).append(f"{a}>{b}")
    top = max(path_mass.values(), default=1.0) or 1.0
    drawn, colors = set(), {}
    for (a, b), mass in sorted(path_mass.items()):
        kind = "an about-edge (the passage's own title names the entity) " if frozenset((a, b)) in about else ""
        colors[f"{a}>{b}"] = ABOUT_COLOR if kind else PATH_COLOR
        net.add_edge(a, b, id=f"{a}>{b}", width=1.5 + 6.5 * mass / top, color=colors[f"{a}>{b}"], arrows="to",
                     title=f"{kind}on an evidence path carrying {percent(path_share[(a, b)])} of the score of the "
                           "passage it leads to")
        drawn.update({(a, b), (b, a)})
    for e in answer.edges:
        if (e.source, e.target) not in drawn:
            colors[f"{e.source}>{e.target}"] = ABOUT_FAINT if e.about else FAINT
            net.add_edge(e.source, e.target, id=f"{e.source}>{e.target}", width=0.8, arrows="", dashes=True,
                         color=colors[f"{e.source}>{e.target}"],
                         **({"title": "an about-edge: the passage's own title names the entity"} if e.about else {}))
    net.set_options(json.dumps({"physics": {"enabled": False}, "interaction": {"hover": True},
                                "edges": {"smooth": False}, "layout": {"improvedLayout": False}}))
    page = offline_page(net)
    script = graph_script(by_hit, colors, TRACE_COLOR)
    # the legend goes right after the canvas's container; the script after pyvis's own
    legend = _legend({n.kind for n in answer.nodes} | ({"removed"} if removed else set()), bool(about))
    page = page.replace('<div id="mynetwork" class="card-body"></div>',
                        '<div id="mynetwork" class="card-body"></div>' + legend, 1)
    page = page.replace("</head>", TOOLTIP_CSS + "</head>", 1)
    return page.replace("</body>", script + "</body>", 1)
