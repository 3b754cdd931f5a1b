"""DatabaseLocation: a database named by a file path or a server URL, as generation commands take it."""

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from biarena.benchmarks.paths import safe_file_name
from biarena.db.server_database import safe_url
from biarena.errors import UsageError
from biarena.generate.workdir import file_sha256
from biarena.records import DatabaseRef


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
        """UsageError when a file location names no file."""
        if not self.is_url and not Path(self.text).is_file():
            raise UsageError(f"database file not found: {self.text}")

    def fingerprint(self) -> str:
        """What a resumed generation must find again: the file's SHA-256, or the URL (without its password)."""
        return safe_url(self.text) if self.is_url else file_sha256(Path(self.text))

    def ref(self, dialect: str, description: str | None = None) -> DatabaseRef:
        """The benchmark's reference to it."""
        if self.is_url:
            return DatabaseRef(url=self.text, dialect=dialect, description=description)
        return DatabaseRef(path=str(Path(self.text).resolve()), dialect=dialect, description=description)
