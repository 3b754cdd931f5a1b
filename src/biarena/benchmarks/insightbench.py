"""Importer for InsightBench (ServiceNow): business datasets ("flags"), each a CSV table with a goal, a role and
ground-truth insights."""

import json
import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from biarena.benchmarks.anchor import anchor_benchmark
from biarena.benchmarks.csv_tables import Column, Engine, read_csv_table, write_tables
from biarena.benchmarks.import_options import ImportOptions
from biarena.benchmarks.json_file import read_json
from biarena.benchmarks.paths import confined, plain_name, regular_file
from biarena.benchmarks.shown import shown
from biarena.db.dialect import dialect_of
from biarena.errors import FormatError, NotFoundError
from biarena.options import takes
from biarena.records import Benchmark, DatabaseRef, Question

INSIGHT_TYPES: dict[str, str] = {
    "descriptive": "descriptive",
    "frequency": "descriptive",
    "distribution": "descriptive",
    "categorical": "descriptive",
    "diagnostic": "diagnostic",
    "analytical": "diagnostic",
    "trend diagnosis": "diagnostic",
    "comparative": "comparative",
    "location-based retention analysis": "comparative",
    "time_series": "trend",
    "correlative": "correlative",
    "predictive": "predictive",
    "prescriptive": "prescriptive",
}
"""The insight types as the flags spell them (lower-cased) -> biarena's set; a missing or other one is
`unlabelled`."""
TYPES = ("descriptive", "diagnostic", "comparative", "trend", "correlative", "predictive", "prescriptive", "unlabelled")
"""The insight-type labels (`insightbench:TYPE`); a flag's open-ended question is `insightbench:goal`."""
DOMAINS: dict[str, tuple[str, ...]] = {
    "incidents management": ("incidents",),
    "incident management": ("incidents",),
    "finance management": ("finance",),
    "financial management": ("finance",),
    "goal management": ("goals",),
    "strategic goal management": ("goals",),
    "user management": ("users",),
    "asset management": ("assets",),
    "asset management & user management": ("assets", "users"),
    "finance management and user management": ("finance", "users"),
}
"""The flags' categories (lower-cased, a final '.' dropped) -> biarena's domains; another one is `unlabelled`."""
ACTION_KEYS = ("actionable_insight", "Actionable Insight", "actionable insight", "recommendation")
"""Where a flag's insight keeps its action (the files spell it four ways)."""
MAIN_TABLES = (
    ("incidents", ("caller_id", "closed_at", "assignment_group", "assignement_group")),
    ("expenses", ("amount", "processed_date")),
    ("goals", ("target_percentage", "goal_id", "percent_complete")),
    ("assets", ("asset_tag", "serial_number", "warranty_expiration")),
    ("users", ("user_name", "user_id", "email")),
)
"""The main table's name, by the first rule whose columns it has (ServiceNow's tables); `data` otherwise."""
USER_TABLE = "sys_user"
_FLAG = re.compile(r"flag-(\d+)\.json")


class InsightBenchOptions(ImportOptions):
    """Options of the InsightBench importer."""

    engine: Engine = "sqlite"
    """Database engine of each flag's tables: sqlite or duckdb (load them into PostgreSQL with `biarena load`)."""
    flags: list[int] | None = None
    """Only these flags (by number); all by default."""


@dataclass
class InsightBenchImport:
    """What the importer read: the benchmark, and lines to tell the user (flags whose CSV is missing)."""

    benchmark: Benchmark
    notes: list[str] = field(default_factory=list)


def insight_type(raw: Any) -> str:
    """biarena's insight type for a flag's `data_type` (`unlabelled` when missing or unknown)."""
    return INSIGHT_TYPES.get(str(raw).strip().lower(), "unlabelled") if raw else "unlabelled"


def domains(raw: Any) -> tuple[str, ...]:
    """biarena's domains for a flag's category (`unlabelled` when missing or unknown)."""
    key = str(raw or "").strip().lower().rstrip(".").strip()
    return DOMAINS.get(key, ("unlabelled",))


def main_table(columns: list[Column]) -> str:
    """The main table's name, from the columns it has."""
    names = {c.name.lower() for c in columns}
    return next((table for table, marks in MAIN_TABLES if names & set(marks)), "data")


def notebooks_folder(path: Path) -> Path:
    """The folder of flag-N.json files: `path` itself, or the repository's data/notebooks."""
    if not path.is_dir():
        raise NotFoundError(f"{path}: no such directory")
    for candidate in (path, path / "data" / "notebooks", path / "notebooks"):
        if candidate.is_dir() and any(_FLAG.fullmatch(p.name) for p in candidate.iterdir()):
            return candidate
    raise NotFoundError(f"{path}: no flag-N.json here or in data/notebooks (InsightBench's repository layout)")


