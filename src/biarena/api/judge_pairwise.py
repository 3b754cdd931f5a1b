"""judge_pairwise: runs' answers compared two by two by a judge model and ranked, as `biarena judge pairwise`."""

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from biarena.api.messages import print_messages

if TYPE_CHECKING:
    from biarena.report.execute_pairwise import PairwiseResult


def judge_pairwise(
    runs: Sequence[str | Path],
    *,
    judge_model: str | None = None,
    out: str | Path | None = None,
    **settings: Any,
) -> "PairwiseResult":
    """Compare the answers of two or more run files two by two with `judge_model` (default: the local model), each
    pair in both orders, and return the verdicts as votes with their Bradley-Terry ranking (`PairwiseResult`:
    `votes`, `leaderboard`, `position_bias`, `failures`, `agreement`); with `out`, the votes are also written there
    (JSONL, the arena's export format).

    `settings` are the other fields of `biarena.report.pairwise_settings.PairwiseSettings`: `questions` (the first N
    shared questions), `seed`, `judge_temperature`, `bootstrap`, `arena` (an arena database: agreement with its
    human votes), `no_cache`. A name it does not take is a UsageError that suggests the closest one."""
    from biarena.report.execute_pairwise import execute_pairwise, write_votes
    from biarena.report.pairwise_settings import PairwiseSettings

    values = {"runs": [Path(run) for run in runs], "judge_model": judge_model, **settings}
    values["out"] = Path(out) if out is not None else None
    made = PairwiseSettings.of("judge_pairwise()", values)
    result = execute_pairwise(made, print_messages)
    write_votes(result, made, print_messages)
    return result
