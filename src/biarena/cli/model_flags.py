"""The options that set a model as data: `-M NAME=VALUE` (`--judge-M` for a judge's) and `--models FILE`."""

from pathlib import Path
from typing import Any

import typer

from biarena.llm.model_options import ModelOptions, resolve_model

MODEL_CHOICES = "local (default), local:/path.gguf, openai:MODEL or openai:MODEL@URL, or a model named in --models."
"""The models `--model` and `--judge-model` take, as their help says it."""

MODEL_PAIRS = typer.Option(
    None,
    "-M",
    metavar="NAME=VALUE",
    help="Set a model option (repeatable): base_url, api_key_env, key_headers, timeout, retries, connections, "
    "temperature, extra_headers, extra_body, structured, prices, cache, max_outage, ...; keys only from the "
    "environment (api_key_env, key_headers); `biarena describe model openai` lists them.",
)
JUDGE_MODEL_PAIRS = typer.Option(
    None,
    "--judge-M",
    metavar="NAME=VALUE",
    help="Set an option of the judge's model (repeatable), as -M does for an agent's: e.g. api_key_env=JUDGE_KEY.",
)
MODELS_FILE = typer.Option(
    None,
    "--models",
    metavar="FILE.yaml",
    help="Named models (NAME: {model: openai:NAME@URL, OPTION: VALUE}); default: models.yaml here, if any.",
)
JUDGE_TEMPERATURE = typer.Option(0.0, "--judge-temperature", min=0.0, max=2.0, help="The judge model's temperature.")


def judge_model_flag(help: str) -> Any:
    """The `--judge-model` option, with the command's own `help` (whose judges, which models)."""
    return typer.Option(None, "--judge-model", help=help)


def model_options(text: str, pairs: list[str] | None, file: Path | None, flag: str = "-M") -> ModelOptions:
    """The model `text` names (a model string or a named model) with the `NAME=VALUE` pairs applied."""
    return resolve_model(text, pairs, file, flag=flag)


def judge_model_options(text: str | None, pairs: list[str] | None, file: Path | None, default: str) -> ModelOptions:
    """A judge's model (the default one unless named) with the `--judge-M NAME=VALUE` pairs applied."""
    return resolve_model(text or default, pairs, file, flag="--judge-M")
