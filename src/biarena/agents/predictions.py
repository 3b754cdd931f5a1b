"""The `predictions` system: replays the SQL an external system predicted, from biarena's JSONL of {"question_id",
"sql"} or from the files BIRD and Spider papers publish (matched to questions by position)."""

import hashlib
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from biarena.agents.system import AgentEnv, run_step
from biarena.benchmarks.json_file import read_json, read_text
from biarena.benchmarks.jsonl import read_jsonl
from biarena.benchmarks.shown import shown as shown_value
from biarena.errors import FormatError, NotFoundError, UsageError
from biarena.options import Options
from biarena.records import Answer, Benchmark, Question, SystemSpec
from biarena.records.sanitize import clean_text

SQL_FIELDS = ("sql", "predicted_sql", "query")
"""Fields a prediction's SQL may be given in (the first is the native one)."""
NO_PREDICTION = "no prediction for this question"
"""The error recorded for a question the predictions file has no prediction for."""


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


BIRD_SEPARATOR = "\t----- bird -----\t"
"""What parts a prediction's SQL from its database in BIRD's predict_*.json."""

PredictionsFormat = Literal["jsonl", "bird", "spider"]


def _checked_file(path: Path) -> Path:
    if path.is_dir():
        raise UsageError(f"predictions {path}: is a folder; give the predictions file inside it")
    if not path.is_file():
        raise NotFoundError(f"predictions file not found: {path}")
    return path


def load_bird_predictions(path: Path) -> dict[int, tuple[str | None, str | None]]:
    """Read BIRD's predict_*.json: {"0": "SQL\t----- bird -----\tdb_id", ...} as position -> (SQL, db_id).

    BIRD's evaluator pairs predictions with the dev file's questions in order; the keys are those positions. A value
    that is not text is a prediction without SQL (BIRD runs a blank query for it)."""
    data = read_json(_checked_file(path))
    if not isinstance(data, dict):
        raise FormatError(f'{path}: expected a JSON object of position -> "SQL\\t----- bird -----\\tdb_id"')
    found: dict[int, tuple[str | None, str | None]] = {}
    for key, value in data.items():
        if not key.strip().isdigit():
            raise FormatError(f"{path}: key {key!r} is not a position (BIRD's keys count questions from 0)")
        if not isinstance(value, str):
            found[int(key)] = (None, None)
            continue
        sql, separator, db_id = value.partition(BIRD_SEPARATOR)
        found[int(key)] = (sql, db_id.strip() if separator else None)
    return found


def load_spider_predictions(path: Path) -> dict[int, str]:
    """Read Spider's predictions: one SQL a line, line i (blank lines skipped) answering question i, as Spider's
    evaluator reads it (the first tab-separated field; ` value ` read as ` 1 `, its placeholder for a value)."""
    text = read_text(_checked_file(path))
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return {index: line.split("\t")[0].replace(" value ", " 1 ") for index, line in enumerate(lines)}


@dataclass(frozen=True)
class PredictionCoverage:
    """Where a predictions file and the benchmark it is run on do not match."""

    unknown: list[str]
    """Predictions naming no question of the benchmark (ids, or `position N` past its end)."""
    missing: list[str]
    """Ids of the questions asked that have no prediction."""
    other_database: list[str]
    """Ids of the questions whose prediction names another database (BIRD's files name one)."""

    @property
    def complete(self) -> bool:
        """True when every question asked has its prediction and every prediction its question."""
        return not (self.unknown or self.missing or self.other_database)

    def summary(self, predictions: int, benchmark: str, shown: int = 5) -> str:
        """The mismatch in one line: how many of each kind, with the first ids."""

        def first(ids: list[str]) -> str:
            more = f", ... ({len(ids) - shown} more)" if len(ids) > shown else ""
            return ", ".join(shown_value(i, limit=40) for i in ids[:shown]) + more

        parts = []
        if self.unknown:
            if len(self.unknown) == predictions:
                what = f"none of the {predictions} predictions names a question of '{benchmark}'"
            else:
                verb = "names" if len(self.unknown) == 1 else "name"
                what = f"{len(self.unknown)} of the {predictions} predictions {verb} no question of '{benchmark}'"
            parts.append(f"{what} ({first(self.unknown)})")
        if self.missing:
            many = len(self.missing) > 1
            what = f"{len(self.missing)} question{'s have' if many else ' has'} no prediction"
            parts.append(f"{what} ({first(self.missing)})")
        if self.other_database:
            many = len(self.other_database) > 1
            what = f"{len(self.other_database)} prediction{'s are' if many else ' is'} for another database"
            parts.append(f"{what} than {'their' if many else 'its'} question's ({first(self.other_database)})")
        return "; ".join(parts)


