"""size_problem: why a function call could build a value past the per-value limit, read from the statement's text.

DuckDB and the servers build a value in full before a row reaches the sandbox's per-value check, so calls that
take a size (`repeat`, `lpad`, a `printf` width, a `format` spec) must show it as a constant within the limit,
and nested builders multiply: `repeat([repeat('x', 1000000)], 1000000)` is the inner size times the count.
The estimate follows only what the text shows: a column's value counts as one byte, so a size hidden in the data
(or in a CTE's column) is left to the engine's own bound (DuckDB's engine process is killed past its memory
limit; SQLite caps every value it makes).
"""

import math
import re

from sqlglot import exp

from biarena.db.allowed_functions import SIZE_ARGUMENTS
from biarena.db.dialect import dialect_of

OPTIONAL_SIZE_ARGUMENTS: dict[str, int] = {"to_base": 2}
"""Functions with an optional size argument (by position): when given, a constant within the cell limit."""

# Growth of text-to-text encodings: hex doubles, binary digits are eight per byte, base64 four per three.
_GROWTH: dict[str, float] = {"hex": 2, "to_hex": 2, "bin": 8, "to_binary": 8, "to_base64": 4 / 3, "base64": 4 / 3}
_GROWTH_NODES: dict[type[exp.Expression], str] = {exp.Hex: "hex", exp.ToBinary: "bin", exp.ToBase64: "base64"}
_URL_ENCODE_GROWTH = 3.0

# printf-style conversions: %[n$][flags][width|*[m$]][.precision|.*[m$]][length]conversion
_PRINTF_SPEC = re.compile(
    r"%(?:(\d+)\$)?[-+ #0']*(?:(\*)(?:(\d+)\$)?|(\d+))?(?:\.(?:(\*)(?:(\d+)\$)?|(\d*)))?(?:hh|ll|[hlLqjzt])?(.)",
    re.S,
)
_DIGITS = re.compile(r"\d+")
_LIST_BUILDERS = (
    "concat concat_ws list_concat list_cat array_concat array_cat list_append array_append list_prepend "
    "array_prepend list_value list_pack list_transform list_apply array_transform array_apply apply "
    "replace regexp_replace url_encode printf format"
)
_BUILDERS = frozenset(_LIST_BUILDERS.split()) | set(SIZE_ARGUMENTS) | set(_GROWTH)
"""Calls whose value may outgrow their arguments: their estimate is checked against the cell limit."""
_SIZE_KEY = "biarena_value_size"
"""Where a node's estimate is kept during one check, so nested builders are estimated once each."""


def constant(node: exp.Expression | None) -> float | None:
    """The number a literal (or a negated literal) holds, or None for anything else."""
    if isinstance(node, exp.Paren):
        return constant(node.this)
    if isinstance(node, exp.Neg):
        value = constant(node.this)
        return None if value is None else -value
    if isinstance(node, exp.Literal) and not node.is_string:
        try:
            return float(node.this)
        except ValueError:
            return None
    return None


def _arguments(node: exp.Expression) -> list[exp.Expression]:
    # Typed nodes keep their arguments in the order they are written.
    return list(node.expressions) if isinstance(node, exp.Anonymous) else list(node.iter_expressions())


def _call_name(node: exp.Expression) -> str | None:
    if isinstance(node, exp.Anonymous):
        return node.name.lower()
    for kind, name in _GROWTH_NODES.items():
        if isinstance(node, kind):
            return name
    return None


