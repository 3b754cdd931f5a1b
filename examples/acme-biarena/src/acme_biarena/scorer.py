"""The `sql_words` scorer: how many words the answer's final SQL holds."""

import math

from pydantic import Field

from biarena.metrics import MetricScorer, ScoringContext
from biarena.options import Options
from biarena.records import Answer, Question, Score
from biarena.scoring import ScoreInfo, make_score


class SqlWordsOptions(Options):
    """Options of the sql_words scorer."""

    per: int = Field(1, ge=1)
    """Words per unit of the score."""


class SqlWordsScorer(MetricScorer):
    """Words in the answer's final SQL (a measure of how much an agent writes)."""

    name = "sql_words"
    version = "1"
    infos = (
        ScoreInfo("sql_words", "SQL words", "words in the final SQL", range=(0.0, math.inf), higher_is_better=None),
    )
    Options = SqlWordsOptions
    options: SqlWordsOptions

    def __call__(self, question: Question, answer: Answer, context: ScoringContext) -> list[Score]:
        """Count the words."""
        words = len((answer.final_sql or "").split())
        return [make_score(self, question, "sql_words", words / self.options.per, rationale=f"{words} words")]
