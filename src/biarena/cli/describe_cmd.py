"""`biarena describe KIND [NAME]`: the agents, importers and built-in benchmarks there are, and each one's options."""

import importlib
from typing import Any

import typer
from rich.text import Text

from biarena.cli.console import new_table, out, print_table, row
from biarena.errors import NotFoundError, did_you_mean
from biarena.options import describe_options, options_model

KINDS: dict[str, str] = {
    "agent": "biarena.agents:SYSTEMS",
    "importer": "biarena.benchmarks:IMPORTERS",
    "benchmark": "biarena.benchmarks:BUILTINS",
    "question-method": "biarena.cli.generate_cmd:METHODS",
    "scorer": "biarena.scoring:SCORERS",
    "model": "biarena.llm.model_options:MODEL_PROVIDERS",
}
"""Each kind of thing that takes options, and where its registry (a dict name -> factory, each factory naming its
options model) is found: describing another kind is one more line."""


def registry(kind: str) -> dict[str, Any]:
    """The registry of `kind` (NotFoundError, with a suggestion, for an unknown kind)."""
    if kind not in KINDS:
        hint = did_you_mean(kind, list(KINDS))
        raise NotFoundError(f"nothing to describe as '{kind}'{hint} (kinds: {', '.join(KINDS)})")
    module, _, attribute = KINDS[kind].partition(":")
    return getattr(importlib.import_module(module), attribute)


def made(factory: Any) -> Any:
    """What a registry's factory makes: a lazy factory (the scorers') names its class through `scorer_class()`."""
    named = getattr(factory, "scorer_class", None)
    return named() if callable(named) else factory


def about(factory: Any) -> str:
    """What a factory makes, from the first paragraph of its docstring."""
    return " ".join((factory.__doc__ or "").split("\n\n")[0].split())


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
    found = {each: made(factory) for each, factory in registry(kind).items()}
    if name is None:
        table = new_table(f"{kind}s", [(kind, "name"), ("what it is", "text"), ("options", "text")])
        for each, factory in found.items():
            row(table, each, about(factory), ", ".join(options_model(factory).model_fields) or "-")
        print_table(table)
        return
    if name not in found:
        choices = sorted(found)
        raise NotFoundError(f"unknown {kind} '{name}'{did_you_mean(name, choices)} (known: {', '.join(choices)})")
    factory = found[name]
    out.print(Text(f"{kind} {name}: {about(factory)}"))
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
