"""Sizes: no module over 450 lines and no function over 80, but for the few listed here with the reason each stays.

The lists only shrink: a listed module or function that falls under its limit (or is gone) must be taken off.
"""

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "biarena"

MAX_MODULE_LINES = 450
MAX_FUNCTION_LINES = 80

LONG_MODULES: dict[str, str] = {}
"""Modules over MAX_MODULE_LINES, by path below src/biarena, with the reason each stays."""

LONG_FUNCTIONS = {
    "runner/run.py::_answer_all": "the answering loop with three closures (record, over_budget, submit) sharing its "
    "state; to become a class",
    "scoring/execute.py::execute_score": "the scoring workflow with two closures (make_model, progress) sharing its "
    "state; to become a class",
    "runner/execute.py::answer_questions": "the answering workflow inside the run store and the event listener; to "
    "split with runner/run.py::_answer_all",
    "report/svg_chart.py::grouped_bars": "one SVG drawing (axes, bars with their values and whiskers, legend) in "
    "order; to split by part",
    "generate/bibench_questions/__init__.py::generate_template_questions": "the template pipeline: generate, then "
    "keep or drop each question (duplicate, names an identifier) and write; to split by step",
}
"""Functions over MAX_FUNCTION_LINES, as `path::qualified name`, with the reason each stays."""


def _modules() -> dict[str, Path]:
    return {path.relative_to(SRC).as_posix(): path for path in sorted(SRC.rglob("*.py"))}


def _module_lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def _function_lines(name: str, path: Path) -> dict[str, int]:
    """Each function's and method's length in lines (its def to its last line), by `path::qualified name`."""
    found: dict[str, int] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                qualified = f"{prefix}{child.name}"
                found[f"{name}::{qualified}"] = (child.end_lineno or child.lineno) - child.lineno + 1
                visit(child, f"{qualified}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(ast.parse(path.read_text(encoding="utf-8")), "")
    return found


def _all_functions() -> dict[str, int]:
    found: dict[str, int] = {}
    for name, path in _modules().items():
        found |= _function_lines(name, path)
    return found


def test_no_module_over_the_limit_but_the_listed() -> None:
    long = {name: n for name, path in _modules().items() if (n := _module_lines(path)) > MAX_MODULE_LINES}
    unlisted = {name: n for name, n in long.items() if name not in LONG_MODULES}
    assert unlisted == {}, f"modules over {MAX_MODULE_LINES} lines (split them by what they export): {unlisted}"


def test_no_function_over_the_limit_but_the_listed() -> None:
    long = {name: n for name, n in _all_functions().items() if n > MAX_FUNCTION_LINES}
    unlisted = {name: n for name, n in long.items() if name not in LONG_FUNCTIONS}
    assert unlisted == {}, f"functions over {MAX_FUNCTION_LINES} lines (split them): {unlisted}"


def test_the_lists_name_only_what_is_still_over_the_limit() -> None:
    modules, functions = _modules(), _all_functions()
    stale = [name for name in LONG_MODULES if name not in modules or _module_lines(modules[name]) <= MAX_MODULE_LINES]
    stale += [name for name in LONG_FUNCTIONS if functions.get(name, 0) <= MAX_FUNCTION_LINES]
    assert stale == [], f"listed but no longer over the limit (take them off the list): {stale}"


def test_every_listed_size_has_a_reason() -> None:
    assert all(reason.strip() for reason in [*LONG_MODULES.values(), *LONG_FUNCTIONS.values()])


def test_lengths_are_counted_from_the_def_to_the_last_line(tmp_path: Path) -> None:
    source = tmp_path / "sample.py"
    source.write_text(
        "class A:\n    def method(self):\n        def inner():\n            return 1\n\n        return inner()\n\n\n"
        "async def top():\n    pass\n",
        encoding="utf-8",
    )
    assert _function_lines("sample.py", source) == {
        "sample.py::A.method": 5,
        "sample.py::A.method.inner": 2,
        "sample.py::top": 2,
    }
    assert _module_lines(source) == 10
