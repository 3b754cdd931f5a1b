"""The `acme-csv` importer: a folder with `questions.csv` (id, question, sql) and the SQLite database `data.sqlite`."""

import csv
from pathlib import Path
from typing import Any

from biarena.errors import FormatError, NotFoundError
from biarena.options import Options
from biarena.records import Benchmark, DatabaseRef, Question


class AcmeCsvOptions(Options):
    """Options of the acme-csv importer."""

    language: str = "en"
    """The language the questions are written in."""


def import_acme_csv(path: Path, options: AcmeCsvOptions | None = None, **values: Any) -> Benchmark:
    """Acme's question sheets: questions.csv (id, question, sql) beside the SQLite database data.sqlite."""
    chosen = AcmeCsvOptions.resolve(options, values, "importer 'acme-csv'")
    sheet, database = Path(path) / "questions.csv", Path(path) / "data.sqlite"
    for needed in (sheet, database):
        if not needed.is_file():
            raise NotFoundError(f"acme-csv: {needed} not found")
    with sheet.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    if not rows or not {"id", "question", "sql"} <= set(rows[0]):
        raise FormatError(f"{sheet}: expected the columns id, question, sql")
    questions = [
        Question(id=row["id"], text=row["question"], database="data", gold_sql=[row["sql"]], language=chosen.language)
        for row in rows
    ]
    return Benchmark(
        name=Path(path).name,
        source_format="acme-csv",
        databases={"data": DatabaseRef(path=str(database.resolve()))},
        questions=questions,
    )


import_acme_csv.Options = AcmeCsvOptions  # type: ignore[attr-defined]
