"""`generate answers`: reference answers by Conjecture-Construct-Conclude, each over its own synthetic database.

For each question a model conjectures an answer from the schema, constructs INSERT rows that corroborate it in a
copy of the question's database (the source is never written), the rows are executed and the keys checked, and the
model concludes with a reference answer whose cited values must be among the injected rows. The result is a DB
QA-style benchmark: question, reference answer, `dbqa:conclusive` or `dbqa:interpretive`, and its database copy.
"""

import hashlib
import json
import math
import shutil
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from biarena.benchmarks.paths import safe_file_name
from biarena.db import describe_schema, open_database
from biarena.generate.bibench_questions.pipeline import text_key
from biarena.generate.cca.staging import stage_as_sqlite
from biarena.generate.cca.synthetic import (
    BASES,
    MAX_ROWS,
    ConstructError,
    Injection,
    RowInsert,
    copy_for_injection,
    inject,
    is_sqlite,
    key_maxima,
    parse_inserts,
    table_columns,
)
from biarena.generate.model_steps import STRING, STRINGS, Say, StepPipeline, object_schema
from biarena.generate.prompt_files import prompts_hash, render
from biarena.generate.workdir import BudgetExhausted, CallBudget, WorkDir, file_sha256
from biarena.llm import Model
from biarena.records import Benchmark, DatabaseRef, Question

PACKAGE = "biarena.generate.cca"
PROMPTS_HASH = prompts_hash(PACKAGE, ("system", "conjecture", "construct", "conclude"))
STEPS = ("conjecture", "construct", "execute", "conclude")
"""The steps, in order; pipeline.json counts what each kept and dropped."""
PIPELINE_FILE = "pipeline.json"
CHECKS_FILE = "checks.jsonl"
WORK_FOLDER = "work"
LABELS = ("conclusive", "interpretive")

_CONJECTURE = object_schema({"answer": STRING})
_CONSTRUCT = object_schema({"statements": {"type": "array", "minItems": 1, "items": STRING}})
_CONCLUDE = object_schema({"answer": STRING, "evidence": STRINGS, "label": {"type": "string", "enum": list(LABELS)}})


@dataclass
class AnswerResult:
    """The questions that got a reference answer, every question's record, the counts, and whether it finished."""

    questions: list[Question]
    records: list[dict[str, Any]]
    pipeline: dict[str, Any]
    stopped: str | None = None
    databases: dict[str, DatabaseRef] = field(default_factory=dict)


def rows_text(rows: list[RowInsert]) -> str:
    """Injected rows as one pipe table per table, for the conclusion prompt."""
    blocks: list[str] = []
    by_table: dict[tuple[str, tuple[str, ...]], list[tuple[Any, ...]]] = {}
    for row in rows:
        by_table.setdefault((row.table, row.columns), []).append(row.values)
    for (table, columns), values in by_table.items():
        lines = [f"{table}:", " | ".join(columns)]
        lines += [" | ".join("NULL" if v is None else str(v) for v in row) for row in values]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def unsupported_evidence(evidence: list[str], rows: list[RowInsert]) -> list[str]:
    """The cited values that are not among the injected rows' values (text case-insensitively, numbers by value)."""
    texts: set[str] = set()
    numbers: list[float] = []
    for row in rows:
        for value in row.values:
            if value is None:
                continue
            texts.add(str(value).strip().lower())
            number = _number(str(value))
            if number is not None:
                numbers.append(number)
    missing = []
    for item in evidence:
        text = str(item).strip().strip("\"'`").strip().lower()
        number = _number(text)
        if text in texts or (number is not None and any(math.isclose(number, n, rel_tol=1e-9) for n in numbers)):
            continue
        missing.append(str(item))
    return missing


def _number(text: str) -> float | None:
    try:
        value = float(text.replace(",", "").removeprefix("$"))
    except ValueError:
        return None
    return value if math.isfinite(value) else None


