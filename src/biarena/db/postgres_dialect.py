"""POSTGRES: what biarena knows of PostgreSQL (its allow-list, catalog, clock and value sizes)."""

from biarena.db.allowed_functions import with_common
from biarena.db.catalog_rules import DESCRIBING_VIEWS, CatalogRules, names
from biarena.db.dialect import Dialect

_FUNCTIONS = """
    json_agg jsonb_agg json_object_agg jsonb_object_agg xmlagg
    initcap btrim split_part string_to_array array_to_string regexp_replace regexp_match regexp_matches
    regexp_split_to_array regexp_split_to_table regexp_count regexp_instr regexp_like regexp_substr format
    to_char to_number to_date to_timestamp md5 quote_literal quote_ident quote_nullable overlay
    date_trunc date_part date_bin extract age make_date make_time make_timestamp make_timestamptz make_interval
    justify_days justify_hours justify_interval isfinite timezone
    clock_timestamp statement_timestamp transaction_timestamp
    scale trim_scale min_scale
    json_extract_path json_extract_path_text jsonb_extract_path jsonb_extract_path_text
    json_array_length jsonb_array_length json_each json_each_text jsonb_each jsonb_each_text
    json_array_elements json_array_elements_text jsonb_array_elements jsonb_array_elements_text
    json_object_keys jsonb_object_keys json_typeof jsonb_typeof to_json to_jsonb row_to_json
    json_build_object jsonb_build_object json_build_array jsonb_build_array jsonb_path_query
    jsonb_path_query_array jsonb_path_query_first jsonb_path_exists jsonb_path_match jsonb_strip_nulls
    json_strip_nulls jsonb_pretty json_scalar json_serialize
    array_length array_lower array_upper array_position array_positions array_remove array_replace
    array_cat array_append array_prepend cardinality unnest
    generate_series
    date time timestamp text numeric int4 int8 float4 float8 bool varchar
"""
# Each information_schema view was read on PostgreSQL 15 as the read-only role. Allowed: those listing the schemas,
# tables, columns, views and key columns the role may use (table_constraints, referential_constraints,
# check_constraints and the *_usage views show only tables the role owns or may write: empty for it).
# Refused: roles and privileges (enabled_roles, applicable_roles, *_privileges, role_*_grants), routines and
# parameters (the server's thousands of functions), server facts (sql_implementation_info holds its version,
# character_sets its encoding, collations), foreign servers, user mappings, and the rest, which describe nothing
# a question needs.
_CATALOG = CatalogRules(
    engine="PostgreSQL",
    described_by=names(DESCRIBING_VIEWS, "view_table_usage view_column_usage"),
    # pg_catalog, pg_toast, pg_temp_N, pg_toast_temp_N: no user schema may start with pg_.
    closed_schema_prefix="pg_",
    # An unqualified name is looked up in pg_catalog before the search path, and every relation there starts
    # with pg_; a benchmark table of such a name is reached as public.pg_...
    closed_prefixes=("pg_",),
    resolves_qualified=False,
)

POSTGRES = Dialect(
    name="postgres",
    label="PostgreSQL",
    functions=with_common(_FUNCTIONS),
    catalog=_CATALOG,
    builtin_schemas=frozenset({"pg_catalog"}),
    sized_formats=True,
    age_from_today=True,
    clock_strings=True,
    writes_questions=True,
    function_casts=True,
    to_char=True,
    rounds_numeric_only=True,
)
"""PostgreSQL, a server reached through SQLAlchemy."""