def _pattern_sizes(name: str, dialect: str, arguments: list[exp.Expression]) -> tuple[list[int], list[int], str]:
    """A pattern's size arguments (by index among the values after it), its written sizes, and its syntax."""
    pattern = arguments[0].this
    syntax = "fmt" if name == "format" and dialect_of(dialect).fmt_format else "printf"
    written = [int(d) for d in _DIGITS.findall(pattern)]
    taken: list[int] = []
    if syntax == "fmt":
        taken = _fmt_size_arguments(pattern)
    else:
        following = 0
        for match in _PRINTF_SPEC.finditer(pattern):
            if match.group(8) == "%":
                continue
            for star, position in ((match.group(2), match.group(3)), (match.group(5), match.group(6))):
                if star:
                    taken.append(int(position) - 1 if position else following)
                    following += 0 if position else 1
            following = int(match.group(1)) if match.group(1) else following + 1
    return taken, written, syntax


def _fmt_size_arguments(pattern: str) -> list[int]:
    """Which arguments a fmt-style pattern (`{:>{}}`, `{0:.{1}f}`) takes a width or precision from."""
    taken: list[int] = []
    automatic = 0
    index = 0
    while index < len(pattern):
        if pattern.startswith("{{", index):
            index += 2
            continue
        if pattern[index] != "{":
            index += 1
            continue
        end, depth = index + 1, 1
        while end < len(pattern) and depth:
            depth += {"{": 1, "}": -1}.get(pattern[end], 0)
            end += 1
        field = pattern[index + 1 : end - 1]
        argument, _, spec = field.partition(":")
        if not argument.strip():
            automatic += 1
        for nested in re.findall(r"\{([^{}]*)\}", spec):
            nested = nested.strip()
            if nested.isdigit():
                taken.append(int(nested))
            else:
                taken.append(automatic if not nested else -1)
                automatic += 0 if nested else 1
        index = end
    return taken


def _format_problem(name: str, dialect: str, arguments: list[exp.Expression], max_cell_bytes: int) -> str | None:
    pattern = arguments[0]
    if not (isinstance(pattern, exp.Literal) and pattern.is_string):
        return f"{name}() needs a constant format string here"
    taken, written, _ = _pattern_sizes(name, dialect, arguments)
    if any(size > max_cell_bytes for size in written):
        return f"{name}() pads past the {max_cell_bytes:,}-byte cell limit"
    values = arguments[1:]
    for index in taken:
        size = constant(values[index]) if 0 <= index < len(values) else None
        if size is None or size > max_cell_bytes:
            return f"{name}() takes a width from an argument: it must be a constant up to {max_cell_bytes:,} here"
    return None


def value_size(node: exp.Expression, dialect: str) -> float:
    """Bytes a value may take, from what the text shows (a column's value or a subquery's counts as one)."""
    kept = node.meta.get(_SIZE_KEY) if node.meta else None
    if kept is not None:
        return kept
    size = _estimate(node, dialect)
    node.meta[_SIZE_KEY] = size
    return size


