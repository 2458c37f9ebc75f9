"""Finding fixed sleeps in test code by parsing it (``test_no_fixed_sleeps.py`` holds the rules).

A fixed sleep is a call of ``time.sleep``, ``asyncio.sleep``, ``anyio.sleep`` or ``trio.sleep``
(however imported: ``import asyncio as aio``, ``from time import sleep``) other than
``asyncio.sleep(0)``/``anyio.sleep(0)``, which only yields to the event loop. Each is reported with
the file, line and the function it is in (``outer.inner`` for a nested one, ``<module>`` at the top).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

SLEEPING_MODULES = frozenset({"time", "asyncio", "anyio", "trio"})


@dataclass(frozen=True, order=True)
class Sleep:
    path: str
    line: int
    function: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line} in {self.function}"


def _is_yield(call: ast.Call) -> bool:
    """``sleep(0)``: a turn of the event loop, not a wait."""
    return (
        len(call.args) == 1 and not call.keywords and isinstance(call.args[0], ast.Constant) and call.args[0].value == 0
    )


class _Finder(ast.NodeVisitor):
    def __init__(self, path: str) -> None:
        self.path = path
        self.modules: dict[str, str] = {}  # local name -> sleeping module it is
        self.functions: set[str] = set()  # local names bound to a module's sleep
        self.scope: list[str] = []
        self.found: list[Sleep] = []

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.name in SLEEPING_MODULES:
                self.modules[alias.asname or alias.name] = alias.name

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.module in SLEEPING_MODULES:
            for alias in node.names:
                if alias.name == "sleep":
                    self.functions.add(alias.asname or alias.name)

    def _within(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        self.scope.append(node.name)
        self.generic_visit(node)
        self.scope.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _within

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        sleeps = (
            isinstance(func, ast.Attribute)
            and func.attr == "sleep"
            and isinstance(func.value, ast.Name)
            and func.value.id in self.modules
        ) or (isinstance(func, ast.Name) and func.id in self.functions)
        if sleeps and not _is_yield(node):
            self.found.append(Sleep(self.path, node.lineno, ".".join(self.scope) or "<module>"))
        self.generic_visit(node)


def fixed_sleeps_in(source: str, path: str) -> list[Sleep]:
    finder = _Finder(path)
    finder.visit(ast.parse(source, filename=path))
    return sorted(finder.found)


def fixed_sleeps(root: Path, tests: str = "tests") -> list[Sleep]:
    """Every fixed sleep under ``root / tests``, with paths relative to ``root``."""
    found: list[Sleep] = []
    for file in sorted((root / tests).rglob("*.py")):
        found += fixed_sleeps_in(file.read_text(encoding="utf-8"), file.relative_to(root).as_posix())
    return found
