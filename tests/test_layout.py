"""The architecture's rules, read from the source: the engine's modules import one another without a
cycle, the engine never imports Streamlit, and nothing touches Streamlit's internals."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT


def _imports(path: Path) -> list[tuple[int, str]]:
    """(level, module) of every import in a file, including those inside functions."""
    out = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            out += [(0, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.module:
                out.append((node.level, node.module))
            else:  # from . import x
                out += [(node.level, a.name) for a in node.names]
    return out


def _engine_graph() -> dict[str, set[str]]:
    mods = {p.stem: p for p in (ROOT / "engine").glob("*.py")}
    graph = {}
    for name, path in mods.items():
        deps = {m.split(".")[0] for level, m in _imports(path) if level == 1}
        deps |= {m.split(".")[1] for level, m in _imports(path) if level == 0 and m.startswith("engine.")}
        graph[name] = deps & set(mods) - {name}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1 on the stack, 2 done

    def visit(u: str, stack: list[str]) -> list[str] | None:
        state[u] = 1
        stack.append(u)
        for v in sorted(graph[u]):
            if state.get(v) == 1:
                return stack[stack.index(v):] + [v]
            if v not in state and (found := visit(v, stack)):
                return found
        stack.pop()
        state[u] = 2
        return None

    for u in sorted(graph):
        if u not in state and (found := visit(u, [])):
            return found
    return None


def test_the_cycle_finder_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_engine_modules_import_one_another_without_a_cycle():
    graph = _engine_graph()
    assert "worldgen" in graph["corpus"] and "passage" in graph["worldgen"]  # the graph is really read
    assert _cycle(graph) is None


def test_the_engine_never_imports_streamlit():
    for path in sorted((ROOT / "engine").glob("*.py")):
        assert not [m for _, m in _imports(path) if m.split(".")[0] == "streamlit"], path.name


def test_nothing_reaches_into_streamlit_internals():
    files = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "ui").glob("*.py")),
             *sorted((ROOT / "tests").glob("*.py"))]
    for path in files:
        for _, m in _imports(path):
            assert not m.startswith(("streamlit.runtime", "streamlit.web")), (path.name, m)
            assert not any(part.startswith("_") for part in m.split(".")[1:]) or not m.startswith("streamlit"), \
                (path.name, m)
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "st":
                assert not node.attr.startswith("_"), (path.name, node.attr)


def test_the_pages_folder_holds_only_page_scripts():
    for path in (ROOT / "pages").iterdir():
        assert path.suffix == ".py" or path.name == "__pycache__", path.name
        if path.suffix == ".py":
            assert "st.title(" in path.read_text("utf-8"), path.name  # a page draws its own title
