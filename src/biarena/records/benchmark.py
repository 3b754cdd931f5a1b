"""The Benchmark record and its database references."""

from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, model_validator

from biarena.errors import FormatError
from biarena.records.question import Question


class DatabaseRef(BaseModel):
    """Where one benchmark database lives: a file beside the benchmark or an SQLAlchemy URL."""

    model_config = ConfigDict(extra="forbid")

    path: str | None = None
    """File path, relative to the benchmark directory unless absolute (SQLite or DuckDB)."""
    url: str | None = None
    """SQLAlchemy URL of a server database (takes precedence over `path`)."""
    dialect: str = "sqlite"
    """sqlglot dialect the benchmark's gold SQL is written in."""
    description: str | None = None
    """What the database holds, in prose; column glossaries go here too."""
    now: datetime | None = None
    """Clock anchor for this database's questions (overrides the benchmark's)."""
    now_from: str | None = None
    """Where `now` was found (`table.column` holding the latest timestamp), when it was read from the data."""

    @model_validator(mode="after")
    def _has_location(self) -> "DatabaseRef":
        if not self.path and not self.url:
            raise ValueError("a database needs a 'path' or a 'url'")
        return self


class Benchmark(BaseModel):
    """A set of questions over named databases, with the knowledge a system may use."""

    model_config = ConfigDict(extra="forbid")

    format_version: int = 1
    """Version of the native benchmark format."""
    name: str = Field(min_length=1)
    """Short name of the benchmark."""
    description: str | None = None
    """What the benchmark measures."""
    knowledge: str | None = None
    """Internal knowledge (business description) systems may read."""
    now: datetime | None = None
    """Clock anchor: the moment `now`, `CURRENT_DATE` and friends stand for."""
    source_format: str = "native"
    """Where the questions came from (`native`, `bis`, `corgi`, ...)."""
    databases: dict[str, DatabaseRef] = Field(default_factory=dict)
    """Databases by name."""
    questions: list[Question] = Field(default_factory=list)
    """The questions, in benchmark order."""
    _root: Path | None = PrivateAttr(default=None)

    @property
    def root(self) -> Path | None:
        """Directory the benchmark was loaded from (relative database paths start there)."""
        return self._root

    def set_root(self, root: Path | None) -> None:
        """Record the directory relative database paths start from."""
        self._root = root

    def database_location(self, name: str) -> str:
        """Return the URL or absolute file path of database `name` (KeyError when unknown).

        A benchmark loaded from a directory reads only files inside it: a path that leads outside
        (absolute, `..` or through a link) is a FormatError.
        """
        ref = self.databases[name]
        if ref.url:
            return ref.url
        path = Path(ref.path or "")
        if self._root is None:
            return str(path)
        root = self._root.resolve()
        resolved = (root / path).resolve()
        if path.is_absolute() or not resolved.is_relative_to(root):
            raise FormatError(f"database '{name}': path '{ref.path}' leads outside the benchmark directory {root}")
        return str(resolved)

    def question(self, question_id: str) -> Question:
        """Return the question with this id (KeyError when absent)."""
        for q in self.questions:
            if q.id == question_id:
                return q
        raise KeyError(question_id)

    def anchor_for(self, question: Question) -> datetime | None:
        """Return the clock anchor that applies to `question`: its own, its database's, else the benchmark's."""
        ref = self.databases.get(question.database)
        return question.now or (ref.now if ref else None) or self.now

    def knowledge_for(self, question: Question) -> str | None:
        """The knowledge a system is shown with `question`: the benchmark's, then the question's own under
        "External knowledge:" (as BIRD's prompts label a question's evidence)."""
        parts = [self.knowledge] if self.knowledge else []
        if question.knowledge:
            parts.append(f"External knowledge: {question.knowledge}")
        return "\n\n".join(parts) or None
