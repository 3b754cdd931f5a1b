"""Roles files for `generate templates`: a typo is one line naming the file, the fact and the column; fuzzed as the
other input doors are (exit 0, or exit 2 with one line; never a traceback)."""

import copy
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import SALES_ROLES
from tests.test_import_fuzz import FUZZ, check_door, fresh, hostile_names, json_values

ROLES = yaml.safe_load(SALES_ROLES)


def paths(value: object, prefix: tuple = ()) -> list[tuple]:
    """Every path to a value inside nested dicts and lists."""
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, inner in value.items():
            found += paths(inner, (*prefix, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            found += paths(inner, (*prefix, index))
    return found


PATHS = paths(ROLES)
typos = st.sampled_from(["cpu_utl", "amout", "sales", "city", "", "no.such", 'x"; DROP TABLE sales; --', "名字"])
replacements = typos | hostile_names | json_values | st.sampled_from(["1 = 1", "code >", "meaning = 'x'"])


def mutated(document: dict, changes: list[tuple[tuple, str, object]]) -> dict:
    """The document with each change made: a value replaced or removed at a path."""
    result = copy.deepcopy(document)
    for path, how, value in changes:
        holder = result
        try:
            for key in path[:-1]:
                holder = holder[key]
            if how == "delete":
                del holder[path[-1]]
            else:
                holder[path[-1]] = value
        except (KeyError, IndexError, TypeError):
            continue
    return result


def generate(workdir: Path, sales_db: Path, roles: Path) -> None:
    """`generate templates` over the sales database with `roles`, checked as an input door."""
    out = workdir / "out"
    args = ("generate", "templates", sales_db, "--roles", roles, "--per-category", "1", "--languages", "en", "-o", out)
    check_door(workdir, out, *args)


@pytest.mark.parametrize(
    ("path", "value", "named"),
    [
        (("facts", 0, "metrics", 0, "column"), "cpu_utl", "fact 'sales', metric column: table 'sales' has no column"),
        (("facts", 0, "metrics", 0, "column"), "amout", "did you mean 'amount'?"),
        (("facts", 0, "dimensions", 2, "column"), "nme", "table 'city' has no column 'nme'"),
        (("facts", 0, "time", "column"), "dy", "fact 'sales', time column"),
        (("facts", 0, "table"), "sale", "no table 'sale' in the database (did you mean 'sales'?)"),
        (("joins", 0, "right"), "city.id", "join sales.city_id = city.id: table 'city' has no column 'id'"),
        (("mappings", 0, "meaning", "en"), "meanng", "mapping 'status_mapping', meaning column"),
        (("mappings", 0, "where"), "code >", "mapping 'status_mapping', where: 'code >' fails"),
    ],
)
def test_a_roles_typo_is_one_line_naming_file_fact_and_column(
    tmp_path: Path, sales_db: Path, path: tuple, value: str, named: str
) -> None:
    from tests.cli_in_process import cli
    from tests.run_helpers import one_line_error

    roles = tmp_path / "roles.yaml"
    roles.write_text(yaml.safe_dump(mutated(ROLES, [(path, "set", value)]), allow_unicode=True), encoding="utf-8")
    out = tmp_path / "out"
    line = one_line_error(cli("generate", "templates", sales_db, "--roles", roles, "-o", out), named)
    assert str(roles) in line and f"'{value.split('.')[-1]}'" in line
    assert not out.exists()


@FUZZ
@given(
    changes=st.lists(
        st.tuples(st.sampled_from(PATHS), st.sampled_from(["set", "set", "delete"]), replacements), max_size=3
    ),
    breakage=st.sampled_from(["plain"] * 6 + ["cut", "bytes"]),
    cut=st.integers(0, 400),
)
def test_roles_door(tmp_path: Path, sales_db: Path, changes: list, breakage: str, cut: int) -> None:
    workdir = fresh(tmp_path)
    roles = workdir / "roles.yaml"
    text = yaml.safe_dump(mutated(ROLES, changes), allow_unicode=True).encode()
    roles.write_bytes({"plain": text, "cut": text[:cut], "bytes": text.replace(b":", b":\xff", 1)}[breakage])
    generate(workdir, sales_db, roles)
