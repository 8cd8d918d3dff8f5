"""A deal's corner of the typed deal graph as a self-contained pyvis page, drawn like the evidence graph
(engine.explain.render): the deal, its platform and add-ons, and what the graph links it to (sector, subsector,
region, origin, its exit event, its description), in the evidence graph's colours and legend strip.

Fixed columns, physics off, so a deal always gives the same picture: add-ons on the left, then the platform, then the
chosen deal, then its attributes. The attributes the question asks for are the walk's seeds, drawn in the seeds' red
with dark edges, as the evidence graph draws its evidence paths. Names and descriptions are untrusted (a user's
list): pyvis embeds labels and hover texts with Jinja's `tojson` and vis-network shows string titles as text, so
none of it runs. No Streamlit here: the page and the evidence report both draw with it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from engine.deals.graph import seed_groups
from engine.deals.index import DealIndex
from engine.deals.model import Criteria, Deal
from engine.explain.render import (COLORS, FAINT, LAYER_GAP, PATH_COLOR, ROW_GAP, TOOLTIP_CSS, label_height,
                                   label_width, offline_page, wrap)

# each role's colour is the evidence graph's colour for the role it plays there
ROLES = {"chosen": (COLORS["hit"], "the chosen deal"),
         "family": (COLORS["bridge-passage"], "its platform and add-ons"),
         "cue": (COLORS["seed"], "asked for by the question: the search starts here"),
         "attribute": (COLORS["bridge"], "its sector, region, origin or exit, not asked for"),
         "description": (COLORS["passage-seed"], "its description, matched against the question's words")}
# each typed edge in words, on hover
EDGE_WORDS = {"IN_SECTOR": "{a} is in {b}", "IN_SUBSECTOR": "{a} is in {b}", "IN_REGION": "{a} is in {b}",
              "ORIGINATED_AS": "{a} was bought as a {b} deal", "ADDON_TO": "{a} is an add-on of {b}",
              "EXITED_VIA": "{a} was exited by {b}", "DESCRIBED_IN": "{a} is described in its text"}
SHORT_LINE = 40  # characters on the one line of an add-on's label: "#12 Bramble Clearwater Holdings · 2017"
KIND_WORDS = {"sector": "sector", "subsector": "subsector", "region": "region", "origin": "origin", "event": "exit"}


def money(size: float | None) -> str:
    if size is None:
        return "EV not stated"
    return f"EV ${size / 1000:.1f}bn" if size >= 1000 else f"EV ${size:,.0f}m"


def deal_facts(index: DealIndex, deal: Deal) -> str:
    """A deal's record in one line: "veterinary clinics (healthcare) · US · 2015 · platform, 15 add-ons · …"."""
    u = index.universe
    row = u.rows[deal.id]
    n = u.add_on_count(row)
    role = (f"platform, {n} add-on{'s' if n != 1 else ''}" if deal.role == "platform" else
            f"add-on of {u.deals[u.platform_of(row)].name}")
    kind = f"{deal.subsector} ({deal.sector})" if deal.subsector else deal.sector
    out = "still held" if deal.exit == "none" else f"exited by {deal.exit} {deal.exit_year or ''}".rstrip()
    facts = [kind, deal.region, str(deal.year), role, deal.origin or "origin not stated", out, money(deal.size)]
    return " · ".join(facts + ([f"sponsor {deal.sponsor}"] if deal.sponsor else []))


@dataclass(frozen=True)
class Node:
    id: str  # "d:<row>" a deal, "n:<graph node>" anything else
    name: str  # the deal's name, the sector's, "IPO 2019"
    label: str
    role: str  # a key of ROLES
    hover: str  # plain text


@dataclass(frozen=True)
class DealSubgraph:
    nodes: dict[str, Node]
    columns: tuple[tuple[str, ...], ...]  # node ids, left to right
    edges: tuple[tuple[str, str, str, bool], ...]  # (node, node, edge type, on the walk's way from a cue)


def _opening(text: str, n: int = 400) -> str:
    return text if len(text) <= n else text[:n].rsplit(" ", 1)[0] + "…"