def _text(value: Any, where: str, key: str) -> str | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if not isinstance(value, str):
        raise FormatError(f"{where}: field '{key}' must be text, not {type(value).__name__}")
    return value.strip()


def _plot_description(item: dict) -> str | None:
    """The prose under an insight's plot (the authors' own restatement of the finding), when it has one."""
    plot = item.get("plot")
    text = plot.get("description") if isinstance(plot, dict) else None
    return text.strip() if isinstance(text, str) and text.strip() else None


def _action_text(value: Any, where: str, key: str) -> str | None:
    """An action as text: the files give text, or an object ({description} or {action, expected_outcome, ...})."""
    if isinstance(value, dict):
        parts = [
            text if name in ("description", "action") else f"{name.replace('_', ' ')}: {text}"
            for name, part in value.items()
            if (text := _text(part if isinstance(part, str) else None, where, f"{key}.{name}"))
        ]
        return "; ".join(parts) or None
    return _text(value, where, key)


def _action(item: dict, where: str) -> str | None:
    return next((t for k in ACTION_KEYS if (t := _action_text(item.get(k), where, k))), None)


def _values_text(value: Any) -> str | None:
    if value in (None, {}, [], ""):
        return None
    if isinstance(value, dict):
        return "; ".join(f"{k}: {json.dumps(v, ensure_ascii=False)}" for k, v in value.items())
    return json.dumps(value, ensure_ascii=False)


def insight_reference(insight: str, value: Any, action: str | None) -> str:
    """An insight question's reference answer: the insight, its values and its action (empty when it has none)."""
    lines = [insight] if insight else []
    if (values := _values_text(value)) is not None:
        lines.append(f"Values: {values}")
    if action:
        lines.append(f"Action: {action}")
    return "\n".join(lines)


def _csv(folder: Path, given: Any, where: str, key: str) -> Path | None:
    """The CSV a flag names (found by its file name in csvs/ beside the flags), or None when it is missing."""
    text = _text(given, where, key)
    if text is None:
        return None
    name = plain_name(text.replace("\\", "/").rsplit("/", 1)[-1], f"{where}: field '{key}'")
    path = folder / "csvs" / name
    if not (path.exists() or path.is_symlink()):
        return None
    return regular_file(confined(folder, path, f"{where}: field '{key}'"), where)


@dataclass
class _Flag:
    number: int
    path: Path
    data: dict


def _flags(folder: Path, wanted: list[int] | None) -> list[_Flag]:
    found: list[_Flag] = []
    for path in folder.iterdir():
        match = _FLAG.fullmatch(path.name)
        if match and (wanted is None or int(match[1]) in wanted):
            data = read_json(regular_file(confined(folder, path, str(path)), str(path)))
            if not isinstance(data, dict):
                raise FormatError(f"{path}: expected a JSON object (a flag)")
            found.append(_Flag(int(match[1]), path, data))
    if wanted is not None and (absent := sorted(set(wanted) - {f.number for f in found})):
        raise NotFoundError(f"{folder}: no flag-{absent[0]}.json")
    return sorted(found, key=lambda f: f.number)


def _questions(flag: _Flag, name: str, domain: tuple[str, ...]) -> list[Question]:
    data, where = flag.data, str(flag.path)
    meta = data.get("metadata") or {}
    if not isinstance(meta, dict):
        raise FormatError(f"{where}: field 'metadata' must be an object")
    items = data.get("insight_list") or []
    if not isinstance(items, list):
        raise FormatError(f"{where}: field 'insight_list' must be a list")
    labels_domain = [f"insightbench-domain:{d}" for d in domain]
    questions: list[Question] = []
    insights: list[dict[str, Any]] = []
    for index, item in enumerate(items, start=1):
        at = f"{where}: insight_list[{index - 1}]"
        if not isinstance(item, dict):
            raise FormatError(f"{at}: expected an object")
        raw = item.get("insight", "")
        if not isinstance(raw, str):
            raise FormatError(f"{at}: field 'insight' must be text, not {type(raw).__name__}")
        kind, action, value = insight_type(item.get("data_type")), _action(item, at), item.get("insight_value")
        insights.append({"insight": raw, "insight_value": value, "type": kind})
        text = _text(item.get("question"), at, "question")
        if text is None:
            continue
        questions.append(
            Question(
                id=f"{name}/insight-{index}",
                text=text,
                database=name,
                labels=[f"insightbench:{kind}", *labels_domain],
                reference_answer=insight_reference(raw.strip(), value, action) or None,
                domain=domain[0],
                evidence={
                    "kind": "insightbench-insight",
                    "insight": raw,
                    "insight_value": value,
                    "actionable_insight": action,
                    "data_type": item.get("data_type"),
                    "plot_description": _plot_description(item),
                },
            )
        )
    goal = _text(meta.get("goal"), where, "metadata.goal")
    if goal is None:
        raise FormatError(f"{where}: missing field 'metadata.goal'")
    role = _text(meta.get("role"), where, "metadata.role")
    summary = _text(data.get("summary"), where, "summary")
    published = data.get("insights", [i["insight"] for i in insights])
    if not isinstance(published, list) or not all(isinstance(t, str) for t in published):
        raise FormatError(f"{where}: field 'insights' must be a list of texts")
    reference = "\n".join(f"- {t.strip()}" for t in published if t.strip())
    reference += f"\n\nSummary: {summary}" if summary else ""
    reference = reference.strip()
    questions.append(
        Question(
            id=f"{name}/goal",
            text=goal,
            database=name,
            labels=["insightbench:goal", *labels_domain],
            reference_answer=reference or None,
            domain=domain[0],
            knowledge=f"Your role: {role}." if role else None,
            evidence={
                "kind": "insightbench-flag",
                "insights": published,
                "insight_values": [i["insight_value"] for i in insights],
                "types": [i["type"] for i in insights],
                "summary": data.get("summary") if isinstance(data.get("summary"), str) else None,
                "role": role,
            },
        )
    )
    return questions


