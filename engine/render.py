"""The evidence-path subgraph as a self-contained pyvis HTML page.

Labels and hover titles are untrusted text: pyvis embeds them with Jinja's `tojson`, which
escapes <, > and & inside the script, and vis-network shows string titles as text. The
page loads nothing from the network: vis-network is inlined, CDN links are removed.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .graph_retriever import GraphAnswer

COLORS = {"seed": "#d62728", "alias": "#ff9896", "passage-seed": "#ff7f0e", "hit": "#1f77b4", "bridge": "#2ca02c",
          "bridge-passage": "#aec7e8"}
_REMOTE = re.compile(r'<(?:link|script)[^>]*(?:href|src)="https?://[^"]*"[^>]*>(?:\s*</script>)?', re.IGNORECASE)


@lru_cache(maxsize=4)
def _template_env(template_dir: str):
    """One Jinja environment per template folder, built as pyvis builds its own: pyvis makes a
    new one per Network, which recompiles its templates on every render (~40 ms each)."""
    from jinja2 import Environment, FileSystemLoader

    return Environment(loader=FileSystemLoader(template_dir))


def subgraph_html(answer: GraphAnswer, height: int = 560) -> str:
    from pyvis.network import Network

    net = Network(height=f"{height}px", width="100%", directed=False, cdn_resources="in_line")
    net.templateEnv = _template_env(net.template_dir)
    top = max((n.mass for n in answer.nodes), default=1.0) or 1.0
    for n in answer.nodes:
        shape = "dot" if n.id.startswith("e:") else "box"
        label = n.label if len(n.label) <= 40 else n.label[:39] + "…"
        net.add_node(n.id, label=("★ " if n.gold else "") + label, title=n.title, shape=shape,
                     color=COLORS.get(n.kind, "#999999"), size=12 + 28 * (n.mass / top),
                     borderWidth=4 if n.gold else 1)
    for e in answer.edges:
        net.add_edge(e.source, e.target, width=4 if e.on_path else 1,
                     color="#d62728" if e.on_path else "#cccccc", dashes=not e.on_path)
    net.set_options('{"physics": {"stabilization": {"iterations": 150}}, "interaction": {"hover": true}}')
    page = net.generate_html(notebook=False)
    return _REMOTE.sub("", page)