@dataclass
class _Case:
    """One question on its way through the stages, with its record, journal key and its database's system prompt."""

    question: Question
    record: dict[str, Any]
    key: str
    system: str


def _questions_sha256(questions: list[Question]) -> str:
    payload = [[q.id, q.text, q.database] for q in questions]
    return hashlib.sha256(json.dumps(payload, ensure_ascii=False).encode()).hexdigest()


class AnswerPipeline(StepPipeline):
    """Conjecture, construct, execute and conclude for each question of a benchmark, journaled in `work`."""

    def __init__(
        self,
        benchmark: Benchmark,
        work: WorkDir,
        *,
        model: Model,
        base: str,
        sample_rows: int,
        max_calls: int | None,
        say: Say | None,
    ) -> None:
        if base not in BASES:
            raise ValueError(f"base must be one of {', '.join(BASES)}")
        super().__init__(work, model, CallBudget([model], max_calls), STEPS, say)
        self.benchmark = benchmark
        self.base = base
        self.sample_rows = sample_rows
        self._schemas: dict[str, tuple[str, dict[str, list[str]], dict[str, Any]]] = {}
        self.taken: set[str] = set()
        self._staged: dict[str, Path] = {}

    def _source(self, name: str) -> Path | None:
        """The question's database as an SQLite file: itself, or a copy of a DuckDB file or a server database."""
        ref = self.benchmark.databases.get(name)
        if ref is None:
            return None
        if ref.url is None:
            path = Path(self.benchmark.database_location(name))
            if not path.is_file():
                return None
            if is_sqlite(path):
                return path
        if name not in self._staged:
            location = ref.url or str(self.benchmark.database_location(name))
            target = self.work.root / WORK_FOLDER / "sources" / f"{safe_file_name(name, '', set())}.sqlite"
            self.say(f"copying {name} into SQLite for the injected rows")
            self._staged[name] = stage_as_sqlite(location, target, with_rows=self.base == "data")
        return self._staged[name]

    def _schema(self, name: str, source: Path) -> tuple[str, dict[str, list[str]], dict[str, Any]]:
        if name not in self._schemas:
            with open_database(source) as db:
                schema = describe_schema(db, sample_rows=self.sample_rows)
            maxima = key_maxima(source) if self.base == "data" else {}
            self._schemas[name] = (render(PACKAGE, "system", schema=schema), table_columns(source), maxima)
        return self._schemas[name]

    def run(self, questions: list[Question]) -> AnswerResult:
        """Annotate each question; a question that fails a step is dropped with the reason, the others go on."""
        kept: list[Question] = []
        records: list[dict[str, Any]] = []
        databases: dict[str, DatabaseRef] = {}
        stopped = None
        try:
            for question in questions:
                record: dict[str, Any] = {"id": question.id, "text": question.text, "status": "pending"}
                records.append(record)
                made = self._annotate(question, record)
                if made is not None:
                    out_question, ref = made
                    kept.append(out_question)
                    databases[out_question.database] = ref
                    record["status"] = "kept"
                    self.say(f"kept {question.id} ({record['label']}): {record['reference_answer']}")
                else:
                    self.say(f"dropped {question.id} at {record['dropped_at']}: {record['reason']}")
        except BudgetExhausted as error:
            stopped = str(error)
            if records and records[-1]["status"] == "pending":
                records.pop()
        labels = {label: sum(1 for q in kept if f"dbqa:{label}" in q.labels) for label in LABELS}
        pipeline = {
            "steps": self.step_counts(),
            "questions": len(records),
            "kept": len(kept),
            "labels": labels,
        }
        return AnswerResult(kept, records, pipeline, stopped, databases)

    def _drop(self, record: dict[str, Any], step: str, reason: str) -> None:
        record.update(status="dropped", dropped_at=step, reason=reason)
        self.counts[step].drop(reason.split(":", 1)[0])

    def _reply(self, step: str, record: dict[str, Any], answer: dict[str, Any], lacking: str) -> Any:
        """The model's reply at `step`, or None with the question dropped when it gave no usable one."""
        if "error" in answer:
            self.counts[step].invalid_replies += 1
            self._drop(record, step, f"{lacking}: {answer['error']}")
            return None
        return answer["reply"]

    def _annotate(self, question: Question, record: dict[str, Any]) -> tuple[Question, DatabaseRef] | None:
        key = f"{question.id}/{text_key(question.text)}"
        self.counts["conjecture"].received += 1
        source = self._source(question.database)
        if source is None:
            self._drop(record, "conjecture", "its database is not in the benchmark")
            return None
        system, tables, maxima = self._schema(question.database, source)
        case = _Case(question, record, key, system)
        conjecture = self._conjecture(case)
        if conjecture is None:
            return None
        rows = self._construct(case, conjecture, tables, maxima)
        if rows is None:
            return None
        executed = self._execute(case, source, rows)
        if executed is None:
            return None
        reply = self._conclude(case, conjecture, rows)
        if reply is None:
            return None
        name, target, injection = executed
        labels = [f"dbqa:{reply['label']}", *(label for label in question.labels if not label.startswith("dbqa:"))]
        ref = DatabaseRef(path=str(target), description=_plain_schema(target))
        made = question.model_copy(
            update={
                "database": name,
                "labels": labels,
                "reference_answer": reply["answer"].strip(),
                "tables": question.tables or sorted(injection.rows_per_table),
                "gold_sql": [],
            }
        )
        return made, ref

    def _conjecture(self, case: _Case) -> str | None:
        """Conjecture: the model's answer from the schema alone."""
        prompt = render(PACKAGE, "conjecture", question=case.question.text)
        answer = self.ask(f"conjecture/{case.key}", self.model, case.system, prompt, _CONJECTURE, 300)
        reply = self._reply("conjecture", case.record, answer, "no usable conjecture")
        if reply is None:
            return None
        conjecture = reply["answer"].strip()
        case.record["conjecture"] = conjecture
        self.counts["conjecture"].kept += 1
        return conjecture

    def _construct(
        self, case: _Case, conjecture: str, tables: dict[str, list[str]], maxima: dict[str, Any]
    ) -> list[RowInsert] | None:
        """Construct: the INSERT statements that corroborate the conjecture, parsed into rows."""
        self.counts["construct"].received += 1
        prompt = render(
            PACKAGE,
            "construct",
            question=case.question.text,
            conjecture=conjecture,
            base=self.base,
            maxima=", ".join(f"{k} = {v}" for k, v in maxima.items()),
            max_rows=MAX_ROWS,
        )
        answer = self.ask(f"construct/{case.key}", self.model, case.system, prompt, _CONSTRUCT, 1500)
        reply = self._reply("construct", case.record, answer, "no usable statements")
        if reply is None:
            return None
        statements = [str(s) for s in reply["statements"]]
        case.record["statements"] = statements
        try:
            rows = parse_inserts(statements, tables)
        except ConstructError as error:
            self._drop(case.record, "construct", f"unusable statements: {error}")
            return None
        self.counts["construct"].kept += 1
        return rows

    def _execute(self, case: _Case, source: Path, rows: list[RowInsert]) -> tuple[str, Path, Injection] | None:
        """Execute: the rows injected into the question's own copy of its database (name, path, what was injected)."""
        self.counts["execute"].received += 1
        name = safe_file_name(case.question.id, "", self.taken)
        target = self.work.root / WORK_FOLDER / f"{name}.sqlite"
        copy_for_injection(source, target, self.base)
        try:
            injection = inject(target, rows)
        except ConstructError as error:
            target.unlink(missing_ok=True)
            self._drop(case.record, "execute", f"the injected rows break the database: {error}")
            return None
        case.record["rows_injected"] = injection.rows_per_table
        self.counts["execute"].kept += 1
        return name, target, injection

    def _conclude(self, case: _Case, conjecture: str, rows: list[RowInsert]) -> dict[str, Any] | None:
        """Conclude: the reference answer, kept only when the values it cites are among the injected rows."""
        self.counts["conclude"].received += 1
        text = case.question.text
        prompt = render(PACKAGE, "conclude", question=text, conjecture=conjecture, base=self.base, rows=rows_text(rows))
        answer = self.ask(f"conclude/{case.key}", self.model, case.system, prompt, _CONCLUDE, 600)
        reply = self._reply("conclude", case.record, answer, "no usable conclusion")
        if reply is None:
            return None
        record = case.record
        record.update(reference_answer=reply["answer"].strip(), evidence=reply["evidence"], label=reply["label"])
        if not reply["evidence"]:
            self._drop(record, "conclude", "not backed by the injected rows: the conclusion cites none of their values")
            return None
        missing = unsupported_evidence(reply["evidence"], rows)
        if missing:
            cited = ", ".join(repr(m) for m in missing[:3])
            self._drop(record, "conclude", f"not backed by the injected rows: {cited} not among their values")
            return None
        if not reply["answer"].strip():
            self._drop(record, "conclude", "the reference answer is empty")
            return None
        self.counts["conclude"].kept += 1
        return reply


