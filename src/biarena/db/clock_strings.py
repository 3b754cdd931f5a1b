"""Date/time strings that read the clock ('now', 'today', 'tomorrow', 'yesterday'): anchored where a cast makes them a
date or a time, refused where PostgreSQL would type them from a context the tree does not show.

PostgreSQL reads these words in any date or time input ('today'::date, '[today,tomorrow)'::daterange, or d > 'today'
on a date column). DuckDB reads none of them (its casts refuse them); the sandbox still gives an explicit cast of one
PostgreSQL's meaning at the anchor, as it gives `now()`. SQLite reads only 'now', as a time function's time value.
"""

import re
from datetime import datetime, timedelta

from sqlglot import exp

from biarena.db.clock_names import CLOCK_FUNCTIONS, CLOCK_NODES
from biarena.db.dialect import dialect_of
from biarena.db.errors import SqlRejected

CLOCK_WORD = re.compile(r"(?<![a-z])(now|today|tomorrow|yesterday)(?![a-z])", re.IGNORECASE)
"""A word that PostgreSQL's date/time input reads as the current moment (letters on either side make another word)."""

_T = exp.DataType.Type
_RANGE_TYPES = frozenset(
    getattr(_T, name)
    for name in ("DATERANGE", "TSRANGE", "TSTZRANGE", "DATEMULTIRANGE", "TSMULTIRANGE", "TSTZMULTIRANGE")
    if hasattr(_T, name)
)
_TIME_TYPES = frozenset(exp.DataType.TEMPORAL_TYPES) | _RANGE_TYPES
_UNKNOWN_TYPES = frozenset({_T.USERDEFINED, _T.UNKNOWN})
# PostgreSQL's function-style casts (`date('today')`, `"timestamp"('now')`) as the parser types them.
_CAST_FUNCTIONS: tuple[type[exp.Func], ...] = (exp.Date, exp.Time, exp.Timestamp)
_CAST_FUNCTION_NAMES = frozenset({"date", "time", "timetz", "timestamp", "timestamptz"})


def anchored_string(text: str, now: datetime) -> str:
    """`text` with each clock word replaced by the anchor's value, as PostgreSQL would read it at `now`."""

    def value(match: re.Match[str]) -> str:
        word = match.group(1).lower()
        if word == "now":
            return now.strftime("%Y-%m-%d %H:%M:%S")
        shift = {"today": 0, "tomorrow": 1, "yesterday": -1}[word]
        return (now + timedelta(days=shift)).strftime("%Y-%m-%d")

    return CLOCK_WORD.sub(value, text)


def _builtin_type(node: exp.DataType, dialect: str) -> exp.DataType | None:
    """The engine's own type a user-defined name spells (`pg_catalog.date`), or None for a type the database made."""
    kind = node.args.get("kind")
    name = kind.name if isinstance(kind, exp.Dot | exp.Identifier) else node.sql(dialect=dialect)
    if isinstance(kind, exp.Dot):
        name = kind.expression.name
    try:
        built = exp.DataType.build(name, dialect=dialect)
    except Exception:  # any unparsable name is a type of the database's own
        return None
    return None if built.this in _UNKNOWN_TYPES else built


def type_holds_time(to: exp.DataType, dialect: str) -> bool | None:
    """True when values of `to` are or hold a date or a time, False when they cannot, None when the database defines
    the type (a composite or a domain may hold a date)."""
    unknown = False
    for node in to.find_all(exp.DataType):
        kind = node.this
        if kind in _UNKNOWN_TYPES:
            built = _builtin_type(node, dialect)
            if built is None:
                unknown = True
                continue
            kind = built.this
        if kind in _TIME_TYPES:
            return True
    return None if unknown else False


def cast_target(node: exp.Expression, dialect: str) -> tuple[exp.Expression, exp.DataType] | None:
    """(operand, target type) when `node` converts its operand to a type by name: a cast, a typed literal, or one of
    PostgreSQL's function-style casts (`date(x)`, `pg_catalog.timestamp(x)`)."""
    if isinstance(node, exp.Cast):
        return node.this, node.to
    if not dialect_of(dialect).function_casts:
        return None
    if (
        isinstance(node, _CAST_FUNCTIONS)
        and node.this is not None
        and not any(value for key, value in node.args.items() if key != "this")
    ):
        return node.this, exp.DataType.build(node.key)
    if isinstance(node, exp.Anonymous) and len(node.expressions) == 1 and node.name.lower() in _CAST_FUNCTION_NAMES:
        return node.expressions[0], exp.DataType.build(node.name.lower(), dialect=dialect)
    return None


def _classes(names: str) -> tuple[type[exp.Expression], ...]:
    return tuple(getattr(exp, name) for name in names.split() if hasattr(exp, name))


def _words(names: str) -> frozenset[str]:
    return frozenset(names.split())


