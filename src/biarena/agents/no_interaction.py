"""`no_interaction`: the database's records in the prompt, no SQL; as many rows of each table as fit."""

import bisect
import itertools
import re
import threading
from dataclasses import dataclass, field
from typing import Any

from pydantic import Field
from sqlglot import exp
from sqlglot.errors import SqlglotError

from biarena.agents.llm_agent import LLMAgent, LLMAgentOptions, Tally
from biarena.agents.prompting import CELL_CHARS, render
from biarena.agents.system import AgentEnv
from biarena.db import Database, SqlProblem
from biarena.db.cells import cell_text
from biarena.llm import Model
from biarena.records import Answer, Question

CHARS_PER_TOKEN = 4
"""A rough size of a token in characters, to turn the context budget into text."""
_FINAL_ANSWER = re.compile(
    r"^[ \t]*(?:#+[ \t]*)?(?:\*\*)?(?:final[ \t]+)?answer[ \t]*(?:\*\*)?[ \t]*[:：][ \t]*(?:\*\*)?", re.I | re.M
)


@dataclass
class TableRecords:
    """One table's rows as prompt lines (column names first), with the table's row count."""

    table: str
    lines: list[str]
    total: int | None
    """Rows in the table; None when counting failed and only `more_than` is known."""
    more_than: int = 0
    ends: list[int] = field(init=False, repr=False)
    """Characters of the text up to and including each line."""

    def __post_init__(self) -> None:
        self.ends = list(itertools.accumulate(len(line) + 1 for line in self.lines))

    @property
    def rows(self) -> int:
        """Rows held (at most the fetch cap)."""
        return len(self.lines) - 1

    def title(self, shown: int) -> str:
        """The heading of the table with `shown` rows: "all 5 rows of table T", "first 20 of 400 rows of table T"."""
        if self.total == 0:
            return f"table {self.table} has no rows"
        if self.total is not None and shown >= self.total:
            return (
                f"all {self.total} rows of table {self.table}" if self.total > 1 else f"the 1 row of table {self.table}"
            )
        total = str(self.total) if self.total is not None else f"more than {self.more_than}"
        return f"first {shown} of {total} rows of table {self.table}"

    def size(self, shown: int) -> int:
        """Characters of the table's column names and its first `shown` rows."""
        return self.ends[shown]

    def rows_within(self, chars: int) -> int:
        """The most rows whose text (column names included) fits in `chars` characters."""
        return max(0, min(self.rows, bisect.bisect_right(self.ends, chars) - 1))

    def text(self, shown: int) -> str:
        """The table's heading and its first `shown` rows."""
        return f"{self.title(shown)}:\n" + "\n".join(self.lines[: shown + 1])


class NoInteractionOptions(LLMAgentOptions):
    """Options of the no_interaction agent."""

    context_tokens: int = Field(6000, ge=1)
    """Context window the prompt, the records and the reply must fit in."""


class NoInteraction(LLMAgent):
    """Answers from the data itself with a chain of thought, as many records as fit the context window."""

    name = "no_interaction"
    Options = NoInteractionOptions
    options: NoInteractionOptions
    templates = ("no_interaction",)
    shows_schema = False

    def __init__(self, model: Model, options: NoInteractionOptions | None = None, **values: Any) -> None:
        super().__init__(model, options, **values)
        self.context_tokens = self.options.context_tokens
        self._tables: dict[tuple[int, str], list[TableRecords]] = {}
        self._tables_lock = threading.Lock()

    @staticmethod
    def _count(db: Database, table: str) -> int | None:
        try:
            sql = exp.select(exp.Count(this=exp.Star())).from_(exp.table_(table, quoted=True)).sql(dialect=db.dialect)
            return int(db.execute(sql).rows[0][0])
        except (SqlProblem, SqlglotError, IndexError, TypeError, ValueError):
            return None

    def tables(self, env: AgentEnv, question: Question) -> list[TableRecords]:
        """Every table's rows as prompt lines, as many as the whole budget could hold (read once per database)."""
        key = (id(env), question.database)
        with self._tables_lock:
            if key not in self._tables:
                db = env.databases.get(question.database)
                cap = max(1, self.context_tokens * CHARS_PER_TOKEN // 8)  # a row line takes at least a few chars
                tables = []
                for table in db.tables():
                    sample = db.sample_rows(table, cap + 1)
                    rows = sample.rows[:cap]
                    lines = [" | ".join(sample.columns)]
                    lines += [" | ".join(cell_text(v, width=CELL_CHARS) for v in row) for row in rows]
                    total = len(rows) if len(sample.rows) <= cap else self._count(db, table)
                    tables.append(TableRecords(table, lines, total, more_than=cap))
                self._tables[key] = tables
            return self._tables[key]

    @staticmethod
    def fit(tables: list[TableRecords], budget: int) -> dict[str, int] | None:
        """Rows to show of each table within `budget` characters: whole tables when they fit, else each cut to a
        fair share (smallest first, so a small table leaves its unused share to larger ones); None when a table
        with rows could not show a single one."""
        shown: dict[str, int] = {}
        left = budget
        ordered = sorted(tables, key=lambda t: t.size(t.rows))
        for index, records in enumerate(ordered):
            heading = len(records.title(records.rows)) + len(str(records.more_than)) + 16
            share = left // (len(ordered) - index) - heading
            rows = records.rows_within(share)
            if rows == 0 and records.rows > 0:
                return None
            shown[records.table] = rows
            left -= records.size(rows) + heading
        return shown

    def solve(self, question: Question, env: AgentEnv, tally: Tally, draft: Answer) -> None:
        """Think through the records step by step, then answer; or refuse when the records cannot fit."""
        context = self.context(env, question)
        values = {"question": question.text, "now": context["now"], "knowledge": context["knowledge"]}
        overhead = len(render("no_interaction", records="", cut=True, **values))
        budget = (self.context_tokens - self.max_tokens) * CHARS_PER_TOKEN - overhead
        tables = self.tables(env, question)
        shown = self.fit(tables, budget) if budget > 0 else None
        if shown is None:
            draft.error = (
                f"the database does not fit the context ({self.context_tokens} tokens), not even one row of "
                "each table; use an agent that queries it"
            )
            return
        cut = [t.title(shown[t.table]) for t in tables if t.total != 0 and shown[t.table] < (t.total or t.rows + 1)]
        records = "\n\n".join(t.text(shown[t.table]) for t in tables)
        self.record_shown(draft, records)
        draft.notes += [f"records cut to fit the context: {title}" for title in cut]
        prompt = render("no_interaction", records=records, cut=bool(cut), **values)
        reply = self.chat(tally, [{"role": "user", "content": prompt}], stage="answer").text.strip()
        marks = list(_FINAL_ANSWER.finditer(reply))
        if marks and reply[marks[-1].end() :].strip():
            draft.plan = reply[: marks[-1].start()].strip() or None
            draft.text = reply[marks[-1].end() :].strip()
        else:
            draft.text = reply or None
