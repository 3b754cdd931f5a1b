"""What the paper-based judges share: prompts read from their rubric; the database and SQL as a judge sees them."""

from collections.abc import Iterable
from typing import Any

import jinja2
import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from biarena.agents.prompting import table_text
from biarena.errors import FormatError
from biarena.judges.base import Judgement, ScorerContext, TraceEntry
from biarena.judges.rubric import load_builtin_rubric
from biarena.records import Answer, Question, Step

_ENV = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=False, autoescape=False)

RESULT_ROWS = 10
"""Rows of each SQL result a judge is shown."""
SAMPLE_ROWS = 2
"""Sample rows per table in the database description a judge is shown."""
FULL_TABLES = 8
"""A database with at most this many tables is described in full when the answer names none of them."""


def rubric_data(context: ScorerContext, builtin: str, kind: str) -> dict[str, Any]:
    """The rubric in force (the context's, else the judge's packaged one), checked to be for `kind`."""
    data = context.rubric if context.rubric is not None else load_builtin_rubric(builtin).data
    if data.get("rubric") != kind:
        raise FormatError(f"the rubric is for '{data.get('rubric')}', not the '{kind}' judge")
    return data


def prompt_texts(data: dict[str, Any], required: Iterable[str], source: str | None = None) -> dict[str, str]:
    """The rubric's `prompts` mapping, with every prompt the judge needs present."""
    where = source or f"the '{data.get('rubric')}' rubric"
    prompts = data.get("prompts")
    if not isinstance(prompts, dict):
        raise FormatError(f"{where}: needs a `prompts:` mapping")
    missing = [name for name in required if not isinstance(prompts.get(name), str) or not prompts[name].strip()]
    if missing:
        raise FormatError(f"{where}: no prompt '{missing[0]}' under `prompts:`")
    for name, text in prompts.items():
        try:
            _ENV.parse(str(text))
        except jinja2.TemplateSyntaxError as error:
            raise FormatError(f"{where}: prompt '{name}' line {error.lineno}: {error.message}") from None
    return {name: str(text) for name, text in prompts.items()}


def render(template: str, name: str, **values: object) -> str:
    """Fill one rubric prompt; a placeholder the judge does not provide is a FormatError naming the prompt."""
    try:
        return _ENV.from_string(template).render(**values).strip()
    except jinja2.TemplateError as error:
        raise FormatError(f"rubric prompt '{name}': {error.message or error}") from None


def user(content: str) -> list[dict[str, str]]:
    """A one-turn conversation."""
    return [{"role": "user", "content": content}]


def failed(reason: str, produces: Iterable[str], trace: list[TraceEntry], sub_scores: dict | None = None) -> Judgement:
    """A judgement that could not be made: every score None, the trace (with the raw replies) kept."""
    return Judgement(
        scores=dict.fromkeys(produces), sub_scores=sub_scores or {}, rationale=None, trace=trace, failed=reason
    )


def sql_tables(sql: str, dialect: str | None = None) -> set[str]:
    """Names of the tables a statement reads (empty when it does not parse)."""
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except (SqlglotError, RecursionError, ValueError):
        return set()
    if tree is None:
        return set()
    ctes = {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}
    return {t.name.lower() for t in tree.find_all(exp.Table) if t.name and t.name.lower() not in ctes}


def database_text(context: ScorerContext, question: Question, answer: Answer | None = None) -> str:
    """The database as a judge is shown it: DDL and sample rows of the tables the question and the answer's SQL
    name, then the other tables with their columns (a small database is shown in full when none is named)."""
    scoring = context.scoring
    db = scoring.databases.get(question.database)
    tables = db.tables()
    wanted = {t.lower() for t in question.tables}
    for step in answer.steps if answer else []:
        wanted |= sql_tables(step.sql, db.dialect)
    shown = [t for t in tables if t.lower() in wanted] or (tables if len(tables) <= FULL_TABLES else [])
    key = ("judge-database-text", tuple(shown))

    def make() -> str:
        parts = []
        for table in shown:
            block = [db.table_ddl(table).strip() + ";"]
            sample = db.sample_rows(table, SAMPLE_ROWS)
            if sample.rows:
                block.append(
                    f"/* {table}: {len(sample.rows)} sample rows, not the whole table\n"
                    + table_text(sample.columns, sample.rows, limit=SAMPLE_ROWS).rsplit("\n", 1)[0]
                    + "\n*/"
                )
            parts.append("\n".join(block))
        others = [t for t in tables if t not in shown]
        if others:
            columns = "\n".join(f"{t}({', '.join(db.sample_rows(t, 0).columns)})" for t in others)
            parts.append(f"{'Other tables' if shown else 'Tables'}:\n{columns}")
        return "\n\n".join(parts)

    return scoring.memo(question, key, make)


def table_columns(context: ScorerContext, question: Question) -> str:
    """Every table of the question's database with its columns, one line each (a compact schema)."""
    scoring = context.scoring

    def make() -> str:
        db = scoring.databases.get(question.database)
        return "\n".join(f"{table}({', '.join(db.sample_rows(table, 0).columns)})" for table in db.tables())

    return scoring.memo(question, ("judge-table-columns",), make)


def step_text(step: Step) -> str:
    """One step's result for a judge: its error, or its first rows with how many there were."""
    if step.error:
        return f"error: {step.error}"
    total = step.row_count if step.row_count is not None else len(step.preview)
    return table_text(step.columns, step.preview, total=total, truncated=step.truncated, limit=RESULT_ROWS)


def steps_text(steps: list[Step]) -> str:
    """The answer's SQL queries with their results, numbered."""
    parts = []
    for i, step in enumerate(steps, start=1):
        head = f"Query {i}: {step.purpose}" if step.purpose else f"Query {i}:"
        parts.append(f"{head}\n{step.sql}\nResult {i}:\n{step_text(step)}")
    return "\n\n".join(parts) if parts else "(no queries)"
