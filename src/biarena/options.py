"""Options: what an agent, importer, built-in benchmark or scorer lets a user set, declared once as a pydantic model.

The model is the one place an option's name, type, default and description are written. The command line reads
`-O NAME=VALUE` and `--options FILE.yaml` against it (`biarena.cli.options.gather_options`), `biarena describe`
lists it, and the Python API validates keyword arguments with it. A registry's factory names its model as
`factory.Options`.
"""

import re
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic.fields import FieldInfo

from biarena.errors import UsageError, did_you_mean

_SHOWN_VALUE = 80
"""Characters of a bad value quoted in an error."""


class Options(BaseModel):
    """Base of every options model: an unknown name or a bad value is refused, and made options do not change."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    @classmethod
    def resolve(cls, options: "Options | None", values: Mapping[str, Any], owner: str) -> Self:
        """`options` when given, else the options made from keyword `values` (UsageError names a bad one)."""
        if options is None:
            return validate_options(cls, values, owner)
        if values:
            raise UsageError(f"{owner}: give options either as an options object or as keywords, not both")
        if not isinstance(options, cls):
            raise UsageError(f"{owner} takes {cls.__name__}, not {type(options).__name__}")
        return options


class NoOptions(Options):
    """Takes no options."""


OptionsModel = TypeVar("OptionsModel", bound=Options)
F = TypeVar("F", bound=Callable[..., Any])


def takes(model: type[Options]) -> Callable[[F], F]:
    """Mark a factory function as taking the options `model` (read back with `options_model`)."""

    def mark(factory: F) -> F:
        factory.Options = model  # type: ignore[attr-defined]
        return factory

    return mark


def options_model(factory: Any) -> type[Options]:
    """The options model a registry's factory takes (NoOptions when it declares none); a registry may also map
    names straight to options models."""
    model = factory if isinstance(factory, type) and issubclass(factory, Options) else getattr(factory, "Options", None)
    return model if isinstance(model, type) and issubclass(model, Options) else NoOptions


@dataclass(frozen=True)
class Shown:
    """How `describe` names a field's type and shows its default, for types whose Python form reads badly.

    Put it in the field's `Annotated[...]`: `Annotated[int, Shown("size", format_size)]`."""

    type_name: str
    show: Callable[[Any], str] = str


def _shown(value: Any) -> str:
    """A value as the user gave it: a list as a,b,c; text quoted only when it holds more than a plain word."""
    if isinstance(value, list | tuple):
        value = ",".join(map(str, value))
    text = value if isinstance(value, str) else str(value)
    text = text if len(text) <= _SHOWN_VALUE else text[: _SHOWN_VALUE - 1] + "…"
    plain = isinstance(value, str) and re.fullmatch(r"[\w.:/@+,=-]+", text) is not None
    return repr(text) if isinstance(value, str) and not plain else text


def _problem(error: Any) -> str:
    """A pydantic error message as what the value must be."""
    message = str(error["msg"])
    for prefix, start in (("Input should be ", "must be "), ("Value error, ", ""), ("Assertion failed, ", "")):
        if message.startswith(prefix):
            return start + message[len(prefix) :]
    return message[:1].lower() + message[1:]


def validate_options(model: type[OptionsModel], values: Mapping[str, Any], owner: str, flag: str = "") -> OptionsModel:
    """Make `model` from `values`; one-line UsageError naming `owner` for an unknown name, a missing or bad value.

    `flag`, when given (`-O`), is how the user sets an option, and a missing one is asked for that way."""
    fields = model.model_fields
    names = sorted(fields)
    for name in values:
        if name not in fields:
            if not names:
                raise UsageError(f"{owner} does not take option '{name}' (it takes none)")
            hint = did_you_mean(name, names)
            raise UsageError(f"{owner} does not take option '{name}'{hint} (its options: {', '.join(names)})")
    try:
        return model.model_validate(dict(values))
    except ValidationError as error:
        first = error.errors()[0]
        name = str(first["loc"][0]) if first["loc"] else ""
        if first["type"] == "missing":
            about = " ".join((fields[name].description or "").split()) if name in fields else None
            ask = f"{flag} {name}=VALUE" if flag else f"option '{name}'"
            raise UsageError(f"{owner} needs {ask}" + (f" ({about.rstrip('.')})" if about else "")) from None
        given = first.get("input") if len(first["loc"]) > 1 or name not in values else values[name]
        item = "".join(f"[{part}]" for part in first["loc"][1:])
        place = f"{flag} {name}{item}" if flag else f"option {name}{item}"
        raise UsageError(f"{owner}: {place}={_shown(given)}: {_problem(first)}") from None


def _plain(annotation: Any) -> Any:
    """The annotation without `Annotated` and without `None` (`int | None` is `int`)."""
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        parts = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _plain(parts[0]) if len(parts) == 1 else typing.Union[tuple(parts)]  # noqa: UP007 (from a tuple)
    return annotation


def _is_list(field: FieldInfo) -> bool:
    return typing.get_origin(_plain(field.annotation)) in (list, tuple, set, frozenset)


def _is_mapping(field: FieldInfo) -> bool:
    return typing.get_origin(_plain(field.annotation)) is dict