def _description(meta: dict, tables: dict[str, list[Column]]) -> str:
    parts = [t for key in ("header", "dataset_description") if isinstance(t := meta.get(key), str) and t.strip()]
    shapes = [f"{t}: {len(cols[0].values) if cols else 0} rows" for t, cols in tables.items()]
    return "\n".join([*parts, "Tables: " + "; ".join(shapes)])


@takes(InsightBenchOptions)
@contextmanager
def import_insightbench(
    path: str | Path, options: InsightBenchOptions | None = None, **values: Any
) -> Iterator[InsightBenchImport]:
    """Import InsightBench (data/notebooks/flag-N.json and csvs/flag-N.csv): one database per flag, one question
    per ground-truth insight that has a question, and one open-ended question per flag (its goal).

    The import lasts while the `with` block does: the flags' tables are written to a temporary directory removed
    when the block ends, so save the benchmark inside it. A flag whose CSV is missing is left out and named in a
    note.
    """
    chosen = InsightBenchOptions.resolve(options, values, "importer 'insightbench'")
    folder = notebooks_folder(Path(path))
    flags = _flags(folder, chosen.flags)
    if not flags:
        raise NotFoundError(f"{folder}: no flag-N.json")
    workdir = Path(tempfile.mkdtemp(prefix="biarena-insightbench-"))
    try:
        yield _read(folder, flags, workdir, chosen)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _read(folder: Path, flags: list[_Flag], workdir: Path, chosen: InsightBenchOptions) -> InsightBenchImport:
    databases: dict[str, DatabaseRef] = {}
    questions: list[Question] = []
    missing: list[str] = []
    suffix = dialect_of(chosen.engine).file_suffixes[0]
    for flag in flags:
        name, where = f"flag-{flag.number}", str(flag.path)
        meta = flag.data.get("metadata") or {}
        flag_questions = _questions(flag, name, domains(meta.get("category") if isinstance(meta, dict) else None))
        if _text(flag.data.get("dataset_csv_path"), where, "dataset_csv_path") is None:
            raise FormatError(f"{where}: missing field 'dataset_csv_path'")
        main = _csv(folder, flag.data.get("dataset_csv_path"), where, "dataset_csv_path")
        if main is None:
            missing.append(f"{name} ({shown(flag.data.get('dataset_csv_path'), limit=80)})")
            continue
        columns = read_csv_table(main)
        tables = {main_table(columns): columns}
        if flag.data.get("user_dataset_csv_path"):
            user = _csv(folder, flag.data["user_dataset_csv_path"], where, "user_dataset_csv_path")
            if user is None:
                missing.append(f"{name} ({shown(flag.data['user_dataset_csv_path'], limit=80)})")
                continue
            tables[USER_TABLE if USER_TABLE not in tables else "sys_user_2"] = read_csv_table(user)
        target = workdir / f"{name}{suffix}"
        write_tables(target, tables, chosen.engine)
        description = _description(meta if isinstance(meta, dict) else {}, tables)
        databases[name] = DatabaseRef(path=str(target), dialect=chosen.engine, description=description)
        questions += flag_questions
    if not databases:
        raise NotFoundError(f"{folder}: no flag's CSV is present ({', '.join(missing[:5])})")
    benchmark = Benchmark(
        name="insightbench",
        description="Imported from InsightBench (business datasets with ground-truth insights, ServiceNow).",
        source_format="insightbench",
        databases=databases,
        questions=questions,
    )
    notes = []
    if missing:
        more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        notes.append(f"skipped {len(missing)} flag(s) whose CSV is missing: {', '.join(missing[:5])}{more}")
    return InsightBenchImport(anchor_benchmark(benchmark, chosen.now), notes)
