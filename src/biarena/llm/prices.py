"""Price tables: what a model's tokens cost, read from a YAML or JSON file the user gives (`--prices FILE`).

A table maps model strings to prices per million tokens::

    openai:gpt-4o-mini: {prompt: 0.15, completion: 0.60}
    gpt-4o: {prompt: 2.50, completion: 10.00}

A model is found by its full string (`openai:gpt-4o`), then by its name alone (`gpt-4o`).
"""

import json
import math
from pathlib import Path

from biarena.errors import FormatError, UsageError
from biarena.text_file import read_named_file
from biarena.yaml_load import load_yaml

PRICE_KINDS = ("prompt", "completion")


def _price(source: Path, model: str, kind: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
        raise FormatError(f"{source}: '{model}': {kind} must be a number of 0 or more (price per million tokens)")
    return float(value)


def parse_prices(data: object, source: Path) -> dict[str, dict[str, float]]:
    """Validate a parsed price table: model -> {prompt, completion} prices per million tokens."""
    if not isinstance(data, dict) or not data:
        raise FormatError(f"{source}: expected a mapping of model -> {{prompt: PRICE, completion: PRICE}}")
    table: dict[str, dict[str, float]] = {}
    for model, entry in data.items():
        name = str(model)
        if not isinstance(entry, dict):
            raise FormatError(f"{source}: '{name}': expected {{prompt: PRICE, completion: PRICE}}")
        unknown = sorted(str(k) for k in entry if k not in PRICE_KINDS)
        if unknown:
            raise FormatError(f"{source}: '{name}': unknown key '{unknown[0]}' (known: prompt, completion)")
        missing = [k for k in PRICE_KINDS if k not in entry]
        if missing:
            raise FormatError(f"{source}: '{name}': missing '{missing[0]}' (price per million tokens)")
        table[name] = {kind: _price(source, name, kind, entry[kind]) for kind in PRICE_KINDS}
    return table


def load_prices(path: str | Path) -> dict[str, dict[str, float]]:
    """Read a price table from a YAML or JSON file (FormatError names the file and the problem)."""
    source = Path(path)
    text = read_named_file(source, "price table")
    if source.suffix.lower() != ".json":
        return parse_prices(load_yaml(text, str(source)), source)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise FormatError(f"{source} line {error.lineno}: invalid JSON: {error.msg}") from None
    return parse_prices(data, source)


def prices_for(table: dict[str, dict[str, float]], *names: str, source: str = "the price table") -> dict[str, float]:
    """The prices of the first of `names` (model strings) the table knows, by full string then by bare name."""
    candidates: list[str] = []
    for name in names:
        base = name.split("@", 1)[0]
        candidates += [name, base, base.split(":", 1)[-1]]
    for candidate in candidates:
        if candidate in table:
            return table[candidate]
    known = ", ".join(sorted(table))
    raise UsageError(f"no price for model '{names[0]}' in {source} (it prices: {known})")
