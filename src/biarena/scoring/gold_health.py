"""Gold health: how many questions have a gold that runs, fails, or leaves its answer undetermined; counted when a
benchmark is imported (by running the gold) and read back from a run's scores (what the gold metrics could count)."""

from collections.abc import Callable, Collection
from dataclasses import dataclass, field

from biarena.db import DatabasePool, SqlProblem, SqlTimeout
from biarena.records import Benchmark, Question, Score
from biarena.scoring.infos import ScoreInfos


@dataclass(frozen=True)
class GoldHealth:
    """The questions of a benchmark or run by what their gold gives."""

    questions: int
    """Questions asked."""
    without_gold: int = 0
    """Questions with no gold query or result."""
    failing: list[tuple[str, str]] = field(default_factory=list)
    """(question id, why) of the questions whose every gold query fails to run."""
    undetermined: list[tuple[str, str]] = field(default_factory=list)
    """(question id, why) of the questions whose gold's answer is not determined (it did not finish in time, or the
    data leave it open)."""

    @property
    def usable(self) -> int:
        """Questions whose gold runs: those a gold metric can score."""
        return self.questions - self.without_gold - len(self.failing) - len(self.undetermined)

    @property
    def healthy(self) -> bool:
        """True when every question with gold has a gold that runs."""
        return not (self.failing or self.undetermined)

    def problems(self) -> str:
        """`440 gold fail, 3 undetermined, 2 without gold` (the parts that are not zero)."""
        parts = [f"{len(self.failing)} gold fail"] if self.failing else []
        parts += [f"{len(self.undetermined)} undetermined"] if self.undetermined else []
        parts += [f"{self.without_gold} without gold"] if self.without_gold else []
        return ", ".join(parts)


def check_gold(benchmark: Benchmark, pool: DatabasePool, on_question: Callable[[], None] | None = None) -> GoldHealth:
    """Run each question's gold queries until one runs: a question whose every one fails counts as failing, one
    that only times out as undetermined. A gold result (a table) counts as running."""
    failing: list[tuple[str, str]] = []
    undetermined: list[tuple[str, str]] = []
    without = 0
    for question in benchmark.questions:
        if on_question is not None:
            on_question()
        if not question.has_gold:
            without += 1
            continue
        if question.gold_results:
            continue
        problems: list[SqlProblem] = []
        db = pool.get(question.database)
        dialect = pool.source_dialect(question.database)
        for sql in question.gold_sql:
            try:
                db.execute(sql, dialect=dialect, now=benchmark.anchor_for(question))
            except SqlProblem as problem:
                problems.append(problem)
                continue
            break
        else:
            first = str(problems[0]).splitlines()[0] if str(problems[0]) else problems[0].kind
            if all(isinstance(p, SqlTimeout) for p in problems):
                undetermined.append((question.id, f"did not finish: {first}"))
            else:
                failing.append((question.id, first))
    return GoldHealth(len(benchmark.questions), without, failing, undetermined)


def scored_gold_health(
    questions: list[Question], scores: list[Score], name: str, unusable: Collection[tuple[str, str]] = ()
) -> GoldHealth:
    """Gold health as the gold metric `name` recorded it: a question with gold scored None (here or, in
    `unusable`, by another run of the same questions) has a gold that fails, or is undetermined when the scorer
    says so; an answer that does not parse is the answer's matter, not the gold's."""
    stored = {s.question_id: s for s in scores if s.name == name}
    known = set(unusable)
    failing: list[tuple[str, str]] = []
    undetermined: list[tuple[str, str]] = []
    without = 0
    for question in questions:
        if not question.has_gold:
            without += 1
            continue
        score = stored.get(question.id)
        if score is not None and score.value is None and not score.sub_scores.get("unparsable"):
            why = score.rationale or "the gold cannot be compared"
            (undetermined if score.sub_scores.get("undetermined") else failing).append((question.id, why))
        elif (score is None or score.value is None) and (question.id, name) in known:
            failing.append((question.id, "the gold cannot be compared (another run's score)"))
    return GoldHealth(len(questions), without, failing, undetermined)


def gold_metric(names: Collection[str], infos: ScoreInfos) -> str | None:
    """The score whose count says how many questions a run is scored on against the gold: execution accuracy when
    the run has it, else its first headline metric that compares with the gold."""
    if "execution_accuracy" in names:
        return "execution_accuracy"
    found = [n for n in infos.ordered(names) if not infos.is_judge(n) and infos.info(n).headline]
    return next((n for n in found if infos.info(n).needs_gold), None)
