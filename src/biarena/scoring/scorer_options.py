"""The scorers' options on the command line: `-O SCORER.NAME=VALUE` (or `-O NAME=VALUE` when one scorer asked for
takes NAME) and `--options FILE.yaml`, a mapping of scorer names to their options."""

from pathlib import Path
from typing import Any

from biarena.benchmarks.options_file import read_options_file
from biarena.errors import FormatError, UsageError, did_you_mean
from biarena.options import Options, option_name, options_model, parse_option_pairs, validate_options
from biarena.scoring.registry import SCORERS


def _model(name: str) -> type[Options]:
    return options_model(SCORERS[name])


def _owner(key: str, names: list[str], models: dict[str, type[Options]]) -> tuple[str, str]:
    """The scorer a `-O` name is for, and the option's own name."""
    scorer, dot, rest = key.partition(".")
    if dot:
        if scorer not in models:
            raise UsageError(f"-O {key}: no scorer '{scorer}' is asked for here (asked: {', '.join(names)})")
        return scorer, rest
    name = option_name(key)
    takers = [each for each in names if name in models[each].model_fields]
    if len(takers) == 1:
        return takers[0], key
    if len(names) == 1:
        return names[0], key  # the scorer's own check names the options it takes
    if takers:
        raise UsageError(f"-O {key}: several scorers take '{name}'; write SCORER.{name} ({', '.join(takers)})")
    known = [option for each in names for option in models[each].model_fields]
    hint = did_you_mean(name, known)
    raise UsageError(f"-O {key}: none of the scorers asked for ({', '.join(names)}) takes option '{name}'{hint}")


def scorer_options(
    names: list[str],
    pairs: list[str] | None,
    file: Path | None = None,
    *,
    given: dict[str, dict[str, Any]] | None = None,
) -> dict[str, Options]:
    """Each asked-for scorer given options (by `-O` pairs, an options file of SCORER: {NAME: VALUE}, or `given`
    already read), its options validated; a scorer given none is left out."""
    models = {name: _model(name) for name in names if name in SCORERS}
    given = {scorer: dict(values) for scorer, values in (given or {}).items()}
    if file is not None:
        for scorer, values in read_options_file(file).items():
            scorer = scorer.replace("_", "-") if scorer not in models else scorer
            if scorer not in models:
                raise UsageError(f"{file}: no scorer '{scorer}' is asked for here (asked: {', '.join(names)})")
            if not isinstance(values, dict):
                raise FormatError(f"{file}: '{scorer}' maps to its options (NAME: VALUE), not a single value")
            given[scorer] = {option_name(str(key)): value for key, value in values.items()}
    texts: dict[str, list[str]] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"-O {pair}: give NAME=VALUE or SCORER.NAME=VALUE")
        scorer, name = _owner(key.strip(), names, models)
        texts.setdefault(scorer, []).append(f"{name}={value}")
    for scorer, items in texts.items():
        given.setdefault(scorer, {}).update(parse_option_pairs(models[scorer], items))
    return {
        scorer: validate_options(models[scorer], values, f"scorer '{scorer}'", "-O") for scorer, values in given.items()
    }
