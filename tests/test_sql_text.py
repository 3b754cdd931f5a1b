"""SQL text is assembled in one place: `biarena.db.sql_text` quotes identifiers and renders literals; no f-strings."""

import ast
import re
import sqlite3
from pathlib import Path

import pytest

from biarena.db.sql_text import Literal, Sql, compose, placeholders, qualified, quote_identifier, quote_literal

SRC = Path(__file__).resolve().parent.parent / "src" / "biarena"

_STATEMENT = re.compile(r"^\s*(SELECT|INSERT|CREATE|DROP|UPDATE|DELETE|PRAGMA|ALTER|WITH|ATTACH|DETACH)\b", re.I)
_CLAUSE = re.compile(r"\b(SELECT|FROM|INSERT INTO|CREATE TABLE|CREATE VIEW|DROP TABLE|PRAGMA|INTO \S+ \(|VALUES \()")

HELPER = "db/sql_text.py"

ALLOWED = {
    "db/postgres_rows.py": "wraps the caller's statement, already written, in a cursor",
    "db/server_database.py": "role check built from an array of literals",
    "sqlite_migrations.py": "PRAGMA user_version takes no parameter; the value is an int; below the db layer",
}
"""Files still holding SQL f-strings, with the reason each; the list only shrinks."""


def _sql_fstrings(path: Path) -> list[int]:
    """Lines of f-strings in a module whose text reads as SQL."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.JoinedStr):
            text = "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
            if _STATEMENT.search(text) or _CLAUSE.search(text):
                lines.append(node.lineno)
    return lines


def test_no_sql_assembled_by_fstring_outside_the_helper() -> None:
    found = {}
    for path in sorted(SRC.rglob("*.py")):
        name = path.relative_to(SRC).as_posix()
        if name != HELPER and name not in ALLOWED and (lines := _sql_fstrings(path)):
            found[name] = lines
    assert found == {}, f"SQL assembled by f-string; use biarena.db.sql_text.compose: {found}"


def test_allowlist_names_only_files_that_still_need_it() -> None:
    stale = [name for name in ALLOWED if not (SRC / name).exists() or not _sql_fstrings(SRC / name)]
    assert stale == [], f"allowlisted files without SQL f-strings (take them off the list): {stale}"


def test_no_private_identifier_quoting_helpers() -> None:
    copies = [
        path.relative_to(SRC).as_posix()
        for path in SRC.rglob("*.py")
        if re.search(r"^def _quote\(name: str\)", path.read_text(encoding="utf-8"), re.M)
    ]
    assert copies == []


def test_identifiers_are_quoted_so_any_name_round_trips() -> None:
    conn = sqlite3.connect(":memory:")
    name, column = 'odd "table" name', "select"
    conn.execute(compose("CREATE TABLE {t} ({c} TEXT)", t=name, c=column))
    conn.execute(compose("INSERT INTO {t} ({c}) VALUES ({marks})", t=name, c=[column], marks=placeholders(1)), ["x"])
    assert conn.execute(compose("SELECT {c} FROM {t}", t=name, c=column)).fetchall() == [("x",)]
    assert quote_identifier('a"b') == '"a""b"'


def test_parts_render_by_kind() -> None:
    sql = compose(
        "SELECT {cols} FROM {t} WHERE {col} = {v} AND n < {n}{tail}",
        cols=["a", "b"],
        t="t",
        col=qualified("c", "x"),
        v=Literal("it's"),
        n=3,
        tail=Sql(" LIMIT ?"),
    )
    assert sql == """SELECT "a", "b" FROM "t" WHERE c."x" = 'it''s' AND n < 3 LIMIT ?"""
    assert isinstance(sql, Sql)
    assert quote_literal(None) == "NULL"


def test_misuse_is_refused() -> None:
    with pytest.raises(ValueError):
        compose("SELECT {missing}")
    with pytest.raises(ValueError):
        compose("SELECT {n:d}", n=1)
    with pytest.raises(TypeError):
        compose("SELECT {v}", v=1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        qualified("c; DROP TABLE t", "x")
