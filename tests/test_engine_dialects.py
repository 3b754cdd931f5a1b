"""One engine, one place: everything engine-specific is its Dialect, which the engine registry names. An engine a
plugin adds is one module and one entry point; only DuckDB's own modules, the simulator's DuckDB writer and the
registry name DuckDB as a value or import it."""

import ast
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from biarena.db import open_database
from biarena.db.dialect import dialect_of, dialects, file_engines
from biarena.db.errors import SqlRejected

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "biarena"

NAMING_DUCKDB = {
    "db/open_database.py": "the engine registry",
    "db/duckdb_dialect.py": "DuckDB's dialect",
    "db/duckdb_database.py": "DuckDB's Database class",
    "db/duckdb_serve.py": "DuckDB's side of the engine process",
    "db/duckdb_files.py": "DuckDB files as biarena reads and writes them for its own work",
    "synth/writers.py": "the simulator's DuckDB writer",
}
"""Files that import duckdb or hold "duckdb..." as a value, with the reason each; the list only shrinks."""


def _names_duckdb(path: Path) -> bool:
    """True when the module imports duckdb or holds a string starting with "duckdb" that is not a docstring."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(alias.name.split(".")[0] == "duckdb" for alias in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "duckdb":
            return True
        is_text = isinstance(node, ast.Constant) and isinstance(node.value, str)
        if is_text and node.value.startswith("duckdb") and id(node) not in docstrings:
            return True
    return False


def test_only_duckdbs_own_modules_the_writer_and_the_registry_name_duckdb() -> None:
    found = {path.relative_to(SRC).as_posix() for path in SRC.rglob("*.py") if _names_duckdb(path)}
    assert found - NAMING_DUCKDB.keys() == set(), "name DuckDB through its Dialect (biarena.db.dialect.dialect_of)"
    assert NAMING_DUCKDB.keys() - found == set(), "no longer naming DuckDB: take it off NAMING_DUCKDB"


def test_each_engine_is_one_dialect() -> None:
    assert file_engines() == ("sqlite", "duckdb")
    assert {found.name: found.label for found in dialects()} == {
        "sqlite": "SQLite",
        "duckdb": "DuckDB",
        "postgres": "PostgreSQL",
        "mysql": "MySQL",
    }
    assert dialect_of("bigquery").label == "the engine"
    assert "read_csv" not in dialect_of("duckdb").functions
    assert "upper" in dialect_of("bigquery").functions


def _site(root: Path) -> Path:
    """A folder holding a dist-info whose one entry point adds the toy engine, as pip would install it."""
    info = root / "site" / "toy_engine-0.1.dist-info"
    info.mkdir(parents=True)
    info.joinpath("METADATA").write_text("Metadata-Version: 2.1\nName: toy-engine\nVersion: 0.1\n", encoding="utf-8")
    info.joinpath("entry_points.txt").write_text("[biarena.engines]\ntoy = tests.toy_dialect:TOY\n", encoding="utf-8")
    return root / "site"


TOY_CHECK = """
import sys
from biarena.db import open_database
from biarena.db.errors import SqlRejected
for location in sys.argv[1:]:
    db = open_database(location)
    count = db.execute("SELECT COUNT(*) FROM sales").rows[0][0]
    try:
        db.execute("SELECT upper(day) FROM sales")
        refused = "ran"
    except SqlRejected as error:
        refused = str(error)
    print(type(db).__name__, count, refused)
"""


def test_an_engine_a_plugin_adds_is_one_module_and_one_entry_point(tmp_path: Path, sales_db: Path) -> None:
    toy = tmp_path / "sales.toy"
    shutil.copy(sales_db, toy)
    path = os.pathsep.join([str(_site(tmp_path)), str(ROOT), str(ROOT / "src")])
    environment = {**os.environ, "PYTHONPATH": path, "NO_COLOR": "1", "COLUMNS": "200"}
    ran = subprocess.run(
        [sys.executable, "-c", TOY_CHECK, str(toy), f"toy:///{toy}", str(sales_db)],
        capture_output=True,
        text=True,
        env=environment,
    )
    assert ran.returncode == 0, ran.stderr
    count = sqlite3.connect(sales_db).execute("SELECT COUNT(*) FROM sales").fetchone()[0]
    by_file, by_url, plain = ran.stdout.splitlines()
    assert by_file.startswith(f"ToyDatabase {count} ") and "upper" in by_file
    assert by_url == by_file
    assert plain == f"SqliteDatabase {count} ran"
    listed = subprocess.run(
        [sys.executable, "-m", "biarena", "describe", "engine"], capture_output=True, text=True, env=environment
    )
    assert listed.returncode == 0, listed.stderr
    assert "toy" in listed.stdout and "without upper()" in listed.stdout and "(plugin from toy-engine)" in listed.stdout


def test_a_file_engine_is_found_by_its_suffix_or_its_first_bytes(tmp_path: Path, sales_db: Path) -> None:
    duckdb = pytest.importorskip("duckdb")
    target = tmp_path / "sales.data"
    with duckdb.connect(str(target)) as conn:
        conn.execute("CREATE TABLE sales AS SELECT 1 AS amount")
    with open_database(target) as db:
        assert db.dialect == dialect_of("duck" + "db").name
        assert db.execute("SELECT amount FROM sales").rows == [(1,)]
    with open_database(sales_db) as db:
        assert db.dialect == "sqlite"
        with pytest.raises(SqlRejected):
            db.execute("SELECT * FROM read_csv('x.csv')")
