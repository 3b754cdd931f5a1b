"""Importing the questions whose databases are present: the `skip_missing` option of the published layouts (BIRD,
Spider, Spider 2.0-lite), the questions it leaves out, and what an importer returns with its notes."""

from collections.abc import Callable
from dataclasses import dataclass, field

from biarena.benchmarks.anchor import Now, anchor_benchmark
from biarena.benchmarks.import_options import ImportOptions
from biarena.benchmarks.shown import shown
from biarena.errors import FormatError, NotFoundError
from biarena.records import Benchmark, DatabaseRef


class LayoutOptions(ImportOptions):
    """What the importers of published layouts with one database per question take."""

    skip_missing: bool = False
    """Import only the questions whose database is present, and count the others (`--skip-missing`); by default a
    missing database stops the import."""


@dataclass
class LayoutImport:
    """What an importer read: the benchmark, and lines to tell the user (questions skipped, gold missing)."""

    benchmark: Benchmark
    notes: list[str] = field(default_factory=list)


@dataclass
class MissingDatabases:
    """The databases not found so far, with how many questions asked for each (when skipping them)."""

    skip: bool
    questions: dict[str, int] = field(default_factory=dict)

    def resolve(self, refs: dict[str, DatabaseRef], name: str, find: Callable[[], DatabaseRef]) -> bool:
        """True when the question's database `name` is (now) in `refs`; False when it is missing and skipped.

        A missing database raises NotFoundError unless skipping; `find` makes the DatabaseRef or raises it."""
        if name in refs:
            return True
        if name in self.questions:
            self.questions[name] += 1
            return False
        try:
            refs[name] = find()
        except NotFoundError as error:
            if not self.skip:
                raise NotFoundError(
                    f"{error}; --skip-missing imports the questions whose database is present"
                ) from None
            self.questions[name] = 1
            return False
        return True

    def note(self, shown_names: int = 5) -> str | None:
        """`skipped N questions whose database is missing: a, b, c ...`, or None when none was."""
        if not self.questions:
            return None
        names = sorted(self.questions, key=lambda n: (-self.questions[n], n))
        listed = ", ".join(shown(n, limit=40) for n in names[:shown_names])
        more = f" and {len(names) - shown_names} more" if len(names) > shown_names else ""
        count = sum(self.questions.values())
        return (
            f"skipped {count} question{'s' if count != 1 else ''} whose database is missing: {listed}{more} "
            f"({len(names)} database{'s' if len(names) != 1 else ''}); the questions after them have moved up, so "
            "match predictions by question id (JSONL), not by position"
        )

    def check_some(self, imported: int, source: str) -> None:
        """Refuse an import that skipped every question."""
        if not imported and self.questions:
            raise FormatError(f"{source}: no question's database is present ({self.note()})")

    def imported(self, benchmark: Benchmark, source: str, now: Now | str) -> LayoutImport:
        """What an importer of `source` returns: `benchmark` anchored at `now`, with the note of the questions it
        skipped; FormatError when it has no questions."""
        self.check_some(len(benchmark.questions), source)
        if not benchmark.questions:
            raise FormatError(f"{source}: no questions")
        note = self.note()
        return LayoutImport(anchor_benchmark(benchmark, now), [note] if note else [])