class PredictionsOptions(Options):
    """Options of the predictions system."""

    predictions: Path
    """The predictions file: JSONL of {"question_id", "sql"} from any system ("predicted_sql" or "query" also name
    the SQL), or BIRD's predict_*.json or Spider's one-SQL-a-line file (see `format`)."""
    format: PredictionsFormat = "jsonl"
    """jsonl (biarena's, matched by question id); bird (predict_*.json, keys are positions in the question file);
    spider (line i answers question i). BIRD and Spider files are matched to questions by their order in the
    benchmark, as imported by `import bird` / `import spider`."""


class PredictionsSystem:
    """Answers with the SQL an external system predicted for each question."""

    name = "predictions"
    Options = PredictionsOptions

    def __init__(self, options: PredictionsOptions | None = None, **values: Any) -> None:
        self.options = PredictionsOptions.resolve(options, values, f"agent '{self.name}'")
        self.path = self.options.predictions
        self.format = self.options.format
        self.by_position: dict[int, tuple[str | None, str | None]] = {}
        """A BIRD or Spider file's predictions: position in the benchmark -> (SQL, database named, if any)."""
        if self.format == "bird":
            self.by_position = load_bird_predictions(self.path)
        elif self.format == "spider":
            self.by_position = {i: (sql, None) for i, sql in load_spider_predictions(self.path).items()}
        self.predictions = load_predictions(self.path) if self.format == "jsonl" else {}
        self.digest = hashlib.sha256(self.path.read_bytes()).hexdigest()
        self.count = len(self.by_position) if self.format != "jsonl" else len(self.predictions)
        """Predictions the file holds."""
        self._positions: tuple[int, dict[str, int]] | None = None
        self._lock = threading.Lock()

    def spec_options(self) -> dict[str, Any]:
        """The predictions file, its format and content hash (a changed file is a different run)."""
        spec = {"predictions": str(self.path.resolve()), "predictions_sha256": self.digest}
        return spec if self.format == "jsonl" else {**spec, "format": self.format}

    def unknown_ids(self, question_ids: set[str]) -> list[str]:
        """Predicted ids that name no question of the benchmark (for a BIRD or Spider file, positions past its end)."""
        if self.format != "jsonl":
            return [f"position {p}" for p in sorted(self.by_position) if p >= len(question_ids)]
        return sorted(set(self.predictions) - question_ids)

    def coverage(self, benchmark: Benchmark, questions: list[Question]) -> "PredictionCoverage":
        """How the file matches the benchmark: predictions naming no question, questions asked without one, and (in
        a BIRD file) predictions made for another database than their question's."""
        positions = {q.id: i for i, q in enumerate(benchmark.questions)}
        unknown = self.unknown_ids(set(positions))
        if self.format == "jsonl":
            return PredictionCoverage(unknown, [q.id for q in questions if q.id not in self.predictions], [])
        missing = [q.id for q in questions if positions[q.id] not in self.by_position]
        other_database = [
            q.id
            for q in questions
            if (database := self.by_position.get(positions[q.id], (None, None))[1]) is not None
            and database != q.database
        ]
        return PredictionCoverage(unknown, missing, other_database)

    def _position(self, question: Question, benchmark: Benchmark) -> int:
        with self._lock:
            if self._positions is None or self._positions[0] != id(benchmark):
                self._positions = (id(benchmark), {q.id: i for i, q in enumerate(benchmark.questions)})
            return self._positions[1].get(question.id, -1)

    def _predicted(self, question: Question, env: AgentEnv) -> tuple[bool, str | None, str | None]:
        """(found, SQL, why not usable) of the prediction for `question`."""
        if self.format == "jsonl":
            if question.id not in self.predictions:
                return False, None, None
            return True, self.predictions[question.id], None
        position = self._position(question, env.benchmark)
        if position not in self.by_position:
            return False, None, None
        sql, database = self.by_position[position]
        if database is not None and database != question.database:
            why = f"the prediction at position {position} is for database '{database}', not '{question.database}'"
            return True, None, why
        return True, sql, None

    def answer(self, question: Question, env: AgentEnv) -> Answer:
        """Replay the predicted SQL for `question`."""
        system = SystemSpec(agent=self.name, options={"predictions": self.path.name})
        found, sql, why = self._predicted(question, env)
        if not found:
            return Answer(question_id=question.id, system=system, status="error", error=NO_PREDICTION)
        if why is not None:
            return Answer(question_id=question.id, system=system, status="error", error=why)
        if sql is None:
            return Answer(question_id=question.id, system=system, status="error", error="the prediction's SQL is null")
        sql, replaced = clean_text(sql)
        notes = [f"{replaced} lone surrogate(s) replaced with U+FFFD in sql"] if replaced else []
        step, _ = run_step(env, question, sql)
        return Answer(question_id=question.id, system=system, steps=[step], final_sql=sql, sanitized=notes)
