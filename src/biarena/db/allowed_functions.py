"""The functions an analyst's query may call: an allow-list, not a deny list (the portable core here; each engine's
dialect adds its own names).

Everything here computes a value from its arguments: aggregates, math, string, date/time, window,
conditional, casts and JSON reading, plus the few table functions that generate rows
(`generate_series`, `json_each`, `unnest`, ...). Nothing reads a file, loads code, sleeps,
changes a setting or a sequence, or reports on the server, so a name missing from the lists
(`pg_read_file`, `load_extension`, `read_csv`, `current_setting`, `nextval`) is refused
however it is quoted, qualified or cased.
"""

from collections.abc import Iterator, Mapping

_AGGREGATES = """
    avg count max min sum
    array_agg string_agg group_concat
    bool_and bool_or every bit_and bit_or bit_xor
    stddev stddev_pop stddev_samp variance var_pop var_samp
    corr covar_pop covar_samp
    regr_avgx regr_avgy regr_count regr_intercept regr_r2 regr_slope regr_sxx regr_sxy regr_syy
    percentile_cont percentile_disc mode median
"""

_WINDOW = """
    row_number rank dense_rank percent_rank cume_dist ntile
    lag lead first_value last_value nth_value
"""

_CONDITIONAL = "coalesce nullif greatest least"

# Clock readings: a benchmark's anchor replaces them with its fixed moment before the engine sees them.
_CLOCK = "now current_date current_time current_timestamp localtime localtimestamp"

_MATH = """
    abs ceil ceiling floor round trunc sign sqrt cbrt exp ln log log10 log2 pow power mod pi
    degrees radians sin cos tan asin acos atan atan2 sinh cosh tanh asinh acosh atanh cot
    gcd lcm factorial random div width_bucket
"""

_STRING = """
    lower upper length char_length character_length octet_length bit_length
    substr substring left right trim ltrim rtrim replace reverse concat concat_ws
    position strpos instr ascii chr translate starts_with lpad rpad repeat
"""

_COMMON = " ".join((_AGGREGATES, _WINDOW, _CONDITIONAL, _CLOCK, _MATH, _STRING))


def _names(*groups: str) -> frozenset[str]:
    return frozenset(name for group in groups for name in group.split())


def with_common(names: str) -> frozenset[str]:
    """An engine's allow-list: the portable core and its own `names` (whitespace-separated)."""
    return _names(_COMMON, names)


DEFAULT_ALLOWED = _names(_COMMON)
"""The allow-list for an engine without a list of its own: the portable core."""

SIZE_ARGUMENTS: dict[str, int] = {"repeat": 1, "lpad": 1, "rpad": 1, "space": 0}
"""Functions whose result size is one argument (by position): it must be a constant within the cell limit.

SQLite enforces its own length limit on every value it makes; the other engines build such a
value in full before a row reaches the sandbox, so the sandbox bounds it up front.
"""


def allowed_functions(dialect: str) -> frozenset[str]:
    """The function names queries on `dialect` may call (its dialect's list, else the portable core)."""
    from biarena.db.dialect import dialect_of  # each dialect builds its list from the core here

    return dialect_of(dialect).functions


class _AllowLists(Mapping[str, frozenset[str]]):
    """Every known dialect's allow-list, by sqlglot name."""

    def _lists(self) -> dict[str, frozenset[str]]:
        from biarena.db.dialect import dialects

        return {found.name: found.functions for found in dialects()}

    def __getitem__(self, dialect: str) -> frozenset[str]:
        return self._lists()[dialect]

    def __iter__(self) -> Iterator[str]:
        return iter(self._lists())

    def __len__(self) -> int:
        return len(self._lists())


ALLOWED_FUNCTIONS: Mapping[str, frozenset[str]] = _AllowLists()
"""Allowed function names per sqlglot dialect, lower case (each held by its dialect)."""
