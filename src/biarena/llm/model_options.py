"""ModelOptions: a model as data (provider, server, key, limits, sampling), from a model string, a models file and
`-M NAME=VALUE` pairs.

A models file (YAML) names models::

    myvllm:
      model: openai:Qwen/Qwen2.5-7B-Instruct@http://gpu-box:8000/v1
      api_key_env: VLLM_API_KEY
      timeout: 300

`--model myvllm` then means that model with those options; `-M NAME=VALUE` changes any of them for one command.
"""

import contextlib
import json
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, field_validator

from biarena.errors import FormatError, NotFoundError, UsageError, did_you_mean
from biarena.llm.prompt_lookup import DEFAULT_DRAFT
from biarena.options import Options, parse_option_pairs, validate_options

MODELS_FILE = "models.yaml"
"""The models file read from the working directory when no `--models FILE` is given."""

PROVIDER_NAMES = ("local", "openai", "mock")


class ModelOptions(Options):
    """What a model is and how it is called; the key itself is never here, only the variable that holds it."""

    provider: Literal["local", "openai", "mock"] | None = None
    """The provider; default: the model string's prefix."""
    name: str | None = None
    """The model's name on the server (openai), or the GGUF file (local); default: the model string's."""
    base_url: str | None = None
    """The server's OpenAI-compatible URL (ending in /v1); default: the model string's @URL, else OpenAI's."""
    api_key_env: str | None = None
    """The environment variable holding the API key, read at each call; default: OPENAI_API_KEY, then
    BIARENA_API_KEY."""
    timeout: float = Field(120.0, gt=0)
    """Seconds to wait for one reply before the attempt counts as failed."""
    retries: int = Field(4, ge=0)
    """Attempts after the first for a call that failed on a timeout, a lost connection, 429 or 5xx."""
    connections: int | None = Field(None, ge=1)
    """Requests sent to the server at once; default: the command's --concurrency."""
    max_outage: int = Field(3, ge=1)
    """Stop after this many questions (or judgements) in a row got no reply because the server did not answer."""
    max_wait: float = Field(60.0, ge=0)
    """The longest wait taken when a server answers 429 or 503 with Retry-After, in seconds."""
    temperature: float | None = Field(None, ge=0, le=2)
    """Sampling temperature for every call (replaces the one the agent or judge asks for)."""
    top_p: float | None = Field(None, gt=0, le=1)
    """Nucleus sampling for every call (none sent by default)."""
    max_tokens: int | None = Field(None, ge=1)
    """The most tokens a reply may have, whatever the agent or judge asks for (a server with a small context)."""
    extra_headers: dict[str, str] = Field(default_factory=dict)
    """HTTP headers sent with every request (a gateway's routing headers)."""
    extra_body: dict[str, Any] = Field(default_factory=dict)
    """Fields added to every request body (vLLM's top_k, a gateway's options); a value that reads as JSON is JSON."""
    structured: Literal["json_schema", "json_object", "prompt"] | None = None
    """How JSON replies are asked for; default: json_schema, stepping down per server when it rejects that."""
    prices: Path | None = None
    """YAML or JSON price table: model -> {prompt, completion} price per million tokens (usage cost)."""
    cache: bool = True
    """Use the response cache (replies already made are not asked for again)."""
    draft: int = Field(DEFAULT_DRAFT, ge=0, le=32)
    """local only: tokens guessed per pass from the reply's own context (prompt lookup) and checked in one batch,
    keeping those plain decoding would choose; 0 (the default) decodes one token per pass."""

    @field_validator("extra_body", mode="after")
    @classmethod
    def _json_values(cls, body: dict[str, Any]) -> dict[str, Any]:
        """`-M extra_body=top_k=20` gives text: a value that reads as JSON (a number, true, a list) becomes it."""
        read = {}
        for key, value in body.items():
            if isinstance(value, str):
                with contextlib.suppress(ValueError):
                    value = json.loads(value)
            read[key] = value
        return read

    def spec(self) -> str:
        """The model string these options name: `provider:name[@base_url]`."""
        text = f"{self.provider or 'local'}" + (f":{self.name}" if self.name else "")
        return text + (f"@{self.base_url}" if self.base_url else "")


class OpenAIModel(ModelOptions):
    """A model on OpenAI or any OpenAI-compatible server (vLLM, Ollama, llama.cpp's server, a gateway):
    openai:NAME[@BASE_URL]."""


class LocalModel(ModelOptions):
    """A GGUF model run in-process by llama.cpp: local (the embedded model) or local:/path.gguf."""


MODEL_PROVIDERS: dict[str, type[ModelOptions]] = {"openai": OpenAIModel, "local": LocalModel}
"""The providers `describe model` lists, each with the options a model takes (the same for every provider; the
server's options are ignored by `local`)."""


def split_spec(spec: str) -> dict[str, str]:
    """A model string's parts as options: `openai:qwen@http://h/v1` -> provider, name, base_url."""
    prefix, _, rest = spec.partition(":")
    values = {"provider": prefix}
    if prefix == "openai":
        name, _, base_url = rest.partition("@")
        if name:
            values["name"] = name
        if base_url:
            values["base_url"] = base_url
    elif rest:
        values["name"] = rest
    return values


def read_models_file(path: Path) -> dict[str, dict[str, Any]]:
    """A models file: named models, each a mapping of `model: MODEL-STRING` and model options."""
    import yaml

    if not path.is_file():
        raise NotFoundError(f"models file not found: {path}")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        raise FormatError(f"{path}: cannot read the models file: {' '.join(str(error).split())}") from None
    if data is None:
        return {}
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise FormatError(f"{path}: a models file maps model names to their options (model: openai:NAME@URL, ...)")
    return {str(name): {str(k).replace("-", "_"): v for k, v in entry.items()} for name, entry in data.items()}


def models_file(path: Path | None) -> Path | None:
    """The models file to read: the one given, else models.yaml in the working directory when there is one."""
    if path is not None:
        return path
    default = Path(MODELS_FILE)
    return default if default.is_file() else None


def resolve_model(
    text: str, pairs: list[str] | None = None, file: Path | None = None, *, flag: str = "-M"
) -> ModelOptions:
    """The options of the model `text` names (a model string or a name in the models file), changed by
    `NAME=VALUE` pairs."""
    source = models_file(file)
    named = read_models_file(source) if source is not None else {}
    values: dict[str, Any] = {}
    if text in named:
        entry = dict(named[text])
        model = entry.pop("model", None)
        if model is not None:
            values.update(split_spec(str(model)))
        values.update(entry)
        owner = f"model '{text}' ({source})"
    else:
        prefix = text.partition(":")[0]
        if prefix not in PROVIDER_NAMES:
            known = ", ".join(sorted(named)) if named else f"none: no {MODELS_FILE} here"
            raise UsageError(
                f"unknown model '{text}': not a model string (local, local:/path.gguf, openai:NAME[@URL], mock) "
                f"nor a named model (named: {known})" + did_you_mean(text, [*named, *PROVIDER_NAMES])
            )
        values.update(split_spec(text))
        owner = f"model '{text}'"
    values.update(parse_option_pairs(ModelOptions, pairs or [], flag))
    return validate_options(ModelOptions, values, owner, flag)


__all__ = [
    "MODELS_FILE",
    "MODEL_PROVIDERS",
    "ModelOptions",
    "models_file",
    "read_models_file",
    "resolve_model",
    "split_spec",
]