# What the tree shows of a function's result: text, a date or time, a number. Only these three are sure enough to
# leave a string alone or to skip a run-time check; anything else counts as unknown.
_TEXT_FUNCTIONS = _classes(
    """Lower Upper Length Substring Trim Concat ConcatWs DPipe Initcap Left Right Replace RegexpReplace RegexpExtract
    RegexpLike RegexpILike Like ILike SimilarTo Repeat Pad Reverse StrPosition SplitPart MD5 Format Glob Ascii Chr
    TimeToStr JSONExtract JSONExtractScalar JSONBExtract JSONBExtractScalar JSONBContains"""
)
_TEXT_FUNCTION_NAMES = _words(
    """lower upper length char_length character_length octet_length substr substring left right trim ltrim rtrim btrim
    replace reverse concat concat_ws position strpos starts_with lpad rpad repeat initcap split_part regexp_replace
    regexp_match regexp_matches regexp_split_to_array regexp_count regexp_instr regexp_like regexp_substr format md5
    quote_literal quote_ident quote_nullable overlay translate ascii to_char to_json to_jsonb json_build_object
    jsonb_build_object json_build_array jsonb_build_array string_agg"""
)
_TIME_VALUED = _classes(
    """DateTrunc TimestampTrunc TimeTrunc DateAdd DateSub TimestampAdd TimestampSub DatetimeAdd DatetimeSub DateBin
    TsOrDsToDate TsOrDsToTimestamp AtTimeZone ConvertTimezone LastDay StrToTime StrToDate UnixToTime DateFromParts
    TimestampFromParts"""
)
_TIME_VALUED_NAMES = _words(
    "date_bin date_trunc datetrunc timezone make_date make_time make_timestamp make_timestamptz to_timestamp to_date"
)
_NUMBER_VALUED = _classes(
    "Extract DateDiff DatetimeDiff TimestampDiff TimeToUnix Year Quarter Month Week Day DayOfWeek DayOfMonth DayOfYear"
)
# Functions whose arguments are dates or times: an untyped string among them is read as one.
_TIME_FUNCTIONS = _TIME_VALUED + _NUMBER_VALUED + _classes("TimeToStr")
_TIME_FUNCTION_NAMES = _TIME_VALUED_NAMES | _words(
    """age date_part datepart extract isfinite to_char overlaps date_diff datediff date_sub datesub date_add
    time_bucket strftime last_day dayname monthname"""
)
# Expressions whose operands PostgreSQL brings to one common type: untyped strings among them take the others' type,
# and become text when all are untyped.
_COMMON_TYPE = _classes(
    "EQ NEQ GT GTE LT LTE NullSafeEQ NullSafeNEQ Between In Coalesce Greatest Least Nullif Array Case If"
)


def static_kind(node: exp.Expression) -> str | None:
    """'time', 'text' or 'other' when the tree alone shows what type `node` has, else None (a column, a sum)."""
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.Cast):
        holds = type_holds_time(node.to, "postgres")
        if holds:
            return "time"
        if node.to.this in exp.DataType.TEXT_TYPES:
            return "text"
        # text[] or a composite may carry text that a later cast reads as a date
        carries_text = any(inner.this in exp.DataType.TEXT_TYPES for inner in node.to.find_all(exp.DataType))
        return "other" if holds is False and not carries_text else None
    if isinstance(node, exp.Literal):
        return "text" if node.is_string else "other"
    if isinstance(node, exp.Null | exp.Boolean | exp.Interval):
        return "other"
    if isinstance(node, CLOCK_NODES + _TIME_VALUED):
        return "time"
    if isinstance(node, _NUMBER_VALUED):
        return "other"
    if isinstance(node, _TEXT_FUNCTIONS):
        return "text"
    if isinstance(node, exp.Anonymous):
        name = node.name.lower()
        if name in _TEXT_FUNCTION_NAMES:
            return "text"
        if name in CLOCK_FUNCTIONS or name in _TIME_VALUED_NAMES:
            return "time"
    return None


_UNKNOWN = exp.Star()  # a peer whose type the tree does not show


def _climb(node: exp.Expression) -> tuple[exp.Expression, exp.Expression | None]:
    """(`node` or the parenthesis around it, its first parent that is not a parenthesis)."""
    while isinstance(node.parent, exp.Paren):
        node = node.parent
    return node, node.parent


def _operands(parent: exp.Expression) -> list[exp.Expression]:
    """The operands that PostgreSQL brings to one type with each other in `parent` (see _COMMON_TYPE)."""
    if isinstance(parent, exp.Case):
        results = [branch.args.get("true") for branch in parent.args.get("ifs") or []]
        return [e for e in (*results, parent.args.get("default")) if e is not None]
    if isinstance(parent, exp.If):
        case = parent.parent
        return _operands(case) if isinstance(case, exp.Case) else [parent.args.get("true"), parent.args.get("false")]
    return list(parent.iter_expressions())


