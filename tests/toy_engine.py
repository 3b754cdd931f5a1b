"""A database engine written the way a new one is: this file and one ENGINES line (the tests add the line)."""

from typing import Any

from biarena.db.sqlite_database import SqliteDatabase


class LabelledSqlite(SqliteDatabase):
    """An SQLite file reached by the URL `labelled:///PATH` (an engine of its own scheme)."""

    @classmethod
    def from_url(cls, url: str, *, allow_superuser: bool = False, **settings: Any) -> "LabelledSqlite":
        """The file the URL names."""
        return cls(url.split(":///", 1)[1], **settings)
