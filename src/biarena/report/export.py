"""export_records: one row per question of each run, with its origin, outcome and scores; writers for each format."""

import csv
import io
import json
from pathlib import Path
from typing import IO, Any

from biarena.csv_cells import safe_row
from biarena.errors import UsageError
from biarena.metrics.summary import counted_scores, unusable_gold
from biarena.records.outcome import outcome_of
from biarena.report.comparison import score_names
from biarena.report.kept_rows import ROW_FIELDS, KeptRows
from biarena.report.run_data import RunData, TryData

FORMATS = ("jsonl", "csv", "parquet")
"""Export formats; a file's extension names one (`.ndjson` means JSONL too)."""

_EXTENSIONS = {".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv", ".parquet": "parquet"}

FIELDS = [
    "run",
    "system",
    "model",
    "benchmark",
    "question_id",
    "try",
    "tries_agree",
    "question",
    "labels",
    "language",
    "outcome",
    "error",
    "status",
    "sql",
    "answer",
    "reference",
    "statements",
    "failed_statements",
    "database_seconds",
    "tool_calls",
]
"""Columns before the scores: where a row comes from, the question, what happened, the reference answer, and the
statements the answer ran (how many, how many failed, seconds in the database) and its database tool calls."""


def format_for(path: Path | None, given: str | None) -> str:
    """The format to write: `given`, else the file's extension (JSONL for stdout); an unknown one is refused."""
    if given is not None and given not in FORMATS:
        raise UsageError(f"--format {given}: unknown format (known: {', '.join(FORMATS)})")
    if path is None:
        return given or "jsonl"
    implied = _EXTENSIONS.get(path.suffix.lower())
    if given is None:
        if implied is None:
            known = ", ".join(_EXTENSIONS)
            shown = path.suffix or path.name
            raise UsageError(f"{path}: cannot tell the format from '{shown}' (use {known} or --format)")
        return implied
    if implied is not None and implied != given:
        raise UsageError(f"{path}: the extension says {implied} but --format says {given}; make them agree")
    return given


def export_records(runs: list[RunData], rows: int | None = None) -> list[dict[str, Any]]:
    """One record per question (and try: `try`, 0 for the first) of each run, in run order; scores as the means
    count them (0 without an answer). `tries_agree` says whether a question's tries give the same result (empty for
    a run of one try). With `rows`, each record also holds the first `rows` rows of the answer's result and of the
    gold's (`ROW_FIELDS`, as `KeptRows` finds them in the run file).

    A score is empty for a question its scorer does not score (e.g. `corgi` on a descriptive question)."""
    names = score_names(runs)
    scorers = {s.name: s.scorer for run in runs for s in [*run.scores, *(s for t in run.tries for s in t.scores)]}
    unusable: dict[str, set[tuple[str, str]]] = {}
    for run in runs:
        unusable.setdefault(run.spec.benchmark_name, set()).update(unusable_gold(run.scores))
    records = []
    for run in runs:
        tries = [TryData(0, run.answers, run.scores, run.not_applicable), *run.tries]
        bad = unusable[run.spec.benchmark_name]
        counted = {t.number: counted_scores(run.questions, t.answers, t.scores, unusable=bad) for t in tries}
        answers = {(t.number, a.question_id): a for t in tries for a in t.answers}
        agree = {q.question_id: q.agree for q in run.repeatability.questions} if run.repeatability else {}
        kept = KeptRows(run, rows) if rows is not None else None
        for question, one in ((q, t) for q in run.questions for t in tries):
            answer = answers.get((one.number, question.id))
            outcome = outcome_of(answer)
            values = dict(counted[one.number].get(question.id, {}))
            for name in names:
                if (question.id, scorers.get(name, name)) in one.not_applicable:
                    values[name] = None
            record = {
                "run": run.label,
                "system": run.spec.system,
                "model": run.spec.model,
                "benchmark": run.spec.benchmark_name,
                "question_id": question.id,
                "try": one.number,
                "tries_agree": agree.get(question.id),
                "question": question.text,
                "labels": list(question.labels),
                "language": question.language,
                "outcome": outcome.kind,
                "error": outcome.error,
                "status": answer.status if answer else None,
                "sql": answer.final_sql if answer else None,
                "answer": answer.text if answer else None,
                "reference": question.reference_answer,
                "statements": len(answer.steps) if answer else None,
                "failed_statements": sum(1 for step in answer.steps if not step.ok) if answer else None,
                "database_seconds": round(sum(step.elapsed for step in answer.steps), 6) if answer else None,
                "tool_calls": len(answer.tool_calls) if answer else None,
            }
            if kept is not None:
                record |= kept.answer(question, answer).fields("result") | kept.gold(question).fields("gold")
            records.append(record | {"scores": {name: values.get(name) for name in names}})
    return records


