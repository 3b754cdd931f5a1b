"""DUCKDB: what biarena knows of DuckDB (its allow-list, catalog, clock, value sizes, files and serving)."""

import re

from biarena.db.allowed_functions import with_common
from biarena.db.catalog_rules import DESCRIBING_VIEWS, CatalogRules, names
from biarena.db.dialect import Dialect

_FUNCTIONS = """
    mean count_star count_if countif any_value arbitrary first last arg_max arg_min argmax argmin max_by min_by
    approx_count_distinct approx_quantile quantile quantile_cont quantile_disc product fsum favg sumkahan
    kahan_sum entropy kurtosis kurtosis_pop skewness sem mad histogram list listagg geomean geometric_mean
    weighted_avg wavg
    ifnull if iif
    round_even roundbankers even isnan isinf isfinite nextafter greatest_common_divisor least_common_multiple
    fdiv fmod gamma lgamma
    lcase ucase len strlen prefix suffix contains ends_with split_part string_split str_split string_split_regex
    str_split_regex string_to_array array_to_string regexp_matches regexp_replace regexp_extract
    regexp_extract_all regexp_full_match regexp_split_to_array like_escape ilike_escape not_like_escape
    not_ilike_escape format printf md5 sha1 sha256 hash ord unicode initcap strip_accents nfc_normalize
    levenshtein damerau_levenshtein hamming jaccard jaro_similarity jaro_winkler_similarity mismatches editdist3
    to_base to_hex to_binary from_hex hex unhex bin unbin base64 to_base64 from_base64 url_decode url_encode
    left_grapheme right_grapheme length_grapheme substring_grapheme
    date_trunc datetrunc date_part datepart date_diff datediff date_sub datesub date_add age
    year month day dayofmonth dayofweek dayofyear isodow isoyear week weekofyear weekday yearweek quarter
    hour minute second millisecond microsecond nanosecond epoch epoch_ms epoch_us epoch_ns era century decade
    millennium julian last_day monthname dayname days_in_month make_date make_time make_timestamp
    make_timestamp_ms make_timestamp_ns make_timestamptz strftime strptime try_strptime to_timestamp
    time_bucket timezone timezone_hour timezone_minute today get_current_time get_current_timestamp
    transaction_timestamp current_localtime current_localtimestamp
    to_years to_quarters to_months to_weeks to_days to_hours to_minutes to_seconds to_milliseconds
    to_microseconds to_centuries to_decades to_millennia normalized_interval
    typeof
    json json_extract json_extract_string json_extract_path json_extract_path_text json_value json_exists
    json_keys json_array_length json_type json_valid json_structure json_contains json_array json_object
    json_quote to_json json_group_array json_group_object json_each json_tree
    list_value list_pack list_extract list_element array_extract element_at list_slice array_slice
    array_length cardinality list_contains list_has array_contains array_has list_position array_position
    list_indexof array_indexof list_distinct array_distinct list_unique array_unique list_sort array_sort
    list_reverse_sort array_reverse_sort list_aggregate list_aggr array_aggregate array_aggr list_transform
    list_apply array_transform array_apply apply list_filter array_filter filter list_reduce array_reduce reduce
    list_concat list_cat array_concat array_cat list_append array_append list_prepend array_prepend flatten
    list_has_any list_has_all array_has_any array_has_all list_intersect array_intersect list_zip array_zip
    list_sum list_avg list_min list_max list_count list_first list_last list_median list_mode list_string_agg
    list_product list_stddev_pop list_stddev_samp list_var_pop list_var_samp list_bool_and list_bool_or
    list_select array_select list_where array_where list_grade_up array_grade_up grade_up
    struct_pack struct_extract struct_extract_at struct_keys struct_values row
    map map_keys map_values map_extract map_extract_value map_entries map_from_entries map_contains
    unnest generate_series range
"""
# DuckDB's own views are found unqualified and under main (system.main): duckdb_databases shows the file's path,
# duckdb_logs its log, pg_catalog.pg_settings its settings. sqlite_master and information_schema (but for
# character_sets) describe the tables.
_CATALOG = CatalogRules(
    engine="DuckDB",
    described_by=names(DESCRIBING_VIEWS),
    closed_schemas=frozenset({"pg_catalog"}),
    closed_prefixes=("duckdb_", "pg_", "pragma_"),
    server=False,
)

# DuckDB reads a file named in FROM ('data.csv', '/tmp/x.parquet'); such a name is never a table here.
_FILE_LIKE = re.compile(r"[/\\]|\.(csv|tsv|txt|parquet|json|jsonl|ndjson|gz|zst|xlsx|arrow|db|sqlite|duckdb)$", re.I)

DUCKDB = Dialect(
    name="duckdb",
    label="DuckDB",
    description="A DuckDB file, read-only, with file and network access disabled, memory and temp space capped.",
    functions=with_common(_FUNCTIONS),
    catalog=_CATALOG,
    database="biarena.db.duckdb_database:DuckDatabase",
    serve="biarena.db.duckdb_serve",
    files="biarena.db.duckdb_files",
    file_suffixes=(".duckdb", ".ddb"),
    file_magic=b"DUCK",
    named_files=_FILE_LIKE,
    sized_formats=True,
    fmt_format=True,
    series_values=True,
    age_from_today=True,
    method_calls=True,
    clock_strings=True,
    writes_questions=True,
)
"""DuckDB, opened from `.duckdb`/`.ddb` files (or any file DuckDB wrote) and `duckdb:///PATH` URLs."""