def option_name(text: str) -> str:
    """An option name as written on the command line (`max-queries` or `max_queries`) as the model names it."""
    return text.strip().replace("-", "_")


def _text_value(field: FieldInfo, name: str, text: str, flag: str) -> Any:
    """A command-line value by its field's kind: a list from comma-separated items, a mapping from KEY=VALUE items;
    anything else as text, for the model to convert."""
    if _is_list(field):
        return [item.strip() for item in text.split(",") if item.strip()]
    if _is_mapping(field):
        pairs: dict[str, str] = {}
        # a comma starts another item only when KEY= follows, so a value (a URL) may hold commas of its own
        for item in (i.strip() for i in re.split(r",(?=[^,=]*=)", text)):
            key, sep, value = item.partition("=")
            if not sep or not key.strip():
                raise UsageError(f"{flag} {name}={_shown(text)}: give KEY=VALUE items, comma-separated")
            pairs[key.strip()] = value.strip()
        return pairs
    return text


def parse_option_pairs(model: type[Options], pairs: list[str], flag: str = "-O") -> dict[str, Any]:
    """`NAME=VALUE` texts as option values: a list or mapping option given again adds to it, any other takes the last.

    A name the model does not know is kept as given, for `validate_options` to refuse with a suggestion."""
    values: dict[str, Any] = {}
    for pair in pairs:
        raw, sep, text = pair.partition("=")
        name = option_name(raw)
        if not sep or not name:
            raise UsageError(f"{flag} {_shown(pair)}: give NAME=VALUE")
        field = model.model_fields.get(name)
        if field is None:
            values[name] = text
            continue
        value = _text_value(field, name, text, flag)
        earlier = values.get(name)
        if isinstance(value, list) and isinstance(earlier, list):
            value = earlier + value
        elif isinstance(value, dict) and isinstance(earlier, dict):
            repeated = sorted(set(value) & set(earlier))
            if repeated:
                raise UsageError(f"{flag} {name}: {_shown(repeated[0])} is given twice")
            value = {**earlier, **value}
        values[name] = value
    return values


@dataclass(frozen=True)
class OptionInfo:
    """One option as `describe` lists it."""

    name: str
    type: str
    default: str
    """The default as shown; "required" when the option has none."""
    description: str


def _type_name(annotation: Any) -> str:
    plain = _plain(annotation)
    origin = typing.get_origin(plain)
    if origin is typing.Literal:
        name = "|".join(str(a) for a in typing.get_args(plain))
    elif origin in (typing.Union, types.UnionType):
        name = "|".join(_type_name(a) for a in typing.get_args(plain))
    elif origin in (list, tuple, set, frozenset):
        name = f"list of {_type_name(typing.get_args(plain)[0])} (comma-separated)"
    elif origin is dict:
        name = "mapping (KEY=VALUE,...)"
    elif isinstance(plain, type) and issubclass(plain, Path):
        name = "path"
    else:
        name = getattr(plain, "__name__", str(plain))
    return name


def _shown_by(field: FieldInfo) -> Shown | None:
    annotation = field.annotation
    found = [m for m in field.metadata if isinstance(m, Shown)]
    while not found and typing.get_origin(annotation) is typing.Annotated:
        found = [m for m in typing.get_args(annotation)[1:] if isinstance(m, Shown)]
        annotation = typing.get_args(annotation)[0]
    return found[0] if found else None


def describe_options(model: type[Options]) -> list[OptionInfo]:
    """Each option of `model`: its name, type, default and description; required ones first, then in the model's
    order."""
    rows = []
    for name, field in model.model_fields.items():
        shown = _shown_by(field)
        value = None if field.is_required() else field.get_default(call_default_factory=True)
        if field.is_required():
            default = "required"
        elif value is None:
            default = "-"
        elif shown is not None:
            default = shown.show(value)
        elif isinstance(value, bool):
            default = str(value).lower()
        elif isinstance(value, dict):
            default = ",".join(f"{key}={item}" for key, item in value.items()) or "-"
        elif isinstance(value, list | tuple):
            default = ",".join(map(str, value)) or "-"
        else:
            default = str(value)
        type_name = shown.type_name if shown is not None else _type_name(field.annotation)
        rows.append(OptionInfo(name, type_name, default, " ".join((field.description or "").split())))
    return sorted(rows, key=lambda info: info.default != "required")





def value_pairs(values: Mapping[str, Any] | None) -> list[str]:
    """Option values as `NAME=VALUE` texts: a list becomes `a,b,c`, a mapping `k=v,...`, a bool `true`/`false`."""
    pairs = []
    for name, value in (values or {}).items():
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, Mapping):
            text = ",".join(f"{k}={v}" for k, v in value.items())
        elif isinstance(value, list | tuple | set | frozenset):
            text = ",".join(str(v) for v in value)
        else:
            text = str(value)
        pairs.append(f"{name}={text}")
    return pairs


__all__ = [
    "NoOptions",
    "OptionInfo",
    "Options",
    "Shown",
    "describe_options",
    "option_name",
    "options_model",
    "parse_option_pairs",
    "takes",
    "validate_options",
    "value_pairs",
]