def flat_records(records: list[dict[str, Any]]) -> tuple[list[str], list[dict[str, Any]]]:
    """The columns and rows of every export (JSONL, CSV, Parquet): each score its own column (`score_NAME` when a
    score is named like a field), after the result rows' columns when the records hold them."""
    names = list(records[0]["scores"]) if records else []
    fields = [*FIELDS, *(ROW_FIELDS if records and ROW_FIELDS[0] in records[0] else [])]
    columns = {name: f"score_{name}" if name in fields else name for name in names}
    rows = []
    for record in records:
        flat = {k: v for k, v in record.items() if k != "scores"}
        flat.update({columns[name]: value for name, value in record["scores"].items()})
        rows.append(flat)
    return [*fields, *columns.values()], rows


def _jsonl(records: list[dict[str, Any]], handle: IO[bytes], nested: bool = False) -> None:
    rows = records if nested else flat_records(records)[1]
    for row in rows:
        handle.write((json.dumps(row, ensure_ascii=False) + "\n").encode("utf-8"))


def _csv(records: list[dict[str, Any]], handle: IO[bytes]) -> None:
    fields, rows = flat_records(records)
    text = io.TextIOWrapper(handle, encoding="utf-8", newline="")
    writer = csv.DictWriter(text, fieldnames=fields)
    writer.writeheader()
    for row in rows:
        cells = {**row, "labels": ";".join(row["labels"])}
        cells.update({name: _json_cell(row[name]) for name in _NESTED if name in row})
        writer.writerow(safe_row(cells))
    text.flush()
    text.detach()


_NESTED = ("result_columns", "result_rows", "gold_columns", "gold_rows")
"""Row fields that hold lists: JSON text in a CSV cell, and in Parquet."""


def _json_cell(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)


def _parquet(records: list[dict[str, Any]], handle: IO[bytes]) -> None:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise UsageError("Parquet export needs: pip install 'biarena[parquet]'") from None
    fields, rows = flat_records(records)
    types = {name: pa.string() for name in FIELDS}
    types["labels"] = pa.list_(pa.string())
    types["try"] = pa.int64()
    types["tries_agree"] = pa.bool_()
    types |= {"statements": pa.int64(), "failed_statements": pa.int64(), "tool_calls": pa.int64()}
    types["database_seconds"] = pa.float64()
    types |= {name: pa.string() for name in ROW_FIELDS} | {"result_truncated": pa.bool_(), "gold_truncated": pa.bool_()}
    schema = pa.schema([(name, types.get(name, pa.float64())) for name in fields])
    rows = [row | {name: _json_cell(row[name]) for name in _NESTED if name in row} for row in rows]
    table = pa.Table.from_pylist(rows, schema=schema)
    buffer = io.BytesIO()
    pq.write_table(table, buffer)
    handle.write(buffer.getvalue())


def write_records(records: list[dict[str, Any]], fmt: str, handle: IO[bytes], *, nested: bool = False) -> None:
    """Write the records to a binary stream in `fmt`: every format has the same flat columns (one per score, as
    `flat_records` names them); `nested` keeps JSONL's scores under "scores" instead."""
    if nested and fmt != "jsonl":
        raise UsageError(f"--nested applies to JSONL; {fmt} has one column per score")
    if fmt == "jsonl":
        _jsonl(records, handle, nested)
        return
    {"csv": _csv, "parquet": _parquet}[fmt](records, handle)
