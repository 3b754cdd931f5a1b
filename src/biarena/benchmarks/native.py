"""The native benchmark format: a directory with benchmark.yaml, questions.jsonl and databases/."""

import shutil
from pathlib import Path

import yaml
from pydantic import ValidationError

from biarena.benchmarks.jsonl import read_jsonl
from biarena.benchmarks.staging import staged_directory
from biarena.benchmarks.yaml_file import field_errors, read_yaml
from biarena.errors import FormatError, NotFoundError
from biarena.records import Benchmark, Question

BENCHMARK_FILE = "benchmark.yaml"
QUESTIONS_FILE = "questions.jsonl"


def load_benchmark(directory: str | Path, *, check_files: bool = True) -> Benchmark:
    """Load and validate a native benchmark directory; FormatError names the file, line and field."""
    root = Path(directory)
    head_path = root / BENCHMARK_FILE
    if not head_path.is_file():
        raise NotFoundError(f"{root}: not a benchmark directory (no {BENCHMARK_FILE})")
    head = read_yaml(head_path) or {}
    if not isinstance(head, dict):
        raise FormatError(f"{head_path}: expected a mapping at the top level")
    if "questions" in head:
        raise FormatError(f"{head_path}: questions belong in {QUESTIONS_FILE}, not in {BENCHMARK_FILE}")
    try:
        benchmark = Benchmark.model_validate(head)
    except ValidationError as error:
        raise FormatError(f"{head_path}: {field_errors(error)}") from None
    benchmark.questions = _load_questions(root / QUESTIONS_FILE, benchmark)
    benchmark.set_root(root.resolve())
    if check_files:
        for name, ref in benchmark.databases.items():
            if not ref.url and not Path(benchmark.database_location(name)).is_file():
                raise NotFoundError(
                    f"{head_path}: database '{name}' file not found: {benchmark.database_location(name)}"
                )
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
            raise FormatError(f"{path} line {number}: field 'id': '{question.id}' repeats line {seen[question.id]}")
        if benchmark.databases and question.database not in benchmark.databases:
            known = ", ".join(sorted(benchmark.databases))
            raise FormatError(
                f"{path} line {number}: field 'database': unknown database '{question.database}' (known: {known})"
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


def save_benchmark(benchmark: Benchmark, directory: str | Path, *, overwrite: bool = False) -> Path:
    """Write `benchmark` as a native directory, atomically: a failure leaves nothing half-written."""
    target = Path(directory)
    if target.exists() and any(target.iterdir()) and not overwrite:
        raise FormatError(f"{target}: already exists and is not empty (choose another -o)")
    with staged_directory(target) as staging:
        databases = {}
        for name, ref in benchmark.databases.items():
            if ref.url:
                databases[name] = ref
                continue
            source = Path(benchmark.database_location(name))
            relative = Path("databases") / (name + (source.suffix or ".sqlite"))
            (staging / "databases").mkdir(exist_ok=True)
            shutil.copyfile(source, staging / relative)
            databases[name] = ref.model_copy(update={"path": relative.as_posix()})
        head = benchmark.model_dump(mode="json", exclude={"questions", "databases"}, exclude_none=True)
        head["databases"] = {n: r.model_dump(mode="json", exclude_none=True) for n, r in databases.items()}
        (staging / BENCHMARK_FILE).write_text(_dump_yaml(head), encoding="utf-8")
        with (staging / QUESTIONS_FILE).open("w", encoding="utf-8") as handle:
            for question in benchmark.questions:
                handle.write(question.model_dump_json(exclude_defaults=True) + "\n")
    return target
