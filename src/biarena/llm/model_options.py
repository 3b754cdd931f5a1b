"""ModelOptions: a model as data (provider, server, key, limits, sampling), from a model string, a models file and
`-M NAME=VALUE` pairs.

A models file (YAML) names models::

    myvllm:
      model: openai:Qwen/Qwen2.5-7B-Instruct@http://gpu-box:8000/v1
      api_key_env: VLLM_API_KEY
      timeout: 300

`--model myvllm` then means that model with those options; `-M NAME=VALUE` changes any of them for one command.

Keys come only from the environment: `api_key_env` names the variable of the bearer key, `key_headers` those of
headers that carry one (Azure's `api-key`, a gateway's `X-Api-Key`). A key written anywhere else (in the URL, in
`extra_headers`, in `extra_query`) is refused in one line, as it would be stored with the run.
"""

import contextlib
import json
import re
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import AfterValidator, Field, ValidationInfo, field_validator

from biarena.errors import FormatError, UsageError, did_you_mean
from biarena.llm.prompt_lookup import DEFAULT_DRAFT
from biarena.llm.providers import PROVIDERS
from biarena.llm.redact import is_key_name, redact_text, redact_url, url_key_part
from biarena.options import Options, parse_option_pairs, validate_options
from biarena.text_file import read_named_file

MODELS_FILE = "models.yaml"
"""The models file read from the working directory when no `--models FILE` is given."""



def _provider(name: str | None) -> str | None:
    """A provider's name, checked against PROVIDERS (plugins' included)."""
    if name is not None and name not in PROVIDERS:
        known = list(PROVIDERS)
        raise ValueError(f"unknown model provider '{name}'{did_you_mean(name, known)} (known: {', '.join(known)})")
    return name


_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_FROM_ENVIRONMENT = (
    "which would be stored with the run: put it in an environment variable and name that with -M api_key_env=NAME"
    " (or -M key_headers=HEADER=NAME for a header)"
)


class ModelOptions(Options):
    """What a model is and how it is called; the key itself is never here, only the variable that holds it."""

    provider: Annotated[str | None, AfterValidator(_provider)] = None
    """The provider; default: the model string's prefix."""
    name: str | None = None
    """The model's name on the server (openai), or the GGUF file (local); default: the model string's."""
    base_url: str | None = None
    """The server's OpenAI-compatible URL (ending in /v1); default: the model string's @URL, else OpenAI's."""
    api_key_env: str | None = None
    """The environment variable holding the API key, read at each call; default: OPENAI_API_KEY, then
    BIARENA_API_KEY."""
    timeout: float = Field(120.0, gt=0)
    """Seconds to wait for one reply before the attempt counts as failed (a streamed reply: for its first token, and
    then between two pieces)."""
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
    key_headers: dict[str, str] = Field(default_factory=dict)
    """Headers that carry a key, each read at each call from the environment variable named: api-key=AZURE_KEY
    sends the value of $AZURE_KEY as `api-key` (as is: a bearer value holds `Bearer `)."""
    extra_headers: dict[str, str] = Field(default_factory=dict)
    """HTTP headers sent with every request (a gateway's routing headers); one that carries a key is refused: name
    its variable in key_headers."""
    extra_body: dict[str, Any] = Field(default_factory=dict)
    """Fields added to every request body (vLLM's top_k, a gateway's options); a value that reads as JSON is JSON."""
    extra_query: dict[str, str] = Field(default_factory=dict)
    """Query parameters added to every request URL (Azure's api-version); a key is refused here too."""
    structured: Literal["json_schema", "json_object", "prompt"] | None = None
    """How JSON replies are asked for; default: json_schema, stepping down per server when it rejects that."""
    prices: Path | None = None
    """YAML or JSON price table: model -> {prompt, completion} price per million tokens (usage cost)."""
    cache: bool = True
    """Use the response cache (replies already made are not asked for again)."""
    script: Path | None = None
    """mock only: a script file (YAML or JSON) of its replies, text or tool calls, that each conversation follows
    on its own (see the models page, "The mock model's script")."""
    draft: int = Field(DEFAULT_DRAFT, ge=0, le=32)
    """local only: tokens guessed per pass from the reply's own context (prompt lookup) and checked in one batch,
    keeping those plain decoding would choose; 0 (the default) decodes one token per pass."""

    # These checks raise UsageError rather than ValueError: pydantic would quote the value (the key) in its error.
    @field_validator("base_url", mode="after")
    @classmethod
    def _no_key_in_url(cls, url: str | None) -> str | None:
        """A URL with `user:password@` or a query is refused, and not quoted whole."""
        if url is None:
            return url
        part = url_key_part(url)
        if part is not None:
            raise UsageError(f"the model's URL {redact_url(url)} holds a key ({part}), {_FROM_ENVIRONMENT}")
        if urlsplit(url).query:
            raise UsageError(
                f"the model's URL {redact_url(url)} has a query: the server's paths are added after the URL, so "
                "send its parameters with -M extra_query=NAME=VALUE"
            )
        return url

    @field_validator("extra_headers", "extra_query", mode="after")
    @classmethod
    def _no_key_given(cls, values: dict[str, str], info: ValidationInfo) -> dict[str, str]:
        """A header or query parameter that carries a key (by its name, or a `Bearer` value) is refused."""
        for name, value in values.items():
            if is_key_name(name) or value.strip().lower().startswith("bearer "):
                raise UsageError(f"{info.field_name}: '{name}' carries a key, {_FROM_ENVIRONMENT}")
        return values

    @field_validator("api_key_env", mode="after")
    @classmethod
    def _variable_name(cls, name: str | None) -> str | None:
        """api_key_env names a variable; a value that is no variable name may be the key itself: not quoted."""
        if name is not None and not _VARIABLE.fullmatch(name):
            raise UsageError("api_key_env names the environment variable that holds the key, not the key itself")
        return name

    @field_validator("key_headers", mode="after")
    @classmethod
    def _variable_names(cls, headers: dict[str, str]) -> dict[str, str]:
        """Each header is named with the variable that holds its key (not the key itself, which is not quoted)."""
        for name, variable in headers.items():
            if not _VARIABLE.fullmatch(variable):
                raise UsageError(
                    f"key_headers: '{name}' takes the name of the environment variable that holds its key "
                    f"({name}=VARIABLE), not the key itself"
                )
        return headers

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
    from biarena.yaml_load import load_yaml

    data = load_yaml(read_named_file(path, "models file"), str(path))
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
        shown = redact_text(text)  # a model string may hold a URL with a key, refused below: not to be quoted
        prefix = text.partition(":")[0]
        if prefix not in PROVIDERS:
            known = ", ".join(sorted(named)) if named else f"none: no {MODELS_FILE} here"
            raise UsageError(
                f"unknown model '{shown}': not a model string (local, local:/path.gguf, openai:NAME[@URL], mock) "
                f"nor a named model (named: {known})" + did_you_mean(shown, [*named, *PROVIDERS])
            )
        values.update(split_spec(text))
        owner = f"model '{shown}'"
    values.update(parse_option_pairs(ModelOptions, pairs or [], flag))
    return validate_options(ModelOptions, values, owner, flag)


__all__ = [
    "MODELS_FILE",
    "ModelOptions",
    "models_file",
    "read_models_file",
    "resolve_model",
    "split_spec",
]
