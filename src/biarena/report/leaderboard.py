"""arena_board: the Bradley-Terry leaderboard of arena votes, each system matched to a run where one fits."""

from dataclasses import dataclass
from pathlib import Path

from biarena.errors import NotFoundError, UsageError
from biarena.report.run_data import RunData
from biarena.stats.bradley_terry import BradleyTerry, fit_bradley_terry


@dataclass(frozen=True)
class ArenaBoard:
    """Arena votes fitted with Bradley-Terry, and the run behind each system when the report has it."""

    fit: BradleyTerry
    runs: dict[str, RunData | None]
    """System -> the run whose label, system or file name it is (None when no compared run matches)."""
    votes: int


def load_arena(path: Path) -> list[tuple[str, str, str]]:
    """The votes of an arena database: (system_a, system_b, winner) with the systems' names revealed."""
    if not path.is_file():
        raise NotFoundError(f"{path}: no such arena database")
    try:
        from biarena.arena.outcomes import load_outcomes
    except ImportError as error:
        raise UsageError(f"--arena needs biarena's arena package, which cannot be loaded here ({error})") from None
    return load_outcomes(path)


def _names(run: RunData) -> list[str]:
    spec = run.spec
    names = [run.label, spec.label or "", spec.system, run.path.stem, run.path.name]
    if spec.model:
        names += [f"{spec.system} ({spec.model})", f"{spec.system}/{spec.model}", spec.model]
    return [n for n in names if n]


def arena_board(outcomes: list[tuple[str, str, str]], runs: list[RunData], *, seed: int = 0) -> ArenaBoard:
    """Fit the votes (1,000 bootstrap resamples) and match each system to a run by label, system, model or file."""
    fit = fit_bradley_terry(outcomes, bootstrap=1000, seed=seed)
    matched: dict[str, RunData | None] = {}
    for system in fit.systems:
        matched[system] = next((run for run in runs if system in _names(run)), None)
    return ArenaBoard(fit, matched, len(outcomes))
