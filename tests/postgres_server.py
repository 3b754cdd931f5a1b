"""A throwaway PostgreSQL server on loopback for tests (Debian's postgresql package)."""

import glob
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def postgres_bin() -> Path | None:
    """The directory holding initdb and pg_ctl, when PostgreSQL is installed."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    if found:
        return Path(found[-1]).parent
    pg_ctl = shutil.which("pg_ctl")
    return Path(pg_ctl).parent if pg_ctl else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def require_postgres() -> None:
    """Skip the test where PostgreSQL or psycopg is missing; fail it in CI, which must have them."""
    import pytest

    if postgres_bin() is None:
        if os.environ.get("CI"):
            pytest.fail("PostgreSQL must be installed in CI (scripts/test installs it)")
        pytest.skip("PostgreSQL is not installed")
    pytest.importorskip("psycopg")


@contextmanager
def postgres_server() -> Iterator[str]:
    """Start a server on 127.0.0.1 with trust authentication; yield its base URL; stop and remove it."""
    bindir = postgres_bin()
    if bindir is None:
        raise RuntimeError("PostgreSQL is not installed")
    root = Path(tempfile.mkdtemp(prefix="biarena-pg-"))
    data, sockets = root / "data", root / "sock"
    sockets.mkdir()
    as_user: list[str] = []
    if os.geteuid() == 0:  # the server refuses to run as root
        shutil.chown(root, "postgres")
        shutil.chown(sockets, "postgres")
        as_user = ["runuser", "-u", "postgres", "--"]
    port = _free_port()
    run = lambda *args: subprocess.run([*as_user, *map(str, args)], check=True, capture_output=True)  # noqa: E731
    run(bindir / "initdb", "-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8")
    options = f"-c listen_addresses=127.0.0.1 -p {port} -k {sockets} -c fsync=off -c full_page_writes=off"
    run(bindir / "pg_ctl", "-D", data, "-o", options, "-l", root / "log", "-w", "-t", "60", "start")
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}"
    finally:
        subprocess.run(
            [*as_user, str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"], capture_output=True
        )
        shutil.rmtree(root, ignore_errors=True)


def create_database(base_url: str, name: str) -> str:
    """Create database `name` on the server and return its URL."""
    import sqlalchemy as sa

    engine = sa.create_engine(f"{base_url}/postgres", isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    engine.dispose()
    return f"{base_url}/{name}"


SANDBOX_DOCS = Path(__file__).resolve().parent.parent / "docs" / "sandbox.md"


def read_only_role_recipe() -> list[str]:
    """The statements of the docs' read-only role recipe (docs/sandbox.md), as written there (for database bench, role
    analyst)."""
    section = SANDBOX_DOCS.read_text(encoding="utf-8").split("**On a server, use a read-only role.**", 1)[1]
    block = section.split("```sql\n", 1)[1].split("\n```", 1)[0]
    return [" ".join(statement.split()) for statement in block.split(";") if statement.strip()]


def create_read_only_role(base_url: str, database: str, role: str = "analyst") -> str:
    """Run the docs' read-only role recipe for `database` and `role` (as the superuser, in `database`); return its URL.

    Roles belong to the whole server: when `role` exists already (it reads another database too), its CREATE ROLE
    is skipped and the rest of the recipe runs.
    """
    import sqlalchemy as sa

    admin = sa.create_engine(f"{base_url}/{database}", isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        exists = conn.exec_driver_sql(f"SELECT 1 FROM pg_roles WHERE rolname = '{role}'").first() is not None
        for statement in read_only_role_recipe():
            if exists and statement.startswith("CREATE ROLE"):
                continue
            statement = re.sub(r"\bbench\b", database, re.sub(r"\banalyst\b", role, statement))
            conn.exec_driver_sql(statement)
    admin.dispose()
    return f"{base_url.replace('://postgres@', f'://{role}@', 1)}/{database}"
