"""gameroom's modules import each other without a cycle, function-local imports included.

A cycle held apart by an import inside a function still couples the modules
both ways; this test reads every ``import`` of the sources (not only the ones
at the top of a module, but not those under ``if TYPE_CHECKING:``) and fails on
any cycle among the modules of ``service/``, ``schemas/`` and ``plugins/``
(issue 32, item 6). A package's ``__init__`` importing its own modules is not a
cycle unless one of them imports the package back.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Source folders by the package they install as (setup.cfg's package_dir).
FOLDERS = {
    "gameroom": ROOT / "service",
    "gameroom.schemas": ROOT / "schemas",
    "gameroom.plugins": ROOT / "plugins",
}
#: The modules that must sit on no cycle: the app, every module of the API package, the generator.
GUARDED = ("gameroom.app", "gameroom.api", "gameroom.openapi")


def _modules() -> dict[str, Path]:
    found = {}
    for package, folder in FOLDERS.items():
        for path in folder.rglob("*.py"):
            parts = path.relative_to(folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join((package, *parts))] = path
    return found


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(node: ast.AST):
    """Every import node under ``node`` that runs at some point: at module level or
    inside a function, but not under ``if TYPE_CHECKING:``."""
    if isinstance(node, ast.Import | ast.ImportFrom):
        yield node
    for child in ast.iter_child_nodes(node):
        runs = child.orelse if isinstance(child, ast.If) and _is_type_checking(child) else [child]
        for part in runs:
            yield from _imports(part)


def import_graph() -> dict[str, set[str]]:
    """module -> the gameroom modules it imports (a ``from pkg import name`` of a submodule counts as that module)."""
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        edges = graph.setdefault(name, set())
        for node in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = package.split(".")
                if node.level:
                    base = base[: len(base) - (node.level - 1)]
                    source = ".".join([*base, *([node.module] if node.module else [])])
                else:
                    source = node.module or ""
                targets = [f"{source}.{alias.name}" for alias in node.names]
                targets = [t if t in modules else source for t in targets]
            edges.update(t for t in targets if t in modules and t != name)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(component)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _guarded(module: str) -> bool:
    return any(module == g or module.startswith(g + ".") for g in GUARDED)


def test_the_graph_sees_function_local_imports():
    """The reader finds the imports this test is about (so an empty graph cannot pass it)."""
    graph = import_graph()
    assert "gameroom.app" in graph["gameroom.openapi"]  # since the cycle is gone, at the top of openapi.py
    assert "gameroom.api.gamedoc" in graph["gameroom.api.games"]
    assert "gameroom.app" in graph["gameroom"]  # the lazy create_app in gameroom/__init__.py
    assert {"gameroom.api.games", "gameroom.api.play"} <= graph["gameroom.api"]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]


def test_no_import_cycle_runs_through_the_app_the_api_or_the_openapi_generator():
    through = [sorted(c) for c in cycles(import_graph()) if any(_guarded(m) for m in c)]
    assert not through, through


def test_no_import_cycle_anywhere():
    """The other latent cycles of issue 32 (composition -> timeouts -> jobs -> composition, the
    event store's package, the conformance kit and its fork check) are gone too."""
    found = [sorted(c) for c in cycles(import_graph())]
    assert not found, found
