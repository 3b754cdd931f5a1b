"""SQLITE: what biarena knows of SQLite (its allow-list, catalog, clock, files and serving)."""

from biarena.db.allowed_functions import with_common
from biarena.db.catalog_rules import CatalogRules
from biarena.db.dialect import Dialect

_FUNCTIONS = """
    total
    char format glob hex ifnull iif instr like likelihood likely printf quote soundex
    typeof unhex unicode unlikely
    date time datetime julianday unixepoch strftime timediff
    percentile
    json jsonb json_array jsonb_array json_array_length json_error_position json_extract jsonb_extract
    json_insert jsonb_insert json_object jsonb_object json_patch jsonb_patch json_pretty json_quote
    json_remove jsonb_remove json_replace jsonb_replace json_set jsonb_set json_type json_valid
    json_group_array jsonb_group_array json_group_object jsonb_group_object json_each json_tree
    generate_series
    pragma_table_info pragma_table_xinfo pragma_index_list pragma_index_info pragma_foreign_key_list
"""
_ALLOWED = with_common(_FUNCTIONS)

# sqlite_master (sqlite_schema) holds the benchmark's own DDL. The pragma tables may be read without parentheses
# (`FROM pragma_database_list` shows the file's path); those that describe tables are allowed, as functions too.
# dbstat shows the file's pages, sqlite_stmt the statements prepared on the connection (other queries' text).
_CATALOG = CatalogRules(
    engine="SQLite",
    described_by=frozenset(),
    closed_prefixes=("pragma_",),
    closed_names=frozenset({"dbstat", "sqlite_stmt", "sqlite_dbpage"}),
    open_names=frozenset(name for name in _ALLOWED if name.startswith("pragma_")),
    server=False,
)

SQLITE = Dialect(
    name="sqlite",
    label="SQLite",
    description="An SQLite file opened read-only (`mode=ro`, `query_only`) with an authorizer that denies writes.",
    functions=_ALLOWED,
    catalog=_CATALOG,
    database="biarena.db.sqlite_database:SqliteDatabase",
    serve="biarena.db.sqlite_serve",
    files="biarena.db.sqlite_files",
    file_suffixes=(".sqlite", ".sqlite3", ".db"),
    builtin_schemas=frozenset({"main"}),
    bounds_own_values=True,
    text_times=True,
    writes_questions=True,
)
"""SQLite, opened from any other file and `sqlite:///PATH` URLs."""
