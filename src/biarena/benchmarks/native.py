"""The native benchmark format: a directory with benchmark.yaml, questions.jsonl and databases/."""

import shutil
from pathlib import Path

import yaml
from pydantic import ValidationError

from biarena.benchmarks.archive import SQLITE_HEADER
from biarena.benchmarks.jsonl import read_jsonl
from biarena.benchmarks.paths import inside, regular_file, safe_file_name
from biarena.benchmarks.shown import shown
from biarena.benchmarks.staging import staged_directory
from biarena.db.dialect import file_engines, file_suffixes
from biarena.errors import BiarenaError, FormatError, NotFoundError
from biarena.records import Benchmark, DatabaseRef, Question
from biarena.yaml_model import field_errors, read_yaml

BENCHMARK_FILE = "benchmark.yaml"
QUESTIONS_FILE = "questions.jsonl"


def load_benchmark(directory: str | Path, *, check_files: bool = True) -> Benchmark:
    """Load and validate a native benchmark directory; FormatError names the file, line and field.

    Database paths must lead to files inside the directory (no absolute paths, `..` or links out);
    a server database is named by `url`, and a URL may not name a file (give it as a `path`).
    """
    root = Path(directory)
    head_path = root / BENCHMARK_FILE
    if not head_path.is_file():
        raise NotFoundError(f"{root}: not a benchmark directory (no {BENCHMARK_FILE})")
    head = read_yaml(head_path, timestamps=False) or {}
    if not isinstance(head, dict):
        raise FormatError(f"{head_path}: expected a mapping at the top level")
    if "questions" in head:
        raise FormatError(f"{head_path}: questions belong in {QUESTIONS_FILE}, not in {BENCHMARK_FILE}")
    try:
        benchmark = Benchmark.model_validate(head)
    except ValidationError as error:
        raise FormatError(f"{head_path}: {field_errors(error)}") from None
    for name, ref in benchmark.databases.items():
        where = f"{head_path}: database '{shown(name)}'"
        if ref.url:
            scheme = ref.url.split(":", 1)[0].split("+", 1)[0].lower()
            if scheme in file_engines():
                raise FormatError(f"{where}: url '{shown(ref.url)}' names a file; give it as 'path' inside {root}")
            continue
        location = inside(root, ref.path or "", f"{where}: path")
        if check_files and not location.exists():
            raise NotFoundError(f"{head_path}: database '{shown(name)}' file not found: {location}")
        if check_files:
            regular_file(location, where)
    benchmark.questions = _load_questions(root / QUESTIONS_FILE, benchmark)
    benchmark.set_root(root.resolve())
    return benchmark


def _load_questions(path: Path, benchmark: Benchmark) -> list[Question]:
    if not path.is_file():
        raise NotFoundError(f"{path}: file not found")
    questions: list[Question] = []
    seen: dict[str, int] = {}
    for number, data in read_jsonl(path):
        try:
            question = Question.model_validate(data)
        except ValidationError as error:
            raise FormatError(f"{path} line {number}, {field_errors(error)}") from None
        if question.id in seen:
            raise FormatError(
                f"{path} line {number}: field 'id': '{shown(question.id)}' repeats line {seen[question.id]}"
            )
        if benchmark.databases and question.database not in benchmark.databases:
            known = ", ".join(shown(name) for name in sorted(benchmark.databases))
            raise FormatError(
                f"{path} line {number}: field 'database': unknown database '{shown(question.database)}' "
                f"(known: {known})"
            )
        seen[question.id] = number
        questions.append(question)
    return questions


class _BlockDumper(yaml.SafeDumper):
    """Writes multi-line strings as literal blocks, so descriptions stay readable."""


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_BlockDumper.add_representer(str, _represent_str)


def _dump_yaml(data: dict) -> str:
    return yaml.dump(data, Dumper=_BlockDumper, sort_keys=False, allow_unicode=True)


def check_target(target: Path, *, overwrite: bool = False) -> None:
    """FormatError unless a benchmark can be written to `target`.

    `target` must be absent or an empty directory; with `overwrite`, also a benchmark directory
    (one holding benchmark.yaml), never another folder or a file.
    """
    if target.is_symlink():
        raise FormatError(f"{target}: is a symbolic link; give the directory itself")
    if target.exists():
        if not target.is_dir():
            raise FormatError(f"{target}: exists and is not a directory")
        if any(target.iterdir()):
            if not overwrite:
                raise FormatError(f"{target}: already exists and is not empty (choose another -o, or --force)")
            if not (target / BENCHMARK_FILE).is_file():
                raise FormatError(f"{target}: not a benchmark directory, so --force will not replace it")
        return
    for parent in target.parents:
        if parent.exists() or parent.is_symlink():
            if not parent.is_dir():
                raise FormatError(f"{target}: {parent} is not a directory")
            return


def save_benchmark(benchmark: Benchmark, directory: str | Path, *, overwrite: bool = False) -> Path:
    """Write `benchmark` as a native directory, atomically: a failure leaves nothing half-written.

    Database files are copied into `databases/` under names made from the database names (letters,
    digits, '.', '_', '-'); each must be a regular SQLite or DuckDB file.
    """
    target = Path(directory)
    check_target(target, overwrite=overwrite)
    try:
        with staged_directory(target) as staging:
            _write(benchmark, staging)
    except BiarenaError:
        raise
    except OSError as error:
        place = f" ({error.filename})" if error.filename else ""
        raise FormatError(f"{target}: cannot write the benchmark{place}: {error.strerror or error}") from None
    return target


def _write(benchmark: Benchmark, staging: Path) -> None:
    databases: dict[str, DatabaseRef] = {}
    taken: set[str] = set()
    for name, ref in benchmark.databases.items():
        if ref.url:
            databases[name] = ref
            continue
        source = regular_file(Path(benchmark.database_location(name)), f"database '{shown(name)}'")
        with source.open("rb") as handle:
            head = handle.read(16)
        if not head.startswith(SQLITE_HEADER) and head[8:12] != b"DUCK":
            raise FormatError(f"database '{shown(name)}': {source} is not an SQLite or DuckDB database")
        suffix = source.suffix.lower() if source.suffix.lower() in file_suffixes() else ".sqlite"
        relative = Path("databases") / safe_file_name(name, suffix, taken)
        (staging / "databases").mkdir(exist_ok=True)
        shutil.copyfile(source, staging / relative)
        databases[name] = ref.model_copy(update={"path": relative.as_posix()})
    head = benchmark.model_dump(mode="json", exclude={"questions", "databases"}, exclude_none=True)
    head["databases"] = {n: r.model_dump(mode="json", exclude_none=True) for n, r in databases.items()}
    (staging / BENCHMARK_FILE).write_text(_dump_yaml(head), encoding="utf-8")
    with (staging / QUESTIONS_FILE).open("w", encoding="utf-8") as handle:
        for question in benchmark.questions:
            handle.write(question.model_dump_json(exclude_defaults=True) + "\n")
