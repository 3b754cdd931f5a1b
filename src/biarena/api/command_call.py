"""call_command: a CLI command's function called from Python, with the command's defaults for what is not given."""

import inspect
from collections.abc import Callable, Mapping
from typing import Any

import typer
from typer.models import ParameterInfo

from biarena.errors import UsageError


def call_command(function: Callable[..., Any], **values: Any) -> int:
    """Call the command `function` as the command line would; return its exit code (0 unless it exits otherwise).

    A parameter not in `values` takes its command-line default; a required one missing, or a name the command
    does not take, is a UsageError. The command's own errors (BiarenaError) propagate unchanged."""
    arguments: dict[str, Any] = {}
    for name, parameter in inspect.signature(function).parameters.items():
        default = parameter.default
        if name in values:
            arguments[name] = _in_range(values.pop(name), default, name)
            continue
        if isinstance(default, ParameterInfo):
            default = default.default
        if default is ... or default is inspect.Parameter.empty:
            raise UsageError(f"{function.__name__}() needs '{name}'")
        arguments[name] = default
    if values:
        raise UsageError(f"{function.__name__}() takes no option {', '.join(repr(n) for n in values)}")
    try:
        function(**arguments)
    except typer.Exit as stop:
        if stop.exit_code == 130:
            raise KeyboardInterrupt from None
        return stop.exit_code
    return 0


def _in_range(value: Any, info: Any, name: str) -> Any:
    """`value`, refused as the command line refuses it when it is outside the option's declared range."""
    if not isinstance(info, ParameterInfo) or not isinstance(value, int | float) or isinstance(value, bool):
        return value
    low, high = getattr(info, "min", None), getattr(info, "max", None)
    if (low is not None and value < low) or (high is not None and value > high):
        bounds = " and ".join(
            part for part in (f">={low}" if low is not None else "", f"<={high}" if high is not None else "") if part
        )
        flags = [d for d in (getattr(info, "param_decls", None) or ()) if d.startswith("--")]
        raise UsageError(f"{flags[0] if flags else name} {value} is out of range: it must be {bounds}")
    return value


def option_pairs(options: Mapping[str, Any] | None) -> list[str]:
    """`-O NAME=VALUE` pairs from a mapping: a list becomes `a,b,c`, a mapping `k=v,...`, a bool `true`/`false`."""
    pairs = []
    for name, value in (options or {}).items():
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
