"""The `predictions` system: replays a JSONL of {"question_id", "sql"} from any external system."""

import hashlib
from pathlib import Path
from typing import Any

from biarena.agents.system import AgentEnv, run_step
from biarena.benchmarks.jsonl import read_jsonl
from biarena.errors import FormatError, NotFoundError, UsageError
from biarena.records import Answer, Question, SystemSpec


def load_predictions(path: Path) -> dict[str, str]:
    """Read a predictions file; FormatError names the line and field of a bad record."""
    if not path.is_file():
        raise NotFoundError(f"predictions file not found: {path}")
    predictions: dict[str, str] = {}
    for number, record in read_jsonl(path):
        if not isinstance(record, dict):
            raise FormatError(f"{path} line {number}: expected an object with 'question_id' and 'sql'")
        for field in ("question_id", "sql"):
            if not isinstance(record.get(field), str):
                raise FormatError(f"{path} line {number}: field '{field}' must be a string")
        if record["question_id"] in predictions:
            raise FormatError(f"{path} line {number}: field 'question_id': '{record['question_id']}' repeats")
        predictions[record["question_id"]] = record["sql"]
    return predictions


class PredictionsSystem:
    """Answers with the SQL an external system predicted for each question."""

    name = "predictions"

    def __init__(self, predictions: str | Path | None = None) -> None:
        if predictions is None:
            raise UsageError("the predictions system needs --predictions FILE (JSONL of question_id and sql)")
        self.path = Path(predictions)
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
        sql = self.predictions.get(question.id)
        if sql is None:
            return Answer(
                question_id=question.id,
                system=system,
                status="error",
                error="no prediction for this question",
            )
        step, _ = run_step(env, question, sql)
        return Answer(question_id=question.id, system=system, steps=[step], final_sql=sql)
