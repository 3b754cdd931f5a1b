"""Judge scores of runs by question type: one table per judge, its headline score then its dimensions."""

import math
from dataclasses import dataclass

from biarena.metrics.summary import SummaryRow, overall, summarize
from biarena.records import Question, Score
from biarena.report.comparison import ComparedRun, Comparison
from biarena.scoring.infos import ScoreInfos
from biarena.scoring.score_info import ScoreInfo

TYPE_PREFIXES = ("corgi:type", "dbqa:", "bibench:", "bis:")
"""Labels that name a question's type, in the order they are looked for."""


def question_type_label(question: Question) -> str:
    """The label naming the question's type (`corgi:type4`, `dbqa:conclusive`, ...), else its first label."""
    for prefix in TYPE_PREFIXES:
        for label in question.labels:
            if label.startswith(prefix):
                return label
    return question.labels[0] if question.labels else "(unlabelled)"


def judge_scores(scores: list[Score]) -> dict[str, list[str]]:
    """Judge name -> its score names in the runs, in its declared order (undeclared ones last)."""
    infos = ScoreInfos.of(scores)
    names: dict[str, set[str]] = {}
    for score in scores:
        if infos.is_judge(score.name):
            names.setdefault(score.scorer, set()).add(score.name)
    return {judge: infos.ordered(present) for judge, present in sorted(names.items())}


@dataclass(frozen=True)
class JudgeRow:
    """A judge's means over one group of questions of one run."""

    run: ComparedRun
    group: str
    row: SummaryRow
    failed: int
    """Judgements of the group that failed (no value; the trace says why)."""


def judge_rows(comparison: Comparison, judge: str, names: list[str]) -> list[JudgeRow]:
    """The judge's rows: per run, one per question type and one for all the questions it judges."""
    rows = []
    for summary in comparison.summaries:
        run = summary.run
        questions = [q for q in summary.questions if run.applies(judge, q.id)]
        if not questions:
            continue
        mine = [s for s in run.scores if s.scorer == judge or s.name in names]
        failed_ids = {s.question_id for s in mine if s.sub_scores.get("failed")}
        typed = [q.model_copy(update={"labels": [question_type_label(q)]}) for q in questions]
        for row in summarize(typed, mine, names, answers=run.answers):
            ids = {q.id for q in typed if q.labels[0] == row.group}
            rows.append(JudgeRow(summary, row.group, row, len(ids & failed_ids)))
        whole = overall(typed, mine, names, answers=run.answers)
        rows.append(JudgeRow(summary, "all", whole, len({q.id for q in typed} & failed_ids)))
    return rows


LEGEND = (
    "judges: 'counted' is the questions a judge judges that count in its means (a question without an answer counts "
    "0, one not judged yet is left out); 'failed': judgements without a value (see why with show RUN --trace ID)."
)


def _scale(info: ScoreInfo) -> str:
    low, high = info.range
    return f"{low:g}-{high:g}" if math.isfinite(low) and math.isfinite(high) else "a count"


def judge_legend(comparison: Comparison) -> str:
    """The judge tables' legend: how they count, then each judge's headline scores with their scale, read from their
    declarations."""
    infos = comparison.infos
    scores = [s for summary in comparison.summaries for s in summary.run.scores]
    parts = []
    for judge, names in judge_scores(scores).items():
        heads = [n for n in names if infos.info(n).headline] or names[:1]
        said = ", ".join(f"{judge_header(infos, judge, n)} {_scale(infos.info(n))}" for n in heads)
        parts.append(f"{judge}: {said}")
    return LEGEND + (" Scales: " + "; ".join(parts) + "." if parts else "")


def judge_header(infos: ScoreInfos, judge: str, name: str) -> str:
    """A judge score's column header: `score` for the score named like the judge, else its label."""
    return "score" if name == judge else infos.label(name)


def judge_tables(comparison: Comparison) -> list[tuple[str, list[str], list[list[str]], set[int]]]:
    """(title, headers, cells, numeric column indexes) of each judge's table by question type."""
    tables = []
    scores = [s for summary in comparison.summaries for s in summary.run.scores]
    several = len(comparison.summaries) > 1
    for judge, names in judge_scores(scores).items():
        headers = ["question type", *(["run"] if several else []), "counted", "failed"]
        headers += [judge_header(comparison.infos, judge, n) for n in names]
        cells = []
        for item in judge_rows(comparison, judge, names):
            judged = max((item.row.counts.get(n, 0) for n in names), default=0)
            line = [item.group, *([item.run.run.label] if several else []), f"{judged}/{item.row.count}"]
            line.append(str(item.failed))
            line += ["-" if (v := item.row.means.get(n)) is None else f"{v:.3f}" for n in names]
            cells.append(line)
        tables.append(
            (f"judge {judge} by question type", headers, cells, set(range(2 if several else 1, len(headers))))
        )
    return tables


def judge_json(comparison: Comparison) -> dict[str, list[dict]]:
    """Each judge's rows as JSON-ready data with full-precision means."""
    scores = [s for summary in comparison.summaries for s in summary.run.scores]
    data: dict[str, list[dict]] = {}
    for judge, names in judge_scores(scores).items():
        data[judge] = [
            {
                "run": item.run.run.label,
                "question_type": item.group,
                "questions": item.row.count,
                "failed": item.failed,
                "scores": {n: item.row.means.get(n) for n in names},
                "counted": {n: item.row.counts.get(n, 0) for n in names},
            }
            for item in judge_rows(comparison, judge, names)
        ]
    return data