def _set_operation_peers(node: exp.Expression) -> list[exp.Expression] | None:
    """When `node` is an output column of a SELECT: the expressions at its place in every SELECT of the set operation
    it belongs to (just itself outside one); None when it is no output column."""
    column = node.parent if isinstance(node.parent, exp.Alias) else node
    select = column.parent
    if not isinstance(select, exp.Select):
        return None
    index = next((i for i, e in enumerate(select.expressions) if e is column), None)
    if index is None:
        return None
    top: exp.Expression = select
    while isinstance(top.parent, exp.SetOperation | exp.Subquery | exp.Paren):
        top = top.parent
    if top is select:
        return [node]

    def leaves(part: exp.Expression | None) -> list[exp.Expression]:
        if isinstance(part, exp.SetOperation):
            return leaves(part.this) + leaves(part.expression)
        if isinstance(part, exp.Subquery | exp.Paren):
            return leaves(part.this)
        return [part] if part is not None else []

    peers: list[exp.Expression] = []
    for leaf in leaves(top):
        if not isinstance(leaf, exp.Select) or index >= len(leaf.expressions):
            return [_UNKNOWN]  # a VALUES member or a star: no peer to judge by
        peers.append(leaf.expressions[index].unalias())
    return peers


def _values_peers(node: exp.Expression, parent: exp.Expression) -> list[exp.Expression] | None:
    """For a value in a row of VALUES: the values at its place in every row (PostgreSQL types a column of VALUES as a
    whole); None when `parent` is no row of VALUES."""
    if not (isinstance(parent, exp.Tuple) and isinstance(parent.parent, exp.Values)):
        return None
    index = next(i for i, e in enumerate(parent.expressions) if e is node)
    rows = parent.parent.expressions
    # PostgreSQL types VALUES on its own, also as a member of a set operation.
    return [row.expressions[index] for row in rows if isinstance(row, exp.Tuple) and index < len(row.expressions)]


def _postgres_action(literal: exp.Expression) -> str:
    """'anchor', 'leave' or 'refuse' for a clock word in an untyped string that PostgreSQL types from its context."""
    node, parent = _climb(literal)
    while isinstance(parent, exp.Any | exp.All):  # d = ANY('{today}'): the array takes d's type
        node, parent = _climb(parent)
    if parent is None or isinstance(parent, _TEXT_FUNCTIONS):
        return "leave"
    named = parent.name.lower() if isinstance(parent, exp.Anonymous) else ""
    if named in _TEXT_FUNCTION_NAMES or named.startswith("json"):
        return "leave"  # a JSON function's untyped argument is JSON or a JSON path, which name no date
    if isinstance(parent, exp.AtTimeZone) and node is parent.this:
        return "anchor"
    peers = _set_operation_peers(node)
    if peers is None:
        peers = _values_peers(node, parent)
    if peers is None and isinstance(parent, exp.If) and node is parent.this:
        case = parent.parent  # CASE x WHEN 'today': the WHEN values take x's type
        if not (isinstance(case, exp.Case) and case.this is not None):
            return "leave"  # a condition: read as a boolean
        peers = [case.this] + [branch.this for branch in case.args.get("ifs") or []]
    if peers is None and isinstance(parent, _COMMON_TYPE):
        peers = _operands(parent)
    if peers is not None:
        # NULL takes the others' type, as an untyped string does.
        kinds = {static_kind(peer) for peer in peers if peer is not node and not isinstance(peer, exp.Null)}
        if "time" in kinds:
            return "anchor"
        return "leave" if kinds <= {"text"} else "refuse"
    if isinstance(parent, exp.Func | exp.Binary):
        kinds = {static_kind(arg) for arg in parent.iter_expressions() if arg is not node}
        if "time" in kinds or isinstance(parent, _TIME_FUNCTIONS) or named in _TIME_FUNCTION_NAMES:
            return "anchor"
    return "refuse"


def clock_string_action(literal: exp.Literal, dialect: str) -> str:
    """What the sandbox does with a string holding a clock word: 'anchor' it, 'leave' it (the engine reads it as
    text) or 'refuse' the statement (it may read the clock and its type is not in the tree)."""
    node, parent = _climb(literal)
    target = cast_target(parent, dialect) if parent is not None else None
    if target is not None and target[0] is node:
        holds = type_holds_time(target[1], dialect)
        return "anchor" if holds else "leave" if holds is False else "refuse"
    if not dialect_of(dialect).function_casts:
        return "leave"
    return _postgres_action(literal)


def refusal(literal: exp.Literal, dialect: str) -> SqlRejected:
    """The one-line reason for refusing a string that may read the clock."""
    text = literal.this
    node, parent = _climb(literal)
    target = cast_target(parent, dialect) if parent is not None else None
    if target is not None and target[0] is node:
        return SqlRejected(
            f"the string '{text}' cast to {target[1].sql(dialect=dialect)} may read the current date or time: "
            "write the date instead"
        )
    return SqlRejected(
        f"the string '{text}' may be read as the current date or time here ({dialect} types it from its context): "
        f"write the date, CURRENT_DATE (fixed to the question's moment), or '{text}'::text for the words themselves"
    )
