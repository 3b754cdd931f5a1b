"""DatabaseLocation: a database named by a file path or a server URL, as generation commands take it."""

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from biarena.benchmarks.paths import safe_file_name
from biarena.db.server_database import safe_url
from biarena.errors import UsageError
from biarena.generate.workdir import file_sha256
from biarena.records import DatabaseRef

_SQLITE_HEADER = b"SQLite format 3\x00"
PASSWORD_KEPT_OUT = (
    "the password in the URL is written to no file: give it when the benchmark runs through PGPASSWORD or "
    "~/.pgpass (docs: sandbox)"
)
"""What a generation command says when the database's URL carries a password."""


def without_password(url: str) -> str:
    """A server URL without its password (the URL as given when it does not parse or has none)."""
    try:
        from sqlalchemy.engine import URL, make_url

        parsed = make_url(url)
    except Exception:
        return re.sub(r"(://[^:/@]*):[^@]*@", r"\1@", url)
    if parsed.password is None:
        return url
    # URL.set(password=None) keeps the password (None means "unchanged" there): build the URL anew without it
    bare = URL.create(parsed.drivername, parsed.username, None, parsed.host, parsed.port, parsed.database, parsed.query)
    return bare.render_as_string(hide_password=False)


@dataclass(frozen=True)
class DatabaseLocation:
    """A database file (SQLite, DuckDB) or an SQLAlchemy URL (`postgresql://...`)."""

    text: str

    @property
    def is_url(self) -> bool:
        """True for a server URL."""
        return "://" in self.text

    @property
    def path(self) -> Path:
        """The file (UsageError for a URL)."""
        if self.is_url:
            raise UsageError(f"{safe_url(self.text)} is a server URL, not a file")
        return Path(self.text)

    @property
    def name(self) -> str:
        """The benchmark's name for it: the file's stem, or the database named at the end of the URL."""
        stem = urlsplit(self.text).path.rsplit("/", 1)[-1] if self.is_url else Path(self.text).stem
        return safe_file_name(stem or "database", "", set())

    @property
    def shown(self) -> str:
        """How messages name it (a URL without its password)."""
        return safe_url(self.text) if self.is_url else Path(self.text).name

    def check_exists(self) -> None:
        """UsageError when a file location names no file, an empty one, or one that is no SQLite or DuckDB file."""
        if self.is_url:
            return
        path = Path(self.text)
        if not path.is_file():
            raise UsageError(f"database file not found: {self.text}")
        with path.open("rb") as handle:
            head = handle.read(16)
        if not head:
            raise UsageError(f"{self.text} is empty: not a database (an SQLite or DuckDB file with tables)")
        if head != _SQLITE_HEADER and head[8:12] != b"DUCK":
            raise UsageError(f"{self.text} is not an SQLite or DuckDB database file")

    @property
    def has_password(self) -> bool:
        """True for a server URL that carries a password."""
        return self.is_url and without_password(self.text) != self.text

    @property
    def stored(self) -> str:
        """What files and hints may hold: the path, or the URL without its password (libpq reads PGPASSWORD or
        ~/.pgpass when it connects)."""
        return without_password(self.text) if self.is_url else self.text

    def fingerprint(self) -> str:
        """What a resumed generation must find again: the file's SHA-256, or the URL (without its password)."""
        return safe_url(self.text) if self.is_url else file_sha256(Path(self.text))

    def ref(self, dialect: str, description: str | None = None) -> DatabaseRef:
        """The benchmark's reference to it."""
        if self.is_url:
            return DatabaseRef(url=self.stored, dialect=dialect, description=description)
        return DatabaseRef(path=str(Path(self.text).resolve()), dialect=dialect, description=description)