def _estimate(node: exp.Expression, dialect: str) -> float:
    if isinstance(node, exp.Literal):
        return float(len(node.this)) if node.is_string else 8.0
    if isinstance(node, exp.Paren | exp.Alias | exp.Cast):
        return value_size(node.this, dialect)
    if isinstance(node, exp.Subquery | exp.Query | exp.Column | exp.Null | exp.Boolean):
        return 1.0
    if isinstance(node, exp.Array):
        return sum(value_size(e, dialect) + 8 for e in node.expressions)
    if isinstance(node, exp.DPipe | exp.Concat | exp.ConcatWs | exp.ArrayConcat | exp.ArrayAppend | exp.ArrayPrepend):
        return sum(value_size(e, dialect) for e in node.iter_expressions())
    arguments = _arguments(node)
    if isinstance(node, exp.Repeat):
        count = constant(node.args.get("times"))
        return value_size(node.this, dialect) * (count if count is not None else 1.0)
    if isinstance(node, exp.Pad | exp.Space):
        count = constant(node.args.get("expression") if isinstance(node, exp.Pad) else node.this)
        return max(count or 0.0, value_size(node.this, dialect) if isinstance(node, exp.Pad) else 0.0)
    if isinstance(node, exp.Replace | exp.RegexpReplace):
        # Every match may become the replacement: the text's size times the replacement's, at most.
        replacement = node.args.get("replacement")
        grown = value_size(replacement, dialect) if replacement is not None else 1.0
        return value_size(node.this, dialect) * max(1.0, grown)
    if isinstance(node, exp.GenerateSeries) and not isinstance(node.parent, exp.Table):
        return _series_count(node) * 8
    if isinstance(node, exp.Transform):
        # A lambda over a list: the list's elements (eight bytes each, at least) times what the lambda builds.
        body = node.expression.this if isinstance(node.expression, exp.Lambda) else node.expression
        return value_size(node.this, dialect) / 8 * max(1.0, value_size(body, dialect))
    name = _call_name(node)
    if name in _GROWTH and arguments:
        return value_size(arguments[0], dialect) * _GROWTH[name]
    if name == "url_encode" and arguments:
        return value_size(arguments[0], dialect) * _URL_ENCODE_GROWTH
    if name in OPTIONAL_SIZE_ARGUMENTS and len(arguments) > OPTIONAL_SIZE_ARGUMENTS[name]:
        return constant(arguments[OPTIONAL_SIZE_ARGUMENTS[name]]) or 64.0
    if (isinstance(node, exp.Format) or name == "printf") and arguments and arguments[0].is_string:
        taken, written, _ = _pattern_sizes(name or "format", dialect, arguments)
        values = arguments[1:]
        widths = sum(constant(values[i]) or 0.0 for i in taken if 0 <= i < len(values))
        return len(arguments[0].this) + sum(written) + widths + sum(value_size(v, dialect) for v in values)
    if isinstance(node, exp.Func) and arguments:
        # Most functions return something no larger than their largest argument (upper, substr, coalesce, CASE).
        return max(value_size(a, dialect) for a in arguments)
    return 8.0


def _series_count(node: exp.Expression) -> float:
    start = constant(node.args["start"]) if node.args.get("start") is not None else 0.0
    end = constant(node.args.get("end"))
    step = constant(node.args["step"]) if node.args.get("step") is not None else 1.0
    if start is None or end is None or not step:
        return math.inf
    return abs((end - start) / step)


def size_problem(node: exp.Func, name: str, dialect: str, max_cell_bytes: int) -> str | None:
    """Why a call could build a value past the cell limit before any row reaches the sandbox, or None."""
    arguments = _arguments(node)
    if name in SIZE_ARGUMENTS or name in OPTIONAL_SIZE_ARGUMENTS:
        index = SIZE_ARGUMENTS.get(name, OPTIONAL_SIZE_ARGUMENTS.get(name, 0))
        if name in SIZE_ARGUMENTS or len(arguments) > index:
            size = constant(arguments[index]) if len(arguments) > index else None
            if size is None or size > max_cell_bytes:
                return f"{name}() needs a constant size up to {max_cell_bytes:,} here"
    elif name in ("printf", "format") and arguments and dialect_of(dialect).sized_formats:
        problem = _format_problem(name, dialect, arguments, max_cell_bytes)
        if problem:
            return problem
    elif (
        dialect_of(dialect).series_values
        and name in ("range", "generate_series")
        and not isinstance(node.parent, exp.Table)
    ):
        # As a value (not in FROM) these build one list holding every element, 8 bytes each.
        if _series_count(node) * 8 > max_cell_bytes:
            return f"{name}() as a value needs constant bounds within the {max_cell_bytes:,}-byte cell limit"
        return None
    if name not in _BUILDERS and name not in OPTIONAL_SIZE_ARGUMENTS:
        return None
    try:
        size = value_size(node, dialect)
    except RecursionError:
        return "the statement nests too deeply to check"
    if size > max_cell_bytes:
        return f"{name}() would build about {_bytes(size)}, over the {max_cell_bytes:,}-byte cell limit"
    return None


def _bytes(size: float) -> str:
    return "unbounded bytes" if math.isinf(size) else f"{int(size):,} bytes"
