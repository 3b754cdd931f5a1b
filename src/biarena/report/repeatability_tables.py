"""repeatability_tables, repeatability_json: how the tries of runs that asked each question several times
(`run --repeats K`) agree, and their pass@k and pass^k, for `show` and the report."""

from typing import Any

from biarena.metrics.repeatability import Repeatability
from biarena.report.comparison import Comparison
from biarena.report.contract_disagreement import Table
from biarena.stats.bootstrap import Interval


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _interval(found: Interval) -> str:
    return "-" if found.low is None or found.high is None else f"[{found.low:.3f}, {found.high:.3f}]"


def agreement_text(found: Repeatability) -> str:
    """One sentence on how the tries agree, e.g. "the 4 tries agree on 2 of 3 questions (0.667 [0.000, 1.000])"."""
    known = [q for q in found.questions if q.agree is not None]
    if not known:
        return f"{found.repeats} tries a question; whether they agree is not known yet (score the run)"
    agreeing = sum(bool(q.agree) for q in known)
    if agreeing == len(known):
        return f"the {found.repeats} tries agree on every question ({len(known)} of {len(known)})"
    rate = found.agreement
    shown = f" ({_num(rate.estimate)} {_interval(rate)})" if rate is not None else ""
    return f"the {found.repeats} tries agree on {agreeing} of {len(known)} questions{shown}"


def repeatability_tables(comparison: Comparison) -> list[Table]:
    """Per run of several tries: pass@k and pass^k of execution accuracy with 95% intervals, and the questions whose
    tries disagree."""
    several = len(comparison.summaries) > 1
    tables: list[Table] = []
    for summary in comparison.summaries:
        found = summary.run.repeatability
        if found is None:
            continue
        of = f" of {summary.run.label}" if several else ""
        cells = [
            [
                str(p.k),
                _num(p.at_least_one.estimate),
                _interval(p.at_least_one),
                _num(p.all_of.estimate),
                _interval(p.all_of),
            ]
            for p in found.passes
        ]
        title = f"Repeatability{of}: {agreement_text(found)} (the tables above are of try 0)"
        if not found.passes:
            title += "; pass@k once the run is scored"
        tables.append((title, ["k", "pass@k", "95% interval", "pass^k", "95% interval"], cells, {1, 3}))
        differing = [q for q in found.questions if q.agree is False]
        if differing:
            rows = [
                [q.question_id, str(q.distinct), "-" if q.correct is None else f"{q.correct} of {q.tries}"]
                for q in differing
            ]
            tables.append((f"Questions whose tries disagree{of}", ["question", "results", "correct"], rows, set()))
    return tables


def repeatability_json(comparison: Comparison) -> dict[str, Any]:
    """Run label -> its repeatability as plain data (only runs of several tries)."""
    data = {}
    for summary in comparison.summaries:
        found = summary.run.repeatability
        if found is None:
            continue
        data[summary.run.label] = {
            "repeats": found.repeats,
            "agreement": None if found.agreement is None else _plain(found.agreement),
            "all_agree": found.all_agree,
            "pass": [
                {"k": p.k, "pass_at_k": _plain(p.at_least_one), "pass_all_k": _plain(p.all_of)} for p in found.passes
            ],
            "questions": [
                {
                    "question_id": q.question_id,
                    "tries": q.tries,
                    "correct": q.correct,
                    "agree": q.agree,
                    "results": q.distinct,
                }
                for q in found.questions
            ],
        }
    return data


def _plain(found: Interval) -> dict[str, Any]:
    return {"estimate": found.estimate, "low": found.low, "high": found.high, "n": found.n}
