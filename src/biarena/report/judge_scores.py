"""Judge scores in runs, read from their declarations: each judge's headline scores and its dimensions."""

from dataclasses import dataclass
from statistics import fmean

from biarena.report.judge_tables import judge_scores
from biarena.report.run_data import RunData
from biarena.report.svg_chart import nice_maximum
from biarena.scoring.infos import ScoreInfos

DIMENSION_KEYS = ("dimensions_on_scale", "dimensions")
"""Headline sub_scores keys that may carry a judge's dimension values when it stores no score per dimension."""


@dataclass(frozen=True)
class JudgeScores:
    """One judge's score names in the runs: the scores to chart, its dimensions, and the scale they share."""

    judge: str
    """The scorer's name (`corgi`, `reference`, ...)."""
    headlines: list[str]
    """Score names reported as the judge's scores (`corgi`; or `reference.match` and `reference.score`)."""
    dimensions: list[str]
    """Dimension keys (`structure`, `data_sense`, ...) under the headline, if the judge has them."""
    maximum: float
    """Top of the judge's scale, as its values show (1, 5, 10, ...)."""


def judges_in(runs: list[RunData]) -> list[JudgeScores]:
    """Every judge that scored any of the runs, with its score names: its declared headlines (else the score named
    like it, else all) and its other scores as dimensions (else those its headline's sub-scores carry)."""
    scores = [score for run in runs for score in run.scores]
    infos = ScoreInfos.of(scores)
    judges = []
    for judge, found in judge_scores(scores).items():
        headlines = [n for n in found if infos.info(n).headline] or ([judge] if judge in found else list(found))
        dimensions = [n.removeprefix(judge + ".") for n in found if n not in headlines and n.startswith(judge + ".")]
        if not dimensions and headlines == [judge]:
            dimensions = sorted({k for run in runs for k in _sub_dimensions(run, judge)})
        values = [s.value for s in scores if s.scorer == judge]
        judges.append(JudgeScores(judge, headlines, dimensions, nice_maximum(values)))
    return judges


def _sub_dimensions(run: RunData, judge: str) -> dict[str, list[float]]:
    """Dimension values carried in the headline scores' sub_scores, per dimension."""
    found: dict[str, list[float]] = {}
    for score in run.scores:
        if score.scorer != judge or score.name != judge:
            continue
        for key in DIMENSION_KEYS:
            parts = score.sub_scores.get(key)
            if isinstance(parts, dict):
                for dimension, value in parts.items():
                    if isinstance(value, int | float) and not isinstance(value, bool):
                        found.setdefault(str(dimension), []).append(float(value))
                break
    return found


def dimension_means(run: RunData, judge: JudgeScores) -> dict[str, float | None]:
    """Mean of each dimension over the answers the judge scored on it."""
    by_name: dict[str, list[float]] = {}
    for score in run.scores:
        if score.scorer == judge.judge and score.value is not None and score.name.startswith(judge.judge + "."):
            by_name.setdefault(score.name.removeprefix(judge.judge + "."), []).append(score.value)
    if not by_name:
        by_name = _sub_dimensions(run, judge.judge)
    return {d: fmean(by_name[d]) if by_name.get(d) else None for d in judge.dimensions}


def dimension_vectors(run: RunData, judge: JudgeScores, keys: list[str]) -> dict[str, list[float]]:
    """question id -> the judge's values on `keys`, for the answers scored on every one of them."""
    table: dict[str, dict[str, float]] = {}
    for score in run.scores:
        if score.scorer == judge.judge and score.value is not None and score.name.startswith(judge.judge + "."):
            table.setdefault(score.question_id, {})[score.name.removeprefix(judge.judge + ".")] = score.value
    return {qid: [row[k] for k in keys] for qid, row in table.items() if all(k in row for k in keys)}
