"""Result tables as CSV (Spider 2.0's gold results), read the way its evaluator reads them.

Spider 2.0 writes a predicted result to CSV and reads both it and the gold CSV back with pandas, so a value is
compared as pandas types it (numbers as numbers, empty cells as missing). Gold tables are read that way at import,
and an answer's rows go through the same round trip before they are compared with them.
"""

import io
import math
from typing import Any

from biarena.db.result import QueryResult
from biarena.errors import FormatError
from biarena.records import GoldResult


def _value(cell: Any) -> Any:
    """A pandas cell as a JSON value: missing as None, numpy scalars as Python numbers."""
    if hasattr(cell, "item"):
        cell = cell.item()
    if isinstance(cell, float) and math.isnan(cell):
        return None
    return cell


def read_result_csv(text: str, where: str) -> GoldResult:
    """A result CSV (a header, then rows) typed as pandas reads it; FormatError names the file when it cannot."""
    import pandas as pd  # loaded only by the importers and scorers that read result tables

    try:
        frame = pd.read_csv(io.StringIO(text))
    except pd.errors.EmptyDataError:
        raise FormatError(f"{where}: empty; a result CSV starts with a header line") from None
    except (pd.errors.ParserError, ValueError) as error:
        raise FormatError(f"{where}: not a CSV table ({str(error).splitlines()[0]})") from None
    return GoldResult(
        columns=[str(c) for c in frame.columns],
        rows=[[_value(v) for v in row] for row in frame.itertuples(index=False, name=None)],
    )


def gold_result_outcome(gold: GoldResult) -> QueryResult:
    """A gold table as the result of a statement, to compare like any other."""
    return QueryResult(columns=list(gold.columns), rows=[tuple(row) for row in gold.rows])


def as_read_from_csv(result: QueryResult) -> QueryResult:
    """`result` as it reads back from the CSV Spider 2.0's evaluator writes it to (values typed by pandas)."""
    import pandas as pd

    if not result.columns:
        return result
    buffer = io.StringIO()
    frame = pd.DataFrame([list(row) for row in result.rows], columns=result.columns)
    frame.to_csv(buffer, index=False)
    read = read_result_csv(buffer.getvalue(), "answer")
    return QueryResult(columns=list(result.columns), rows=[tuple(row) for row in read.rows], truncated=result.truncated)

