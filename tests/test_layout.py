"""The architecture's rules, read from the source: the engine's modules import one another without a
cycle, the engine never imports Streamlit, and nothing touches Streamlit's internals."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT


def _imports(path: Path) -> list[tuple[int, str]]:
    """(level, dotted name) of everything a file imports, including inside functions; a name imported
    from a module reads as module.name, which resolves to the module when it is not one itself."""
    out = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            out += [(0, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):  # each name, as it may be a module ("from ..store import dense")
            out += [(node.level, f"{node.module}.{a.name}" if node.module else a.name) for a in node.names]
    return out


LAYERS = ("base", "rank", "ingest", "graph", "filings", "store", "retrieve", "indexing", "deals", "explain", "evaluate",
          "cli")  # bottom to top
TOP = {"cli": "cli", "__main__": "cli"}  # the other top-level modules are the base every layer may use


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT / "engine").with_suffix("")
    return ".".join(p for p in rel.parts if p != "__init__") or "__init__"


def _layer(module: str) -> str:
    head = module.split(".")[0]
    return head if "." in module or head in LAYERS else TOP.get(head, "base")


def _resolve(importer: str, level: int, target: str, is_package: bool) -> str:
    """The engine module an import names, from the importing module's dotted name."""
    if level == 0:
        return target[len("engine."):]
    base = importer.split(".")[: -level if not is_package else len(importer.split(".")) - level + 1]
    return ".".join([*base, target] if target else base)


def _engine_graph() -> dict[str, set[str]]:
    paths = {_module_name(p): p for p in (ROOT / "engine").rglob("*.py")}
    graph = {}
    for name, path in paths.items():
        deps = set()
        for level, target in _imports(path):
            if level == 0 and not target.startswith("engine."):
                continue
            module = _resolve(name, level, target, path.name == "__init__.py")
            while module and module not in paths:  # "from .store import dense" names a module of a package
                module = module.rpartition(".")[0]
            if module and module != name:
                deps.add(module)
        graph[name] = deps
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
    assert "ingest.worldgen" in graph["ingest.corpus"] and "ingest.passage" in graph["ingest.worldgen"]  # really read
    assert "store.dense" in graph["evaluate.perf.ann"]  # "from ...store import dense" resolves to the module
    assert _cycle(graph) is None


def test_every_import_points_down_the_layers():
    graph = _engine_graph()
    assert {_layer(m) for m in graph} == set(LAYERS)  # every layer has modules, and no module is outside one
    upward = [(m, d) for m, deps in graph.items() for d in deps
              if m != "__init__" and LAYERS.index(_layer(d)) > LAYERS.index(_layer(m))]
    assert upward == []


def test_each_sub_package_says_what_it_is():
    for layer in LAYERS[1:-1]:
        doc = ast.get_docstring(ast.parse((ROOT / "engine" / layer / "__init__.py").read_text("utf-8")))
        assert doc and doc.lower().startswith(layer) and len(doc.split()) >= 25, layer


def test_the_engine_never_imports_streamlit():
    for path in sorted((ROOT / "engine").rglob("*.py")):
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


def test_the_makefiles_commands_name_modules_that_exist():
    """`make run` exports the encoder and encodes the deal descriptions before the app starts; a module or function
    that moved must not break it. Each snippet's imports run and each call's function is found (not called: the
    deals' encoding takes minutes, and its own tests run it)."""
    import re
    import subprocess
    import sys

    snippets = re.findall(r'-c "([^"]+)"', (ROOT / "Makefile").read_text("utf-8"))
    assert len(snippets) >= 2
    for code in snippets:
        statements = [s.strip() for s in code.split(";")]
        calls = [s for s in statements if not s.startswith(("from ", "import "))]
        assert calls and all(re.fullmatch(r"[\w.]+\(\)", c) for c in calls), code
        check = "; ".join([s for s in statements if s not in calls] + [f"assert callable({c[:-2]})" for c in calls])
        done = subprocess.run([sys.executable, "-c", check], cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]


def test_the_readme_layout_map_lists_every_engine_module_in_its_layer():
    import re

    table = (ROOT / "README.md").read_text("utf-8").split("## Layout", 1)[1]
    listed: dict[str, set[str]] = {}
    for row in re.findall(r"^\| (base \(`engine/\*\.py`\)|`\w+/`|top) \| ([^|]+) \|", table, re.M):
        folder = row[0].strip("`/") if row[0].startswith("`") else ""
        listed[folder] = listed.get(folder, set()) | set(re.findall(r"`(\w+)`", row[1]))
    on_disk: dict[str, set[str]] = {}
    for path in (ROOT / "engine").rglob("*.py"):
        rel = path.relative_to(ROOT / "engine")
        layer = on_disk.setdefault(rel.parts[0] if len(rel.parts) > 1 else "", set())
        if path.stem != "__init__":
            layer.add(path.stem)
        layer.update(rel.parts[1:-1])  # a package inside a layer (evaluate/perf/) is listed by name too
    on_disk[""] -= {"cli", "__main__"}
    assert listed.pop("", set()) >= on_disk.pop("")  # base and top share the engine folder
    assert listed == on_disk


def test_the_readme_is_read_in_minutes():
    """At most 15,000 characters: what PathLens is, the two commands, the main job, the cheat-sheet, the
    limits and the layout; everything else is in docs/."""
    text = (ROOT / "README.md").read_text("utf-8")
    assert len(text) <= 15_000, f"README.md has {len(text):,} characters; move detail to docs/"


def test_no_source_file_outside_tests_is_over_400_lines():
    """A module a reader can hold in their head; a longer one is split by concern."""
    long = {str(p.relative_to(ROOT)): n for p in [ROOT / "app.py", *ROOT.glob("engine/**/*.py"), *ROOT.glob("ui/*.py"),
                                                   *ROOT.glob("pages/*.py")]
            if (n := len(p.read_text("utf-8").splitlines())) > 400}
    assert long == {}