def deal_subgraph(index: DealIndex, row: int, asked: Criteria, ranks: dict[int, int]) -> DealSubgraph:
    """The chosen deal (`row`), its platform or add-ons, and its attributes; `asked`: the question's cues (which
    attributes the walk starts from); `ranks`: deal row → rank, for the deals the ranking shows."""
    u, g = index.universe, index.graph
    seeds = {v for grp in seed_groups(g, asked) for v in grp.nodes}
    degree = g.degree

    def deal_node(r: int, role: str) -> Node:
        """The chosen deal and a platform on two lines (name, then what it is); an add-on of the family on one, so
        a platform's fifteen stack in a column the frame draws at a readable size."""
        d = u.deals[r]
        head = (f"#{ranks[r]} " if r in ranks else "") + d.name
        if role == "family" and d.role == "add-on":
            label = wrap(f"{head} · {d.year}", SHORT_LINE)
        else:
            n = u.add_on_count(r)
            label = wrap(head, SHORT_LINE) + "\n" + (f"platform · {d.year} · {n} add-on{'s' if n != 1 else ''}"
                                                      if d.role == "platform" else f"add-on · {d.year}")
        return Node(f"d:{r}", d.name, label, role,
                    f"{d.name}\n{deal_facts(index, d)}\n\n{_opening(d.description) or 'no description'}")

    nodes: dict[str, Node] = {}
    columns: list[tuple[str, ...]] = []
    edges: list[tuple[str, str, str, bool]] = []
    platform = u.platform_of(row)
    family = platform if platform is not None else row
    add_ons = [r for r in u.add_ons[family] if r != row]
    for r in add_ons:
        nodes[f"d:{r}"] = deal_node(r, "family")
        edges.append((f"d:{r}", f"d:{family}", "ADDON_TO", True))
    if add_ons:
        columns.append(tuple(f"d:{r}" for r in add_ons))
    if platform is not None:
        nodes[f"d:{platform}"] = deal_node(platform, "family")
        columns.append((f"d:{platform}",))
        edges.append((f"d:{row}", f"d:{platform}", "ADDON_TO", True))
    nodes[f"d:{row}"] = deal_node(row, "chosen")
    columns.append((f"d:{row}",))
    attributes = []
    for v, kind in g.neighbours(row):
        node = g.nodes[v]
        if node.kind == "deal":
            continue  # the platform and add-ons are drawn above
        if node.kind == "snippet":
            text = u.deals[row].description
            nodes[f"n:{v}"] = Node(f"n:{v}", "its description", "its description (hover to read)", "description",
                                   _opening(text, 600))
        else:
            deals = int(degree[v]) if node.kind != "event" else 1
            what = f"{KIND_WORDS[node.kind]}: {node.label}"
            nodes[f"n:{v}"] = Node(f"n:{v}", node.label, what, "cue" if v in seeds else "attribute",
                                   what + (f" · {deals:,} deals of {u.name} link here" if node.kind != "event" else "")
                                   + ("\nAsked for by the question: the search starts here" if v in seeds else ""))
        attributes.append(f"n:{v}")
        edges.append((f"d:{row}", f"n:{v}", kind, v in seeds))
    columns.append(tuple(attributes))
    return DealSubgraph(nodes, tuple(c for c in columns if c), tuple(edges))


def _box_id(node: Node) -> str:
    """The id render's label measures read: deals are boxes, as its passages; the rest ellipses, as its entities."""
    return "p:" if node.id.startswith("d:") else "e:"


def layout(sub: DealSubgraph) -> dict[str, tuple[int, int]]:
    """Node id → (x, y): each column as close to the last as their widest labels allow, its rows centred. Columns
    left of the chosen deal are aligned on their right edges and those right of it on their left, so every line
    leaves a label at its end and none runs under another label of its column."""
    pos: dict[str, tuple[int, int]] = {}
    middle = next(i for i, column in enumerate(sub.columns) if sub.nodes[column[0]].role == "chosen")
    x, last = 0.0, None
    for c, column in enumerate(sub.columns):
        nodes = [sub.nodes[i] for i in column]
        half = max(label_width(n.label, _box_id(n)) for n in nodes) / 2
        x = 0.0 if last is None else x + last + LAYER_GAP + half
        last = half
        row = ROW_GAP + max(label_height(n.label, _box_id(n)) for n in nodes)
        for i, n in enumerate(nodes):
            own = label_width(n.label, _box_id(n)) / 2
            at = x + (half - own if c < middle else own - half if c > middle else 0)
            pos[n.id] = (int(round(at)), int(round((i - (len(nodes) - 1) / 2) * row)))
    return pos


FRAME_WIDTH = 900  # the deal's box in a 1400 px window
# the legend strip under the canvas: its five roles and its line of words wrap onto three lines at FRAME_WIDTH and
# four in a narrower window (the evidence graph's 60 px clipped the last)
DEAL_LEGEND_PX = 90


