"""No import cycle in the package: no module imports, even through others, a module
that imports it. Imports under `if TYPE_CHECKING:` count too (a cycle hidden there
is still two modules that cannot be read apart). lint-imports checks the layers;
this checks within them."""

from __future__ import annotations

from collections.abc import Mapping, Set

import grimp


def cycles(imports: Mapping[str, Set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each a
    group of modules that import one another."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in sorted(imports.get(module, ())):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            group: list[str] = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                group.append(top)
                if top == module:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for module in sorted(imports):
        if module not in index:
            visit(module)
    return found


def test_cycles_finds_a_cycle_through_several_modules() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_package_has_no_import_cycle() -> None:
    graph = grimp.build_graph("hollywood_gin", exclude_type_checking_imports=False)
    imports = {m: graph.find_modules_directly_imported_by(m) for m in graph.modules}
    assert len(imports) > 50  # the whole package was read
    assert cycles(imports) == []
