"""`interaction`: DB QA's measures of the interaction process (its Table 2), deterministic, no model."""

import math
import re

from biarena.judges.base import Judgement, JudgeScorer, ScorerContext
from biarena.records import Answer, Question
from biarena.scoring.score_info import ScoreInfo
from biarena.scoring.valid_sql import valid_sql

_WORD = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]|[^\W_]+(?:['’.-][^\W_]+)*")
"""A word: a run of letters or digits (inner apostrophes, dots and hyphens kept), or one CJK character."""


def word_count(text: str | None) -> int:
    """Words in a text; Chinese and Japanese count one per character, as their words are not spaced."""
    return len(_WORD.findall(text or ""))


class InteractionJudge(JudgeScorer):
    """Plan length, SQL statements written, valid SQL (ran and returned rows) and answer length of each answer."""

    name = "interaction"
    version = "1"
    infos = tuple(
        ScoreInfo(
            f"interaction.{key}",
            label,
            what,
            range=(0.0, math.inf),
            higher_is_better=None,
            headline=True,
            kind="judge",
        )
        for key, label, what in (
            ("plan_length", "plan words", "words in the answer's plan"),
            ("sql_written", "SQL written", "SQL statements the system wrote"),
            ("valid_sql", "valid SQL", "SQL statements that ran and returned rows"),
            ("answer_length", "answer words", "words in the answer's text"),
        )
    )
    needs_model = False
    default_rubric = None

    def __init__(self, **options: object) -> None:
        self.options = options

    def applies(self, question: Question) -> bool:
        """Every answer has an interaction process to measure."""
        return True

    def judge(self, question: Question, answer: Answer, context: ScorerContext) -> Judgement:
        """Count, from the answer as recorded."""
        steps = answer.steps
        written = len(steps) if steps else int(bool(answer.final_sql))
        valid = valid_sql(answer)
        failed = sum(1 for s in steps if not s.ok)
        empty = sum(1 for s in steps if s.ok and not s.row_count)
        plan, text = word_count(answer.plan), word_count(answer.text)
        return Judgement(
            scores={
                "interaction.plan_length": float(plan),
                "interaction.sql_written": float(written),
                "interaction.valid_sql": float(valid),
                "interaction.answer_length": float(text),
            },
            sub_scores={"failed_sql": failed, "empty_results": empty, "unit": "words"},
            rationale=f"plan {plan} words, {written} SQL written, {valid} ran with rows, answer {text} words",
        )
