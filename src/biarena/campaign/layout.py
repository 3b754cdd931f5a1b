"""campaign_runs: what a campaign folder holds, by name, and its run files for the commands that read runs."""

from pathlib import Path

from biarena.errors import FormatError

PLAN_FILE = "campaign.json"
RUNS = "runs"
DONE = "done"
RESULTS = "results.csv"


def is_campaign(path: Path) -> bool:
    """Whether `path` is a campaign folder."""
    return path.is_dir() and (path / PLAN_FILE).is_file()


def campaign_runs(paths: list[Path]) -> list[Path]:
    """Run files, each campaign folder among `paths` standing for all its runs."""
    found: list[Path] = []
    for path in paths:
        if is_campaign(path):
            runs = sorted((path / RUNS).glob("*.sqlite"))
            if not runs:
                raise FormatError(f"{path}: the campaign has no runs yet")
            found.extend(runs)
        else:
            found.append(path)
    return found
