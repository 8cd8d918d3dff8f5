"""The evidence graph's script: a clicked hit traces its paths, and the canvas takes what its frame leaves under the
legend. Kept beside `render.subgraph_html`, which puts it at the end of the page it writes."""

from __future__ import annotations

import json


def _safe_json(value) -> str:
    """JSON for a <script>: <, > and & escaped, as Jinja's tojson does."""
    return json.dumps(value).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def graph_script(by_hit: dict[str, list[str]], colors: dict[str, str], trace_color: str) -> str:
    """The page's script: `by_hit` each ranked passage's path edges, `colors` each edge's own colour, `trace_color`
    the colour of a clicked hit's paths."""
    return (f"<script>var pathlensPaths = {_safe_json(by_hit)}; var pathlensColors = {_safe_json(colors)};"
            # a clicked hit: its paths red, every node off them faded, and the hover box kept away while the
            # pointer rests on the node just clicked (vis shows it again on any jitter); a class, since vis
            # sets the box's inline visibility itself
            "network.on('selectNode', function (ev) {"
            " var on = {}, near = {}; near[ev.nodes[0]] = true;"
            " (pathlensPaths[ev.nodes[0]] || []).forEach(function (id) { on[id] = true;"
            "  id.split('>').forEach(function (n) { near[n] = true; }); });"
            " if (!pathlensPaths[ev.nodes[0]]) return;"
            " edges.update(edges.get().map(function (x) { return {id: x.id, hidden: false,"
            f"  color: on[x.id] ? '{trace_color}' : '#eeeeee'}}; }}));"
            " nodes.update(nodes.get().map(function (x) { return {id: x.id, opacity: near[x.id] ? 1 : 0.2}; }));"
            " document.body.classList.add('pathlens-quiet');"
            "});"
            "network.on('blurNode', function () { document.body.classList.remove('pathlens-quiet'); });"
            # the canvas takes what the frame leaves under the legend, which wraps to more lines in a narrow
            # window: a walk-through saw the legend's last line cut off and the frame scroll inside itself
            "function pathlensFit() { var box = document.getElementById('mynetwork'),"
            " legend = document.getElementById('pathlens-legend');"
            " var spare = window.innerHeight - legend.lastElementChild.getBoundingClientRect().bottom"
            "  - parseFloat(getComputedStyle(legend).paddingBottom) - parseFloat(getComputedStyle(document.body)"
            "  .marginBottom) - 2;"
            " if (Math.abs(spare) < 2) return;"
            " var h = Math.max(160, box.offsetHeight + spare); box.style.height = h + 'px';"
            " network.setSize('100%', h + 'px'); network.fit(); }"
            "window.addEventListener('resize', pathlensFit); pathlensFit();"
            "network.on('deselectNode', function () {"
            " document.body.classList.remove('pathlens-quiet');"
            " edges.update(edges.get().map(function (x) { return {id: x.id, color: pathlensColors[x.id]}; }));"
            " nodes.update(nodes.get().map(function (x) { return {id: x.id, opacity: 1}; }));"
            "});</script>")


__all__ = ["graph_script"]
