"""`biarena export RUN --format jsonl|csv|parquet -o FILE`: a run's answers and scores as a table."""

import csv
import json
import os
import tempfile
from enum import StrEnum
from pathlib import Path
from typing import Any

import typer

from biarena.cli.console import err
from biarena.errors import UsageError
from biarena.runner import RunStore, scores_by_question


class ExportFormat(StrEnum):
    """Export file formats."""

    jsonl = "jsonl"
    csv = "csv"
    parquet = "parquet"


def export_records(store: RunStore) -> list[dict[str, Any]]:
    """One record per answer: question_id, labels, language, sql, status, error, scores."""
    questions = {q.id: q for q in store.questions()}
    table = scores_by_question(store.scores())
    records = []
    for answer in store.answers():
        question = questions[answer.question_id]
        records.append(
            {
                "question_id": answer.question_id,
                "labels": question.labels,
                "language": question.language,
                "sql": answer.final_sql,
                "status": answer.status,
                "error": answer.error or next((s.error for s in reversed(answer.steps) if s.error), None),
                "scores": table.get(answer.question_id, {}),
            }
        )
    return records


def _flat(records: list[dict[str, Any]]) -> tuple[list[str], list[dict[str, Any]]]:
    names = sorted({n for r in records for n in r["scores"]})
    rows = []
    for record in records:
        row = {k: v for k, v in record.items() if k != "scores"}
        row.update({name: record["scores"].get(name) for name in names})
        rows.append(row)
    return ["question_id", "labels", "language", "sql", "status", "error", *names], rows


def _write_jsonl(records: list[dict[str, Any]], path: Path) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")


def _write_csv(records: list[dict[str, Any]], path: Path) -> None:
    fields, rows = _flat(records)
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        for row in rows:
            writer.writerow({**row, "labels": ";".join(row["labels"])})


def _write_parquet(records: list[dict[str, Any]], path: Path) -> None:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise UsageError("Parquet export needs: pip install 'biarena[parquet]'") from None
    fields, rows = _flat(records)
    columns = {name: [row.get(name) for row in rows] for name in fields}
    pq.write_table(pa.table(columns), path)


WRITERS = {"jsonl": _write_jsonl, "csv": _write_csv, "parquet": _write_parquet}


def export(
    run_path: Path = typer.Argument(..., metavar="RUN", help="Run file."),
    format: ExportFormat = typer.Option(ExportFormat.jsonl, "--format", help="jsonl, csv or parquet."),
    out: Path = typer.Option(..., "-o", "--out", help="File to write."),
) -> None:
    """Export a run's answers with their scores."""
    with RunStore(run_path) as store:
        records = export_records(store)
    out.parent.mkdir(parents=True, exist_ok=True)
    # Write beside the target and rename, so a failure never leaves a half-written file.
    handle, temp = tempfile.mkstemp(prefix=f".{out.name}.", dir=out.parent)
    os.close(handle)
    try:
        WRITERS[format.value](records, Path(temp))
        os.replace(temp, out)
    finally:
        if os.path.exists(temp):
            os.unlink(temp)
    err.print(f"wrote {len(records)} answers to {out}")
