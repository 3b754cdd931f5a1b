"""MYSQL: what biarena knows of MySQL (its allow-list and catalog)."""

from biarena.db.allowed_functions import with_common
from biarena.db.catalog_rules import DESCRIBING_VIEWS, CatalogRules, names
from biarena.db.dialect import Dialect

_FUNCTIONS = """
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
# MySQL's information_schema.views names each view's definer (an account and host): not allowed.
_CATALOG = CatalogRules(
    engine="MySQL",
    described_by=(names(DESCRIBING_VIEWS) - {"views"}) | {"statistics"},
    closed_schemas=frozenset({"mysql", "performance_schema", "sys"}),
    resolves_qualified=False,
)

MYSQL = Dialect(name="mysql", label="MySQL", functions=with_common(_FUNCTIONS), catalog=_CATALOG)
"""MySQL, a server reached through SQLAlchemy."""
