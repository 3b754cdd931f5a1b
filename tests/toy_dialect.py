"""An engine added the way a new one is: this module (its SQL dialect, its Database class and its Dialect) and one
`biarena.engines` entry point naming TOY. It is SQLite underneath, under the name toy, with a shorter allow-list."""

from typing import Any

from sqlglot.dialects.sqlite import SQLite

from biarena.db.dialect import Dialect
from biarena.db.sqlite_database import SqliteDatabase
from biarena.db.sqlite_dialect import SQLITE


class Toy(SQLite):
    """The toy engine's SQL, as sqlglot reads and writes it (SQLite's; registered with sqlglot as `toy`)."""


class ToyDatabase(SqliteDatabase):
    """A toy file, opened as SQLite; every statement goes through the parser check (its allow-list is not
    SQLite's)."""

    dialect = "toy"
    engine_is_sandbox = False
    engine_checks_functions = False

    @classmethod
    def from_url(cls, url: str, *, allow_superuser: bool = False, **settings: Any) -> "ToyDatabase":
        """The file of `toy:///PATH`."""
        return cls(url.split(":///", 1)[1], **settings)


TOY = Dialect(
    name="toy",
    label="Toy",
    description="A toy file: SQLite under another name, without upper().",
    functions=SQLITE.functions - {"upper"},
    catalog=SQLITE.catalog,
    database="tests.toy_dialect:ToyDatabase",
    serve="biarena.db.sqlite_serve",
    file_suffixes=(".toy",),
    builtin_schemas=SQLITE.builtin_schemas,
    bounds_own_values=True,
)
"""Everything biarena knows of the toy engine."""
