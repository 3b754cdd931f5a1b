"""Significance in a report: paired differences between runs, ANOVA across question types, judges compared."""

import math
from dataclasses import dataclass
from itertools import combinations

from biarena.errors import UsageError
from biarena.report.groups import type_of
from biarena.report.judge_scores import JudgeScores, dimension_vectors
from biarena.report.run_data import RunData
from biarena.stats.agreement import Agreement, agreement
from biarena.stats.anova import Anova, anova_by_group
from biarena.stats.bootstrap import PairedDifference, paired_bootstrap
from biarena.stats.hotelling import Hotelling, hotelling_paired

Table = dict[str, dict[str, float | None]]


@dataclass(frozen=True)
class PairedRow:
    """A run against the first one on one score, over the questions both have it for."""

    score: str
    first: str
    second: str
    result: PairedDifference


@dataclass(frozen=True)
class AnovaRow:
    """One run's score compared across question types."""

    run: str
    score: str
    result: Anova


@dataclass(frozen=True)
class AgreementRow:
    """Two judges' scores of the same answers of one run."""

    run: str
    first: str
    second: str
    result: Agreement


@dataclass(frozen=True)
class HotellingRow:
    """Two judges' dimension vectors of the same answers of one run (CORGI 4.4), or why they cannot be tested."""

    run: str
    first: str
    second: str
    dimensions: list[str]
    result: Hotelling | None
    note: str = ""


@dataclass(frozen=True)
class Significance:
    """Every test the report runs."""

    paired: list[PairedRow]
    anova: list[AnovaRow]
    agreement: list[AgreementRow]
    hotelling: list[HotellingRow]


def paired_rows(runs: list[RunData], tables: list[Table], names: list[str]) -> list[PairedRow]:
    """Each later run minus the first, per score, over the questions both runs have a value for."""
    rows = []
    if len(runs) < 2:
        return rows
    shared = [qid for qid in tables[0] if all(qid in t for t in tables[1:])]
    for name in names:
        first = [tables[0][qid].get(name) for qid in shared]
        for run, table in zip(runs[1:], tables[1:], strict=True):
            second = [table[qid].get(name) for qid in shared]
            try:
                result = paired_bootstrap(second, first)
            except UsageError:
                continue
            rows.append(PairedRow(name, runs[0].label, run.label, result))
    return rows


def anova_rows(runs: list[RunData], tables: list[Table], names: list[str]) -> list[AnovaRow]:
    """Per run and score, a one-way ANOVA across question types (when at least two types have values).

    Pass the scores CORGI compares across types (SER, judge scores); the other metrics follow SER closely."""
    rows = []
    for run, table in zip(runs, tables, strict=True):
        types = {q.id: type_of(q) for q in run.questions if q.id in table}
        for name in names:
            groups: dict[str, list[float | None]] = {}
            for qid, kind in types.items():
                groups.setdefault(kind, []).append(table[qid].get(name))
            try:
                result = anova_by_group(groups)
            except UsageError:
                continue
            if math.isfinite(result.f):
                rows.append(AnovaRow(run.label, name, result))
    return rows


def agreement_rows(runs: list[RunData], tables: list[Table], judges: list[JudgeScores]) -> list[AgreementRow]:
    """Per run, every pair of judges' headline scores compared on the answers both judged."""
    rows = []
    headlines = [name for judge in judges for name in judge.headlines[:1]]
    for run, table in zip(runs, tables, strict=True):
        for first, second in combinations(headlines, 2):
            ids = [qid for qid, row in table.items() if row.get(first) is not None and row.get(second) is not None]
            answered = {a.question_id for a in run.answers}
            ids = [qid for qid in ids if qid in answered]
            try:
                result = agreement([table[q][first] for q in ids], [table[q][second] for q in ids])
            except UsageError:
                continue
            rows.append(AgreementRow(run.label, first, second, result))
    return rows


def hotelling_rows(runs: list[RunData], judges: list[JudgeScores]) -> list[HotellingRow]:
    """Per run, each pair of judges with dimensions in common: Hotelling's T^2 on the answers both scored fully."""
    rows = []
    for first, second in combinations(judges, 2):
        keys = [d for d in first.dimensions if d in second.dimensions]
        if len(keys) < 2:
            continue
        for run in runs:
            x, y = dimension_vectors(run, first, keys), dimension_vectors(run, second, keys)
            ids = [qid for qid in x if qid in y]
            if not ids:
                continue
            try:
                result = hotelling_paired([x[q] for q in ids], [y[q] for q in ids])
                rows.append(HotellingRow(run.label, first.judge, second.judge, keys, result))
            except UsageError as error:
                rows.append(HotellingRow(run.label, first.judge, second.judge, keys, None, str(error)))
    return rows
