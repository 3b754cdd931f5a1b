"""The validation queue: people accept, edit or reject a benchmark's questions; decisions live beside it.

Decisions are appended to `validation.jsonl` in the benchmark directory, one line each with who and when; a
question's latest decision counts. The questions themselves are never rewritten: an edit is a decision that
carries the new text, applied when accepted questions are selected.
"""

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from biarena.errors import FormatError, UsageError
from biarena.records import Benchmark, Question

VALIDATION_FILE = "validation.jsonl"
"""Decisions, one JSON line each, beside benchmark.yaml."""
CHECKS_FILE = "checks.jsonl"
"""What the generation's checks said about each question, when the benchmark was generated."""


class Decision(BaseModel):
    """One person's decision on one question."""

    model_config = ConfigDict(extra="forbid")

    format_version: int = 1
    """Version of the decision record."""
    question_id: str = Field(min_length=1)
    """The question decided on."""
    decision: Literal["accepted", "edited", "rejected"]
    """Accepted as it is, accepted with new text, or rejected."""
    reviewer: str = Field(min_length=1)
    """Who decided."""
    at: datetime
    """When (UTC)."""
    text: str | None = None
    """The new text of an edited question."""
    original: str
    """The question's text when it was decided on."""

    @property
    def accepted(self) -> bool:
        """True when the question stays in (accepted, or accepted with an edit)."""
        return self.decision != "rejected"


def _root(benchmark: Benchmark) -> Path:
    if benchmark.root is None:
        raise UsageError(f"benchmark '{benchmark.name}' has no directory to keep validation decisions in")
    return benchmark.root


def load_decisions(root: Path) -> dict[str, Decision]:
    """Each question's latest decision; a last line cut short (a killed write) is ignored, others must be valid."""
    path = root / VALIDATION_FILE
    if not path.is_file():
        return {}
    decisions: dict[str, Decision] = {}
    lines = path.read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            decision = Decision.model_validate(json.loads(line))
        except (json.JSONDecodeError, ValidationError) as error:
            if number == len(lines) and isinstance(error, json.JSONDecodeError):
                continue
            detail = error.msg if isinstance(error, json.JSONDecodeError) else error.errors()[0]["msg"]
            raise FormatError(f"{path} line {number}: not a validation decision ({detail})") from None
        decisions[decision.question_id] = decision
    return decisions


def record_decision(
    benchmark: Benchmark,
    question: Question,
    decision: str,
    reviewer: str,
    text: str | None = None,
) -> Decision:
    """Append a decision on `question` to the benchmark's validation file, durably; return it."""
    if decision == "edited" and not (text and text.strip()):
        raise UsageError("an edit needs the new text")
    made = Decision(
        question_id=question.id,
        decision=decision,  # type: ignore[arg-type]
        reviewer=reviewer,
        at=datetime.now(UTC),
        text=" ".join(text.split()) if decision == "edited" and text else None,
        original=question.text,
    )
    path = _root(benchmark) / VALIDATION_FILE
    # One write of one line per decision, so decisions from two places (terminal, web) never interleave mid-line.
    line = (made.model_dump_json() + "\n").encode("utf-8")
    descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(descriptor, line)
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
    return made


def load_checks(root: Path) -> dict[str, dict]:
    """What the generation's checks said about each question (empty for a benchmark that was not generated)."""
    path = root / CHECKS_FILE
    found: dict[str, dict] = {}
    if not path.is_file():
        return found
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(record, dict) and isinstance(record.get("id"), str):
            found[record["id"]] = record
    return found


def pending_questions(benchmark: Benchmark) -> list[Question]:
    """The questions nobody has decided on yet, in benchmark order."""
    decided = load_decisions(_root(benchmark))
    return [q for q in benchmark.questions if q.id not in decided]


def accepted_questions(benchmark: Benchmark) -> list[Question]:
    """The accepted questions, in benchmark order, edited ones with their new text."""
    decisions = load_decisions(_root(benchmark))
    chosen: list[Question] = []
    for question in benchmark.questions:
        decision = decisions.get(question.id)
        if decision is None or not decision.accepted:
            continue
        chosen.append(question.model_copy(update={"text": decision.text}) if decision.text else question)
    return chosen


def accepted_only(benchmark: Benchmark) -> Benchmark:
    """The benchmark holding only its accepted questions; UsageError when none is accepted."""
    chosen = accepted_questions(benchmark)
    if not chosen:
        raise UsageError(
            f"no accepted questions in '{benchmark.name}' ({len(benchmark.questions)} questions): "
            "review them first with biarena validate"
        )
    filtered = benchmark.model_copy(update={"questions": chosen})
    filtered.set_root(benchmark.root)
    return filtered