def _plain_schema(path: Path) -> str:
    with open_database(path) as db:
        return describe_schema(db, sample_rows=0)


def generate_cca_answers(
    benchmark: Benchmark,
    out: Path,
    *,
    model: Model,
    base: str = "schema",
    sample_rows: int = 2,
    max_calls: int | None = None,
    limit: int | None = None,
    name: str | None = None,
    force: bool = False,
    say: Say | None = None,
) -> AnswerResult:
    """Annotate `benchmark`'s questions by Conjecture-Construct-Conclude into the benchmark directory `out`."""
    questions = benchmark.questions[:limit] if limit is not None else list(benchmark.questions)
    sources = {}
    for db_name, ref in sorted(benchmark.databases.items()):
        location = None if ref.url else Path(benchmark.database_location(db_name))
        sources[db_name] = file_sha256(location) if location and location.is_file() else ref.url
    settings = {
        "method": "cca",
        "questions_sha256": _questions_sha256(questions),
        "databases": sources,
        "model": model.spec,
        "base": base,
        "sample_rows": sample_rows,
        "prompts": PROMPTS_HASH,
    }
    work = WorkDir(out, settings, force=force)
    if work.resumed and say:
        say(f"continuing the annotation in {out}")
    pipeline = AnswerPipeline(
        benchmark, work, model=model, base=base, sample_rows=sample_rows, max_calls=max_calls, say=say
    )
    try:
        result = pipeline.run(questions)
        result.pipeline = {
            "format_version": 1,
            "method": "conjecture-construct-conclude",
            "source": benchmark.name,
            "model": model.spec,
            "base": base,
            "complete": result.stopped is None,
            **({"stopped": result.stopped} if result.stopped else {}),
            **result.pipeline,
            "usage": model.usage.snapshot().model_dump(exclude_none=True),
            "written_at": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        made = Benchmark(
            name=name or out.name,
            description=f"Reference answers by Conjecture-Construct-Conclude ({model.spec}) for {benchmark.name}.",
            knowledge=benchmark.knowledge,
            now=benchmark.now,
            source_format="dbqa-generated",
            databases=result.databases,
            questions=result.questions,
        )
        work.save(made)
        work.write_jsonl(CHECKS_FILE, result.records)
        work.write_json(PIPELINE_FILE, result.pipeline)
    finally:
        shutil.rmtree(work.root / WORK_FOLDER, ignore_errors=True)
    return result


__all__ = ["BASES", "CHECKS_FILE", "PIPELINE_FILE", "AnswerResult", "generate_cca_answers", "unsupported_evidence"]
