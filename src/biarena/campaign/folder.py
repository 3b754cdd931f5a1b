"""CampaignFolder: a campaign on disk: its units (campaign.json), one run file per cell (runs/), a marker per unit
done (done/), and its results table (results.csv), which a serial run, shards merged and Ray all write the same."""

import csv
import io
import json
from pathlib import Path

from biarena.campaign.layout import DONE, PLAN_FILE, RESULTS, RUNS
from biarena.campaign.units import WorkUnit
from biarena.errors import FormatError, NotFoundError
from biarena.files import write_atomically

FORMAT = 1
RESULT_COLUMNS = [
    "benchmark",
    "system",
    "seed",
    "scorer",
    "question_id",
    "status",
    "final_sql",
    "score",
    "value",
    "unit",
]


class CampaignFolder:
    """A campaign folder. Its units are the union of every plan run into it; the units, the markers and the results
    table hold no time, no absolute path and no order of completion, so how the work was shared does not show."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def open(cls, path: Path) -> "CampaignFolder":
        """An existing campaign folder (NotFoundError or FormatError otherwise)."""
        folder = cls(path)
        if not path.is_dir():
            raise NotFoundError(f"campaign folder not found: {path}")
        if not (path / PLAN_FILE).is_file():
            raise FormatError(f"{path}: not a campaign folder (no {PLAN_FILE})")
        folder.units()
        return folder

    @property
    def runs(self) -> Path:
        """The folder of run files."""
        return self.path / RUNS

    def run_files(self) -> list[Path]:
        """The campaign's run files, by name."""
        return sorted(self.runs.glob("*.sqlite")) if self.runs.is_dir() else []

    def units(self) -> list[WorkUnit]:
        """The campaign's units, by id."""
        file = self.path / PLAN_FILE
        if not file.is_file():
            return []
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
            if int(data["format"]) > FORMAT:
                raise FormatError(f"{file}: made by a newer biarena (campaign format {data['format']})")
            return [WorkUnit.model_validate(unit) for unit in data["units"]]
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise FormatError(f"{file}: not a campaign file ({' '.join(str(error).split())[:200]})") from None

    def add_units(self, units: list[WorkUnit]) -> None:
        """Record units beside those already in the campaign (a unit already there is kept once)."""
        merged = {unit.id: unit for unit in self.units()}
        merged.update({unit.id: unit for unit in units})
        body = {"format": FORMAT, "units": [merged[uid].model_dump(mode="json") for uid in sorted(merged)]}
        text = json.dumps(body, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
        self.path.mkdir(parents=True, exist_ok=True)
        write_atomically(self.path / PLAN_FILE, lambda temp: temp.write_text(text, encoding="utf-8"))

    def done(self) -> set[str]:
        """The ids of the units done."""
        folder = self.path / DONE
        return {p.name for p in folder.iterdir() if len(p.name) == 64} if folder.is_dir() else set()

    def mark_done(self, unit_ids: list[str]) -> None:
        """Mark units done (after their results are committed to their run file)."""
        folder = self.path / DONE
        folder.mkdir(parents=True, exist_ok=True)
        for uid in unit_ids:
            marker = folder / uid
            if not marker.exists():
                marker.touch()

    def write_results(self) -> Path:
        """Write results.csv: one row per unit done, answer and score, in a canonical order."""
        from biarena.runner import RunStore

        done = self.done()
        units = [unit for unit in self.units() if unit.id in done]
        by_run: dict[str, list[WorkUnit]] = {}
        for unit in units:
            by_run.setdefault(unit.run, []).append(unit)
        rows: list[list[str]] = []
        for run, members in by_run.items():
            path = self.runs / run
            if not path.is_file():
                continue
            with RunStore(path) as store:
                answers = store.answers()
                records = store.results()
            for unit in members:
                rows.extend(_rows(unit, answers, records))
        rows.sort()
        text = io.StringIO()
        writer = csv.writer(text, lineterminator="\n")
        writer.writerow(RESULT_COLUMNS)
        writer.writerows(rows)
        target = self.path / RESULTS
        write_atomically(target, lambda temp: temp.write_text(text.getvalue(), encoding="utf-8"))
        return target


def _rows(unit: WorkUnit, answers: list, records: list) -> list[list[str]]:
    head = [unit.benchmark, unit.system, str(unit.seed)]
    scorer = unit.scorer
    found = {}
    if scorer is not None:
        found = {r.question_id: r for r in records if r.scorer == scorer.name and r.scorer_version == scorer.version}
    rows = []
    for answer in answers:
        base = [*head, scorer.name if scorer else "", answer.question_id, answer.status, answer.final_sql or ""]
        record = found.get(answer.question_id)
        if scorer is None or record is None:
            rows.append([*base, "", "", unit.id])
        elif not record.applies:
            rows.append([*base, "", "not applicable", unit.id])
        elif record.failed:
            rows.append([*base, "", f"failed: {record.failed.splitlines()[0] if record.failed else ''}", unit.id])
        else:
            for score in sorted(record.scores, key=lambda s: s.name):
                value = "" if score.value is None else repr(float(score.value))
                rows.append([*base, score.name, value, unit.id])
    return rows
