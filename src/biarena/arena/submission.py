"""accept_submission: an uploaded run file checked, rebuilt on the arena's own questions, scored, and added."""

import shutil
import sqlite3
import tempfile
import uuid
from pathlib import Path

from pydantic import ValidationError

from biarena.arena.catalog import ArenaSystem, Catalog, system_from_run
from biarena.arena.store import ArenaRefusal
from biarena.arena.upload_check import check_upload
from biarena.benchmarks import resolve_benchmark
from biarena.db import DatabasePool
from biarena.errors import BiarenaError
from biarena.llm import DEFAULT_MODEL, get_model
from biarena.metrics import ScoringContext
from biarena.report.run_data import RunData
from biarena.runner import RunStore, recognize_run_file
from biarena.scoring import default_scorers, score_run, setup_scorers

MAX_NAME = 60


def check_name(name: str, catalog: Catalog) -> str:
    """The system name a submitter chose, trimmed; ArenaRefusal when empty, too long or taken."""
    name = " ".join(name.split())
    if not name or len(name) > MAX_NAME or not name.isprintable():
        raise ArenaRefusal(f"give the system a name of 1 to {MAX_NAME} printable characters")
    if name.casefold() in {n.casefold() for n in catalog.systems}:
        raise ArenaRefusal(f"a system named '{name}' is already in the arena; choose another name", 409)
    return name


def _read_upload(upload: Path, shown: str) -> RunData:
    """The uploaded file read as a run (never run, only read); errors name the file as the submitter called it.

    The file is first checked as an untrusted SQLite database (`check_upload`), so nothing in it runs on a read.
    """
    try:
        check_upload(upload, shown)
        recognize_run_file(upload)
        run = RunData.read(upload)
    except BiarenaError as error:
        message = str(error).replace(str(upload), shown)
        raise ArenaRefusal(message if message.startswith(shown) else f"{shown}: {message}") from None
    except (ValidationError, ValueError, sqlite3.Error) as error:
        # a run file whose records were edited into something biarena never writes
        detail = error.errors()[0]["msg"] if isinstance(error, ValidationError) else str(error)
        raise ArenaRefusal(f"{shown}: a damaged run file ({detail[:200]})") from None
    return run


def accept_submission(
    upload: Path,
    shown_name: str,
    name: str,
    catalog: Catalog,
    keep_dir: Path,
    *,
    judges: tuple[str, ...] = (),
    judge_model: str | None = None,
) -> ArenaSystem:
    """Check an uploaded run file and return its system, ready to join the catalog.

    The upload must be a biarena run of a benchmark the arena serves, made on the same databases, answering
    questions of that benchmark. Only its answers are kept: they are written into a new run file under
    `keep_dir` with the arena's own copies of the questions (so a submitted gold SQL counts for nothing) and
    scored there with the deterministic metrics and `judges`, if any.
    """
    name = check_name(name, catalog)
    run = _read_upload(upload, shown_name)
    spec = run.spec
    benchmark_name = spec.benchmark_name
    if benchmark_name not in catalog.benchmark_refs:
        served = ", ".join(sorted(catalog.benchmark_refs))
        raise ArenaRefusal(f"{shown_name}: a run of benchmark '{benchmark_name}'; this arena serves {served}")
    served_databases = catalog.fingerprints.get(benchmark_name)
    if served_databases and spec.fingerprint is not None and spec.fingerprint.databases != served_databases:
        raise ArenaRefusal(f"{shown_name}: made on other databases than the arena's '{benchmark_name}'")
    known = {qid for (bench, qid) in catalog.questions if bench == benchmark_name}
    answers = [a for a in run.answers if a.question_id in known]
    unknown = sorted({a.question_id for a in run.answers} - known)
    if unknown:
        raise ArenaRefusal(
            f"{shown_name}: answers question '{unknown[0]}'"
            + (f" and {len(unknown) - 1} more" if len(unknown) > 1 else "")
            + f" that benchmark '{benchmark_name}' does not have"
        )
    if not answers:
        raise ArenaRefusal(f"{shown_name}: the run holds no answers")
    questions = [catalog.questions[(benchmark_name, a.question_id)] for a in answers]
    keep_dir.mkdir(parents=True, exist_ok=True)
    target = keep_dir / f"{uuid.uuid4().hex}.run"
    clean_spec = spec.model_copy(
        update={
            "benchmark": catalog.benchmark_refs[benchmark_name],
            "question_ids": [q.id for q in questions],
            "label": name,
        }
    )
    try:
        with RunStore(target, create=True) as store:
            store.start(clean_spec, questions)
            for answer in answers:
                store.add_answer(answer)
            _score(store, catalog, benchmark_name, judges, judge_model)
        system = system_from_run(RunData.read(target), name, submitted=True)
    except BaseException:
        for leftover in keep_dir.glob(f"{target.name}*"):
            leftover.unlink(missing_ok=True)
        raise
    return system


def _score(
    store: RunStore, catalog: Catalog, benchmark_name: str, judges: tuple[str, ...], judge_model: str | None
) -> None:
    benchmark = resolve_benchmark(catalog.benchmark_refs[benchmark_name])
    pool = DatabasePool(benchmark, overrides=catalog.db_overrides.get(benchmark_name))
    try:
        pool.open_all()
        context = ScoringContext(benchmark=benchmark, databases=pool)
        names = [*default_scorers(), *judges]
        score_run(store, setup_scorers(names, context, model=lambda: get_model(judge_model or DEFAULT_MODEL)))
    finally:
        pool.close()


def private_copy(data_dir: Path) -> Path:
    """A fresh private folder for one upload (removed with `discard`)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=".upload-", dir=data_dir))


def discard(folder: Path) -> None:
    """Remove an upload's folder and whatever reading it left beside it."""
    shutil.rmtree(folder, ignore_errors=True)
