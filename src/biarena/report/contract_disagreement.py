"""disagreement_tables: the questions whose execution-accuracy verdict changes between the result contracts a run
was scored under (a graded contract passes only at 1)."""

import re

from biarena.metrics.contracts import DEFAULT_CONTRACT
from biarena.report.comparison import Comparison
from biarena.scoring.contract_names import CONTRACTS

Table = tuple[str, list[str], list[list[str]], set[int]]
"""(title, headers, cells, numeric column indexes)."""

_CONTRACT_SCORE = re.compile(r"^execution_accuracy(?:\[(?P<contract>[^\]]+)\])?$")


def contract_of(score_name: str) -> str | None:
    """The contract an execution-accuracy score was made under (None for any other score)."""
    found = _CONTRACT_SCORE.match(score_name)
    return None if found is None else found.group("contract") or DEFAULT_CONTRACT


def _cell(value: float | None) -> str:
    if value is None:
        return "-"
    if value in (0.0, 1.0):
        return "pass" if value else "fail"
    return f"{value:.2f}"


def disagreement_tables(comparison: Comparison) -> list[Table]:
    """Per run scored under two contracts or more: each question whose verdict differs between them."""
    several = len(comparison.summaries) > 1
    place = {name: index for index, name in enumerate(CONTRACTS)}
    tables = []
    for summary in comparison.summaries:
        asked = {q.id for q in summary.questions}
        values: dict[str, dict[str, float | None]] = {}
        for score in summary.run.scores:
            contract = contract_of(score.name)
            if contract is not None and score.question_id in asked:
                values.setdefault(score.question_id, {})[contract] = score.value
        contracts = sorted({c for found in values.values() for c in found}, key=lambda c: (place.get(c, 99), c))
        if len(contracts) < 2:
            continue
        cells = []
        for question in summary.questions:
            found = values.get(question.id, {})
            verdicts = {found[c] >= 1.0 for c in contracts if found.get(c) is not None}
            if len(verdicts) > 1:
                cells.append([question.id, *(_cell(found.get(c)) for c in contracts)])
        scored = sum(1 for found in values.values() if any(v is not None for v in found.values()))
        run = f" ({summary.run.label})" if several else ""
        title = f"contract disagreement{run}: {len(cells)} of {scored} questions change verdict between contracts"
        tables.append((title, ["question", *contracts], cells, set()))
    return tables
