"""results: runs as a pandas DataFrame, one row per question per run, the columns of `biarena export`."""

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas


def results(runs: str | Path | Sequence[str | Path], labels: Sequence[str] | None = None) -> "pandas.DataFrame":
    """One row per question (and try, for a run of several) of each run: `run` (its label), `system`, `model`,
    `benchmark`, `question_id`, `try`, `question`, `labels`, `language`, `outcome`, `error`, `status`, `sql`,
    `answer`, `reference`, then a column per score (judges' too) as the means count it: the columns of
    `biarena export -o FILE.csv` or `.parquet`.

    `labels` name the first runs, as `--label` does; the rest are named `agent · model`."""
    import pandas

    from biarena.report.export import export_records, flat_records
    from biarena.report.run_data import read_runs

    paths = [Path(runs)] if isinstance(runs, str | Path) else [Path(r) for r in runs]
    columns, rows = flat_records(export_records(read_runs(paths, list(labels) if labels else None)))
    return pandas.DataFrame.from_records(rows, columns=columns)
