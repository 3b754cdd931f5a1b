"""`biarena describe KIND [NAME]`: the agents, importers and built-in benchmarks there are, and each one's options."""

from pathlib import Path
from typing import Any

import typer
from rich.text import Text

from biarena.cli.console import new_table, out, print_table, row
from biarena.errors import NotFoundError, did_you_mean
from biarena.options import describe_options, options_model
from biarena.registry import BUILT_IN, Registry

KINDS: Registry[Registry[Any]] = Registry(
    "kind",
    {
        "agent": "biarena.agents:SYSTEMS",
        "importer": "biarena.benchmarks:IMPORTERS",
        "benchmark": "biarena.benchmarks:BUILTINS",
        "question-method": "biarena.generate.question_methods:METHODS",
        "scorer": "biarena.scoring:SCORERS",
        "model": "biarena.llm.providers:PROVIDERS",
        "contract": "biarena.scoring.contract_names:CONTRACTS",
        "engine": "biarena.db.open_database:ENGINES",
        "vertical": "biarena.synth:VERTICALS",
        "baseline": "biarena.judges.baselines:BASELINES",
        "campaign-engine": "biarena.campaign.run:ENGINES",
        "synth-engine": "biarena.synth.task_graph:ENGINES",
    },
)
"""Each kind of thing there is, and where its registry is found: describing another kind is one more line."""


def registry(kind: str) -> Registry[Any]:
    """The registry of `kind` (NotFoundError, with a suggestion, for an unknown kind)."""
    if kind not in KINDS:
        hint = did_you_mean(kind, list(KINDS))
        raise NotFoundError(f"nothing to describe as '{kind}'{hint} (kinds: {', '.join(KINDS)})")
    return KINDS[kind]


def about(factory: Any) -> str:
    """What a thing is: its `description` (a contract's), its file's name (a vertical's spec), else the first
    paragraph of its docstring."""
    if isinstance(getattr(factory, "description", None), str):
        return " ".join(factory.description.split())
    if isinstance(factory, Path):
        return f"spec {factory.name}"
    return " ".join((factory.__doc__ or "").split("\n\n")[0].split())


def source(found: Registry[Any], name: str) -> str:
    """" (plugin from PACKAGE)" for a plugin's entry, else nothing."""
    package = found.package(name)
    return f" (plugin from {package})" if package != BUILT_IN else ""


def describe(
    kind: str = typer.Argument(..., metavar="KIND", help=f"What to describe: {', '.join(KINDS)}."),
    name: str | None = typer.Argument(None, metavar="[NAME]", help="One of them; without it, all are listed."),
) -> None:
    """List the agents, importers, built-in benchmarks or scorers, or the options one takes: name, type, default,
    description.

    Options are set with -O NAME=VALUE (repeatable) or --options FILE.yaml (a mapping of NAME: VALUE) on the command
    that uses them: `run --agent NAME`, `import NAME`, `build NAME`, `generate questions --method NAME`; a scorer's
    with -O SCORER.NAME=VALUE on `score`.
    """
    kinds = registry(kind)
    if name is None:
        found = kinds.loaded()  # a plugin that fails to load is reported in one line and left out
        table = new_table(f"{kind}s", [(kind, "name"), ("what it is", "text"), ("options", "text")])
        for each, factory in found.items():
            shown = about(factory) + source(kinds, each)
            row(table, each, shown, ", ".join(options_model(factory).model_fields) or "-")
        print_table(table)
        return
    factory = kinds[name]  # an unknown name: one line with the close ones
    out.print(Text(f"{kind} {name}: {about(factory)}{source(kinds, name)}"))
    options = describe_options(options_model(factory))
    if not options:
        out.print(Text("It takes no options."))
        return
    table = new_table(None, [("option", "name"), ("type", "name"), ("default", "name"), ("description", "text")])
    for option in options:
        row(table, option.name, option.type, option.default, option.description)
    print_table(table)
    if kind == "model":
        out.print(Text("Set them with -M NAME=VALUE (--judge-M for a judge's model) or in a models file (--models)."))
        return
    how = f"-O {name}.NAME=VALUE on `biarena score`, -O NAME=VALUE on `biarena judge check`" if kind == "scorer" else ""
    out.print(Text(f"Set them with {how or '-O NAME=VALUE'} (repeatable; a list takes a,b,c) or --options FILE.yaml."))
