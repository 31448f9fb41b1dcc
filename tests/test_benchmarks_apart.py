"""`benchmarks/` is a tool: no test imports from it (tests/ may serve the benchmarks,
as `tests/bots/duels.py` and `tests/bots/oracle.py` do, never the other way), so the
suite runs and reads without it."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import REPO


def imports_of_benchmarks(source: str) -> list[str]:
    """The modules of `benchmarks` that a Python source imports."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.split(".")[0] == "benchmarks"]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found += [node.module] if node.module.split(".")[0] == "benchmarks" else []
    return found


def test_no_test_imports_from_benchmarks() -> None:
    found = {
        str(path.relative_to(REPO)): names
        for path in sorted((REPO / "tests").rglob("*.py"))
        if (names := imports_of_benchmarks(path.read_text(encoding="utf-8")))
    }
    assert found == {}


def test_the_check_sees_every_way_in(tmp_path: Path) -> None:
    source = "import benchmarks.oracle\nfrom benchmarks import bot_pool\n"
    source += "def f():\n    from benchmarks.bench_bots import duel\n"
    assert imports_of_benchmarks(source) == [
        "benchmarks.oracle",
        "benchmarks",
        "benchmarks.bench_bots",
    ]
    assert imports_of_benchmarks("from tests.bots import oracle\nimport benchmarking\n") == []
