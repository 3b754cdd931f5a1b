"""Print the figures of a source tree's shape: long modules and functions, SQL f-strings, the files naming each engine.

    python scripts/house_figures.py [SRC]      # default: src/biarena of this checkout

An engine is named by a file that imports its driver or holds a string starting with its name (docstrings aside).
"""

import ast
import re
import sys
from pathlib import Path

ENGINES = {"sqlite": ("sqlite3",), "duckdb": ("duckdb",), "postgres": ("psycopg", "psycopg2"), "mysql": ("pymysql",)}
_STATEMENT = re.compile(r"^\s*(SELECT|WITH|INSERT|UPDATE|DELETE|CREATE|DROP|ALTER|PRAGMA|ATTACH)\b", re.I)
_CLAUSE = re.compile(r"\b(FROM|WHERE|GROUP BY|ORDER BY|VALUES|JOIN)\b \S")


def _docstrings(tree: ast.AST) -> set[int]:
    kinds = ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef
    return {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, kinds) and node.body and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }


def engines_named(tree: ast.AST) -> tuple[set[str], set[str]]:
    """The engines a module names: those whose driver it imports, and those a string of it starts with."""
    docstrings = _docstrings(tree)
    imported, named = set(), set()
    for node in ast.walk(tree):
        modules = []
        if isinstance(node, ast.Import):
            modules = [alias.name.split(".")[0] for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            modules = [(node.module or "").split(".")[0]]
        for engine, drivers in ENGINES.items():
            if any(module in drivers for module in modules):
                imported.add(engine)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            named |= {engine for engine in ENGINES if node.value.startswith(engine)}
    return imported, named


def sql_fstrings(tree: ast.AST) -> int:
    """f-strings whose text reads as SQL."""
    count = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            text = "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
            count += bool(_STATEMENT.search(text) or _CLAUSE.search(text))
    return count


def main() -> None:
    """Print the figures for the tree named on the command line (default: this checkout's src/biarena)."""
    src = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1] / "src" / "biarena"
    modules, functions, fstrings = {}, {}, 0
    naming: dict[str, list[set[str]]] = {engine: [set(), set()] for engine in ENGINES}
    for path in sorted(src.rglob("*.py")):
        name = path.relative_to(src).as_posix()
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        modules[name] = len(text.splitlines())
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                functions[f"{name}::{node.name}:{node.lineno}"] = (node.end_lineno or node.lineno) - node.lineno + 1
        fstrings += sql_fstrings(tree)
        for found, way in zip(engines_named(tree), (0, 1), strict=True):
            for engine in found:
                naming[engine][way].add(name)
    print(f"modules: {len(modules)}, {sum(modules.values())} lines")
    for limit in (400, 450):
        print(f"  over {limit} lines: {sum(n > limit for n in modules.values())}")
    print(f"  largest: {', '.join(f'{m} {n}' for m, n in sorted(modules.items(), key=lambda kv: -kv[1])[:5])}")
    print(f"functions: {len(functions)}")
    for limit in (80, 100):
        print(f"  over {limit} lines: {sum(n > limit for n in functions.values())}")
    print(f"SQL f-strings: {fstrings}")
    for engine, (imports, holds) in naming.items():
        both = len(imports | holds)
        print(f"files naming {engine}: {both} ({len(imports)} import its driver, {len(holds)} hold its name)")


if __name__ == "__main__":
    main()
