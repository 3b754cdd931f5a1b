"""compare: runs summarized side by side on the questions they share, with what happened to each question."""

from collections import Counter
from dataclasses import dataclass, field

from biarena.metrics.summary import ANSWERED, SummaryRow, overall, summarize, unusable_gold
from biarena.records import Question
from biarena.report.run_data import RunData
from biarena.scoring.gold_health import GoldHealth, gold_metric, scored_gold_health
from biarena.scoring.infos import ScoreInfos


@dataclass(frozen=True)
class ComparedRun:
    """One run's scores over the compared questions."""

    run: RunData
    questions: list[Question]
    """The questions compared (the run's own, or those every compared run shares)."""
    overall: SummaryRow
    by_label: list[SummaryRow]
    by_language: list[SummaryRow]
    unscored: int
    """Answered questions without scores yet."""
    errors: list[tuple[str, int]]
    """The most common errors behind failed outcomes, with their counts."""
    gold_score: str | None = None
    """The score that compares results with the gold (execution accuracy when the run has it), if any."""
    gold: GoldHealth | None = None
    """The compared questions by what their gold gave `gold_score`: runs, fails, undetermined, missing."""

    @property
    def scored(self) -> int | None:
        """Questions `gold_score`'s overall mean counts (None without such a score)."""
        return None if self.gold_score is None else self.overall.counts.get(self.gold_score, 0)


@dataclass(frozen=True)
class Comparison:
    """Runs summarized side by side."""

    summaries: list[ComparedRun]
    names: list[str]
    """Score names present in any run, in registry order (each scorer's in its order), undeclared ones last."""
    warnings: list[str]
    """What the reader must know to compare (different question sets, different benchmarks)."""
    shared: list[str] | None
    """Ids of the questions compared when the runs' question sets differ (None when they agree)."""
    infos: ScoreInfos = field(default_factory=ScoreInfos)
    """The declarations of the runs' scores (labels, which are judges', which compare with the gold)."""


def score_names(runs: list[RunData]) -> list[str]:
    """Score names present in the runs, in registry order (each scorer's in its order), undeclared ones last."""
    scores = [s for run in runs for s in run.scores]
    return ScoreInfos.of(scores).ordered(s.name for s in scores)


def _shared_questions(runs: list[RunData]) -> tuple[list[str] | None, list[str]]:
    if len(runs) < 2:
        return None, []
    benchmarks = sorted({run.spec.benchmark_name for run in runs})
    if len(benchmarks) > 1:
        return None, [f"the runs are on different benchmarks ({', '.join(benchmarks)}): each is summarized alone"]
    sets = [{q.id for q in run.questions} for run in runs]
    if all(s == sets[0] for s in sets):
        return None, []
    common = set.intersection(*sets)
    sizes = ", ".join(f"{run.label}: {len(s)}" for run, s in zip(runs, sets, strict=True))
    if not common:
        return None, [f"the runs share no question ({sizes}): each is summarized on its own questions"]
    shared = [q.id for q in runs[0].questions if q.id in common]
    return shared, [f"the runs cover different questions ({sizes}): scores compare the {len(shared)} they share"]


def _errors(run: RunData, questions: list[Question], top: int = 3) -> list[tuple[str, int]]:
    found = Counter(
        outcome.error
        for q in questions
        if (outcome := run.outcome(q.id)).error is not None and outcome.kind != "unanswered"
    )
    return found.most_common(top)


def compare(runs: list[RunData]) -> Comparison:
    """Summarize each run overall, by label and by language, on the questions the runs share."""
    shared, warnings = _shared_questions(runs)
    names = score_names(runs)
    same_benchmark = len({run.spec.benchmark_name for run in runs}) == 1
    unusable = set().union(*(unusable_gold(run.scores) for run in runs)) if same_benchmark and runs else set()
    infos = ScoreInfos.of(s for run in runs for s in run.scores)
    summaries = []
    for run in runs:
        keep = set(shared) if shared is not None else None
        questions = [q for q in run.questions if keep is None or q.id in keep]
        table = run.score_table()
        unscored = sum(1 for q in questions if run.outcome(q.id).kind in ANSWERED and not table.get(q.id))
        own = {s.name for s in run.scores}
        gold_score = gold_metric(own, infos)
        gold = scored_gold_health(questions, run.scores, gold_score, unusable) if gold_score else None
        summaries.append(
            ComparedRun(
                run=run,
                questions=questions,
                overall=overall(questions, run.scores, names, answers=run.answers, unusable=unusable),
                by_label=summarize(questions, run.scores, names, answers=run.answers, unusable=unusable),
                by_language=summarize(
                    questions, run.scores, names, by="language", answers=run.answers, unusable=unusable
                ),
                unscored=unscored,
                errors=_errors(run, questions),
                gold_score=gold_score,
                gold=gold,
            )
        )
    return Comparison(summaries, names, warnings, shared, infos)
