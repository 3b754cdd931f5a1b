"""ARCHITECTURE.md's claims that a test can hold: its layer table is the import-linter contract, row for row; the
workflows it names exist and take settings and an event handler; the registries it names are `Registry` objects."""

import ast
import importlib
import inspect
import re
import tomllib
from pathlib import Path

from biarena.registry import Registry

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "biarena"
ARCHITECTURE = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")


def _contract_layers() -> list[set[str]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    layers = next(c for c in config["contracts"] if c["name"] == "Packages import only the layers below them")
    return [{part.strip().removeprefix("biarena.") for part in re.split(r"[|:]", layer)} for layer in layers["layers"]]


def _table_layers(text: str) -> list[set[str]]:
    """Each row of a page's layer table: the packages named in backticks in its second cell."""
    rows = []
    for line in text.splitlines():
        cells = re.split(r"(?<!\\)\|", line)
        if len(cells) > 3 and cells[1].strip().isdigit():
            rows.append(set(re.findall(r"`([a-z_]+)`", cells[2])))
    return rows


def test_the_layer_table_is_the_import_contract_row_for_row() -> None:
    contract = _contract_layers()
    assert _table_layers(ARCHITECTURE) == contract
    assert _table_layers((ROOT / "docs" / "development.md").read_text(encoding="utf-8")) == contract


def _named_workflows() -> list[str]:
    rule = ARCHITECTURE.split("**A command's work is a library function**", 1)[1].split("\n- ", 1)[0]
    return re.findall(r"`([a-z_.]+\.execute[a-z_]*)`", rule)


def _workflow(dotted: str) -> object:
    """`package.module.function`, or `package.module` whose function has the module's last name."""
    module_name, name = dotted.rsplit(".", 1)
    try:
        found = getattr(importlib.import_module(f"biarena.{module_name}"), name)
    except (ImportError, AttributeError):
        found = None
    if found is None or inspect.ismodule(found):  # the package's attribute is the submodule once it is loaded
        return getattr(importlib.import_module(f"biarena.{dotted}"), name)
    return found


def test_every_workflow_the_page_names_takes_settings_and_an_event_handler() -> None:
    named = _named_workflows()
    assert len(named) >= 9, named
    for dotted in named:
        parameters = list(inspect.signature(_workflow(dotted)).parameters)  # type: ignore[arg-type]
        assert parameters[:2] == ["settings", "on_event"], (dotted, parameters)


def test_every_workflow_in_the_source_has_that_shape() -> None:
    """Each module-level `execute_*` function: a settings model first and the event handler last (export also
    takes the stream it writes to, between them)."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("execute_"):
                names = [arg.arg for arg in node.args.args]
                found.append(node.name)
                where = (path.relative_to(SRC).as_posix(), node.name, names)
                assert names[0] == "settings" and names[-1] == "on_event", where
                assert len(names) == 2 or node.name == "execute_export", where
    assert {"execute_run", "execute_score", "execute_pairwise", "execute_demo"} <= set(found)


def test_the_registries_the_page_names_are_registry_objects() -> None:
    rule = ARCHITECTURE.split("**Registries are `Registry` objects**", 1)[1].split("\n- ", 1)[0]
    names = re.findall(r"`([A-Z_]+)`", rule)
    assert names, rule
    homes = {
        "SYSTEMS": "biarena.agents",
        "SCORERS": "biarena.scoring.registry",
        "IMPORTERS": "biarena.benchmarks",
        "BUILTINS": "biarena.benchmarks.builtin",
    }
    assert set(names) <= homes.keys(), names
    for name in names:
        assert isinstance(getattr(importlib.import_module(homes[name]), name), Registry), name


def _writes_to_the_terminal(node: ast.AST) -> bool:
    """A `print(...)` call or a write to `sys.stdout` / `sys.stderr`."""
    if not isinstance(node, ast.Call):
        return False
    if isinstance(node.func, ast.Name) and node.func.id == "print":
        return True
    target = node.func
    return (
        isinstance(target, ast.Attribute)
        and target.attr in ("write", "writelines")
        and isinstance(target.value, ast.Attribute)
        and target.value.attr in ("stdout", "stderr")
        and isinstance(target.value.value, ast.Name)
        and target.value.value.id == "sys"
    )


def test_only_the_command_line_and_the_api_print() -> None:
    """The library reports through events and warnings; the CLI (and the API, its other face) print them."""
    printing = sorted(
        f"{path.relative_to(SRC).as_posix()}:{node.lineno}"
        for path in SRC.rglob("*.py")
        if path.relative_to(SRC).parts[0] not in ("cli", "api")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if _writes_to_the_terminal(node)
    )
    assert printing == []
    cli_prints = [
        path
        for path in (SRC / "cli").rglob("*.py")
        if any(map(_writes_to_the_terminal, ast.walk(ast.parse(path.read_text()))))
    ]
    assert cli_prints, "the check finds nothing at all: the detector is broken"
