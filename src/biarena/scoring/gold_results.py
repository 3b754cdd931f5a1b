"""gold_tables: a question's gold results (Spider 2.0's CSVs) as gold outcomes to compare answers with."""

from biarena.db.result import QueryResult
from biarena.db.result_csv import gold_result_outcome
from biarena.records import Question


def gold_tables(question: Question) -> list[tuple[str, QueryResult]]:
    """The question's gold tables, each with its label (`gold result 1`, ...), as gold outcomes."""
    return [(f"gold result {index + 1}", gold_result_outcome(g)) for index, g in enumerate(question.gold_results)]
