"""execute_export: the export workflow (`biarena export RUN ... -o FILE`): one row per question of each run."""

from pathlib import Path
from typing import BinaryIO

from biarena.errors import UsageError
from biarena.events import EventHandler, Message, ignore
from biarena.files import writable_target, write_atomically
from biarena.report.export import export_records, format_for, write_records
from biarena.report.export_settings import ExportSettings
from biarena.report.run_data import read_runs


def execute_export(settings: ExportSettings, stream: BinaryIO | None = None, on_event: EventHandler = ignore) -> int:
    """Write the runs' rows to `settings.out` (atomically), else to the binary `stream`; return the rows written.

    A file written is said as a message through `on_event`. `nested` applies to JSONL only (UsageError); `rows`
    adds each answer's and gold's first result rows, as the run file holds them (`KeptRows`)."""
    target = settings.out
    if target is not None:
        writable_target(target)
    chosen = format_for(target, settings.format)
    if settings.nested and chosen != "jsonl":
        raise UsageError(f"--nested applies to JSONL; {chosen} has one column per score")
    if settings.rows is not None and settings.rows < 1:
        raise UsageError(f"--rows {settings.rows}: give the most rows to keep of each result, 1 or more")
    records = export_records(read_runs(settings.runs, settings.labels), settings.rows)
    if target is None:
        if stream is None:
            raise UsageError("export: name a file to write (-o FILE) or give a stream")
        if chosen == "parquet" and getattr(stream, "isatty", lambda: False)():
            raise UsageError("Parquet is binary: write it to a file (-o FILE.parquet) or pipe it")
        write_records(records, chosen, stream, nested=settings.nested)
        return len(records)
    write_atomically(target, lambda temp: _write_file(records, chosen, temp, settings.nested))
    on_event(Message(f"wrote {len(records)} rows ({chosen}) to {target}"))
    return len(records)


def _write_file(records: list[dict], chosen: str, path: Path, nested: bool) -> None:
    with path.open("wb") as handle:
        write_records(records, chosen, handle, nested=nested)
