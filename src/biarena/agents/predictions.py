"""The `predictions` system: replays a JSONL of {"question_id", "sql"} from any external system."""

import hashlib
from pathlib import Path
from typing import Any

from biarena.agents.system import AgentEnv, run_step
from biarena.benchmarks.jsonl import read_jsonl
from biarena.errors import FormatError, NotFoundError, UsageError
from biarena.options import Options
from biarena.records import Answer, Question, SystemSpec
from biarena.records.sanitize import clean_text

SQL_FIELDS = ("sql", "predicted_sql", "query")
"""Fields a prediction's SQL may be given in (the first is the native one)."""


def load_predictions(path: Path) -> dict[str, str | None]:
    """Read a predictions file; FormatError names the line and field of a bad record.

    A record is {"question_id": ..., "sql": ...}; `predicted_sql` or `query` may stand for `sql`, and a
    null SQL records that the system gave none for that question.
    """
    if path.is_dir():
        raise UsageError(f"predictions {path}: is a folder; give the JSONL file of predictions inside it")
    if not path.is_file():
        raise NotFoundError(f"predictions file not found: {path}")
    predictions: dict[str, str | None] = {}
    try:
        for number, record in read_jsonl(path):
            where = f"{path} line {number}"
            if not isinstance(record, dict):
                raise FormatError(f"{where}: expected an object with 'question_id' and 'sql'")
            qid = record.get("question_id")
            if not isinstance(qid, str) or not qid:
                found = f" (it has {', '.join(repr(k) for k in list(record)[:6])})" if record else ""
                problem = "is missing" if qid is None else "must be a non-empty string"
                raise FormatError(f"{where}: field 'question_id' {problem}{found}")
            given = [name for name in SQL_FIELDS if name in record]
            if not given:
                keys = ", ".join(repr(k) for k in list(record)[:6])
                raise FormatError(f"{where}: no SQL field: expected 'sql' (or 'predicted_sql' or 'query'); has {keys}")
            if len(given) > 1 and len({repr(record[name]) for name in given}) > 1:
                raise FormatError(f"{where}: fields {' and '.join(repr(g) for g in given)} disagree; give one")
            sql = record[given[0]]
            if sql is not None and not isinstance(sql, str):
                raise FormatError(f"{where}: field '{given[0]}' must be a string or null")
            if qid in predictions:
                raise FormatError(f"{where}: field 'question_id': {qid!r} repeats")
            predictions[qid] = sql
    except UnicodeDecodeError as error:
        raise FormatError(f"{path}: not UTF-8 text ({error.reason} at byte {error.start})") from None
    except OSError as error:
        raise FormatError(f"{path}: cannot read ({error.strerror or error})") from None
    return predictions


class PredictionsOptions(Options):
    """Options of the predictions system."""

    predictions: Path
    """JSONL of {"question_id", "sql"} from any system ("predicted_sql" or "query" also name the SQL)."""


class PredictionsSystem:
    """Answers with the SQL an external system predicted for each question."""

    name = "predictions"
    Options = PredictionsOptions

    def __init__(self, options: PredictionsOptions | None = None, **values: Any) -> None:
        self.options = PredictionsOptions.resolve(options, values, f"agent '{self.name}'")
        self.path = self.options.predictions
        self.predictions = load_predictions(self.path)
        self.digest = hashlib.sha256(self.path.read_bytes()).hexdigest()

    def spec_options(self) -> dict[str, Any]:
        """The predictions file and its content hash (a changed file is a different run)."""
        return {"predictions": str(self.path.resolve()), "predictions_sha256": self.digest}

    def unknown_ids(self, question_ids: set[str]) -> list[str]:
        """Predicted ids that name no question of the benchmark."""
        return sorted(set(self.predictions) - question_ids)

    def answer(self, question: Question, env: AgentEnv) -> Answer:
        """Replay the predicted SQL for `question`."""
        system = SystemSpec(agent=self.name, options={"predictions": self.path.name})
        if question.id not in self.predictions:
            return Answer(
                question_id=question.id, system=system, status="error", error="no prediction for this question"
            )
        sql = self.predictions[question.id]
        if sql is None:
            return Answer(question_id=question.id, system=system, status="error", error="the prediction's SQL is null")
        sql, replaced = clean_text(sql)
        notes = [f"{replaced} lone surrogate(s) replaced with U+FFFD in sql"] if replaced else []
        step, _ = run_step(env, question, sql)
        return Answer(question_id=question.id, system=system, steps=[step], final_sql=sql, sanitized=notes)