def graph_height(sub: DealSubgraph, low: int = 300, high: int = 680) -> int:
    """The frame's height (canvas and legend) that draws the graph as large as FRAME_WIDTH allows."""
    pos = layout(sub)
    boxes = [(x - label_width(sub.nodes[i].label, _box_id(sub.nodes[i])) / 2,
              y - label_height(sub.nodes[i].label, _box_id(sub.nodes[i])) / 2,
              x + label_width(sub.nodes[i].label, _box_id(sub.nodes[i])) / 2,
              y + label_height(sub.nodes[i].label, _box_id(sub.nodes[i])) / 2) for i, (x, y) in pos.items()]
    width = max(b[2] for b in boxes) - min(b[0] for b in boxes)
    tall = max(b[3] for b in boxes) - min(b[1] for b in boxes)
    scale = min(1.0, FRAME_WIDTH / width)
    return int(min(high, max(low, tall * scale * 1.1 + 40 + DEAL_LEGEND_PX)))


def _legend(roles: set[str]) -> str:
    rows = "".join(f'<div><span style="display:inline-block;width:12px;height:12px;margin-right:6px;'
                   f'background:{colour};border-radius:2px"></span>{words}</div>'
                   for role, (colour, words) in ROLES.items() if role in roles)
    return ('<div id="pathlens-legend" style="display:flex;flex-wrap:wrap;gap:4px 14px;padding:6px 8px;'
            f'font:12px sans-serif;color:#333;border-top:1px solid #ddd">{rows}'
            '<div>dark lines: links the search follows from what was asked, and between a platform and its '
            'add-ons · hover a node for its record</div></div>')


def deal_graph_html(sub: DealSubgraph, height: int) -> str:
    """The page: `height` covers the canvas and the legend strip under it."""
    from pyvis.network import Network

    net = Network(height=f"{height - DEAL_LEGEND_PX}px", width="100%", directed=False, cdn_resources="in_line")
    pos = layout(sub)
    for n in sub.nodes.values():
        colour = ROLES[n.role][0]
        net.add_node(n.id, label=n.label, title=n.hover, shape="box" if n.id.startswith("d:") else "ellipse",
                     x=pos[n.id][0], y=pos[n.id][1], color=colour, borderWidth=3 if n.role == "chosen" else 1,
                     font={"color": "#ffffff" if n.role in ("chosen", "cue", "attribute") else "#222222"})
    for a, b, kind, walked in sub.edges:
        net.add_edge(a, b, width=2.5 if walked else 1, color=PATH_COLOR if walked else FAINT, dashes=not walked,
                     title=EDGE_WORDS[kind].format(a=sub.nodes[a].name, b=sub.nodes[b].name))
    # lines leave a label sideways, at its aligned edge, and bend on the way: straight ones from a column of fifteen
    # add-ons ran under the labels below them
    curve = {"type": "cubicBezier", "forceDirection": "horizontal", "roundness": 0.8}
    net.set_options(json.dumps({"physics": {"enabled": False}, "interaction": {"hover": True},
                                "edges": {"smooth": curve}, "layout": {"improvedLayout": False}}))
    page = offline_page(net)
    page = page.replace('<div id="mynetwork" class="card-body"></div>',
                        '<div id="mynetwork" class="card-body"></div>' + _legend({n.role for n in sub.nodes.values()}),
                        1)
    return page.replace("</head>", TOOLTIP_CSS + "</head>", 1)


def family_words(index: DealIndex, row: int) -> str:
    """How the deal's add-ons bring the walk back to it, in one sentence ("" for a platform without add-ons)."""
    u = index.universe
    d = u.deals[row]
    platform = u.platform_of(row)
    if platform is not None:
        p = u.deals[platform]
        return (f"{d.name} is an add-on of {p.name}, which made {u.add_on_count(platform)}; the walk reaches it from "
                f"its own sector and region, and through its platform.")
    add_ons = [u.deals[r] for r in u.add_ons[row]]
    if not add_ons:
        return f"{d.name} made no add-on: the walk reaches it only from its own sector, region, origin and exit."
    same = sum(a.sector == d.sector and a.region == d.region for a in add_ons)
    return (f"{same} of its {len(add_ons)} add-ons share its sector and region: each is one more way for a walk "
            f"starting there to reach it, whatever its description says.")


__all__ = ["DealSubgraph", "ROLES", "deal_facts", "deal_graph_html", "deal_subgraph", "family_words", "graph_height",
           "money"]
