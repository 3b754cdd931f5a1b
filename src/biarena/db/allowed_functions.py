"""The functions an analyst's query may call, per engine: an allow-list, not a deny list.

Everything here computes a value from its arguments: aggregates, math, string, date/time, window,
conditional, casts and JSON reading, plus the few table functions that generate rows
(`generate_series`, `json_each`, `unnest`, ...). Nothing reads a file, loads code, sleeps,
changes a setting or a sequence, or reports on the server, so a name missing from the lists
(`pg_read_file`, `load_extension`, `read_csv`, `current_setting`, `nextval`) is refused
however it is quoted, qualified or cased.
"""

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

SQLITE = """
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

DUCKDB = """
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

POSTGRES = """
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

MYSQL = """
    group_concat ifnull if instr locate lcase ucase mid space format date_format str_to_date
    date_add date_sub adddate subdate datediff timestampdiff timestampadd timediff
    year month day dayofmonth dayofweek dayofyear weekday week weekofyear yearweek quarter
    hour minute second microsecond monthname dayname last_day makedate maketime
    from_unixtime unix_timestamp to_days from_days extract date time timestamp
    curdate curtime sysdate utc_date utc_time utc_timestamp
    json_extract json_unquote json_length json_keys json_contains json_type json_valid json_object
    json_array json_arrayagg json_objectagg
    std truncate
"""

_COMMON = " ".join((_AGGREGATES, _WINDOW, _CONDITIONAL, _CLOCK, _MATH, _STRING))


def _names(*groups: str) -> frozenset[str]:
    return frozenset(name for group in groups for name in group.split())


ALLOWED_FUNCTIONS: dict[str, frozenset[str]] = {
    "sqlite": _names(_COMMON, SQLITE),
    "duckdb": _names(_COMMON, DUCKDB),
    "postgres": _names(_COMMON, POSTGRES),
    "mysql": _names(_COMMON, MYSQL),
}
"""Allowed function names per sqlglot dialect, lower case."""

DEFAULT_ALLOWED = _names(_COMMON)
"""The allow-list for an engine without a list of its own: the portable core."""

SIZE_ARGUMENTS: dict[str, int] = {"repeat": 1, "lpad": 1, "rpad": 1, "space": 0}
"""Functions whose result size is one argument (by position): it must be a constant within the cell limit.

SQLite enforces its own length limit on every value it makes; the other engines build such a
value in full before a row reaches the sandbox, so the sandbox bounds it up front.
"""


def allowed_functions(dialect: str) -> frozenset[str]:
    """The function names queries on `dialect` may call."""
    return ALLOWED_FUNCTIONS.get(dialect, DEFAULT_ALLOWED)
