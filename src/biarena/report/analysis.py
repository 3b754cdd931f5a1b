"""analyse: everything a report shows beyond the summary: intervals by group, judges, arena votes, significance."""

from dataclasses import dataclass, field
from pathlib import Path

from biarena.metrics.summary import unusable_gold
from biarena.report.comparison import Comparison, compare
from biarena.report.groups import groupings
from biarena.report.intervals import GroupIntervals, counted_table, group_intervals
from biarena.report.judge_agreement import JudgeAgreement, judge_agreements
from biarena.report.judge_check import CheckFigure
from biarena.report.judge_scores import JudgeScores, dimension_means, judges_in
from biarena.report.leaderboard import arena_leaderboard
from biarena.report.run_data import RunData
from biarena.report.significance import (
    Significance,
    agreement_rows,
    anova_rows,
    hotelling_rows,
    paired_rows,
)
from biarena.votes.leaderboard import Leaderboard
from biarena.votes.vote import Vote
from biarena.votes.vote_file import VoteFile


@dataclass(frozen=True)
class Section:
    """One table with intervals: a grouping of the questions, each run's rows."""

    key: str
    """`category`, `type`, `language` or `overall`."""
    title: str
    runs: list[tuple[str, list[GroupIntervals]]]


@dataclass
class Analysis:
    """A report's figures: sections with intervals, judges, arena votes and tests."""

    comparison: Comparison
    names: list[str]
    """Score names with intervals: the metrics' headline scores present, then each judge's headline scores."""
    sections: list[Section]
    judges: list[JudgeScores]
    dimensions: dict[str, dict[str, dict[str, float | None]]]
    """judge -> run label -> dimension -> mean."""
    significance: Significance
    arena: Leaderboard | None = None
    judge_check: dict[str, list[CheckFigure]] = field(default_factory=dict)
    judge_votes: list[JudgeAgreement] = field(default_factory=list)
    """Pairwise judges' verdicts: their ranking and their agreement with the arena's human votes."""

    def section(self, key: str) -> Section | None:
        """The section grouped by `key`, if the report has it."""
        return next((s for s in self.sections if s.key == key), None)


def analyse(
    runs: list[RunData],
    *,
    votes: VoteFile | None = None,
    judge_check: dict[str, list[CheckFigure]] | None = None,
    judge_votes: dict[Path, list[Vote]] | None = None,
) -> Analysis:
    """Compute the report's figures from the runs, the arena's votes, the judge check figures and pairwise judges'
    verdicts when given."""
    comparison = compare(runs)
    judges = judges_in(runs)
    present = set(comparison.names)
    infos = comparison.infos
    names = infos.headlines(present, judges=False) + [h for j in judges for h in j.headlines if h in present]
    same_benchmark = len({run.spec.benchmark_name for run in runs}) == 1
    unusable = set().union(*(unusable_gold(run.scores) for run in runs)) if same_benchmark and runs else set()
    tables = [counted_table(s.run, s.questions, unusable) for s in comparison.summaries]
    questions = [q for s in comparison.summaries for q in s.questions]
    sections = []
    for key, title, group in groupings(questions):
        rows = [
            (s.run.label, group_intervals(s.questions, table, names, group))
            for s, table in zip(comparison.summaries, tables, strict=True)
        ]
        sections.append(Section(key, title, rows))
    overall = [
        (s.run.label, group_intervals(s.questions, table, names, lambda _q: "all"))
        for s, table in zip(comparison.summaries, tables, strict=True)
    ]
    sections.append(Section("overall", "Overall", overall))
    dimensions = {j.judge: {run.label: dimension_means(run, j) for run in runs} for j in judges if j.dimensions}
    significance = Significance(
        paired=paired_rows(runs, tables, names),
        # across question types: the scores that need no gold (CORGI compares SER and the judges' scores)
        anova=anova_rows(runs, tables, [n for n in names if not infos.info(n).needs_gold]),
        agreement=agreement_rows(runs, tables, judges),
        hotelling=hotelling_rows(runs, judges),
    )
    board = arena_leaderboard(votes, runs) if votes is not None else None
    judged = judge_agreements(judge_votes, runs, votes) if judge_votes else []
    return Analysis(
        comparison, names, sections, judges, dimensions, significance, board, dict(judge_check or {}), judged
    )
