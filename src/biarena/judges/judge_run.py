"""judge_run: apply judges to every answer of a run: concurrent, budgeted, resumable, one transaction per judgement.

A judgement is done once stored for its (question, judge, judge version, rubric hash, judge model): a re-score skips
it, and a judgement asked again finds its model replies in the response cache, so neither makes a model call.
"""

import dataclasses
import threading
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from biarena.errors import UsageError
from biarena.judges.base import Judge, JudgeContext, Judgement
from biarena.judges.registry import get_judge
from biarena.judges.rubric import LoadedRubric, load_builtin_rubric, load_rubric_file
from biarena.llm import Model
from biarena.metrics.context import ScoringContext
from biarena.records import Answer, Question, Score, Usage
from biarena.runner.store import JudgementRecord, RunStore


@dataclass
class JudgeSetup:
    """A judge ready to run: the judge, its rubric and the context its calls go through."""

    judge: Judge
    context: JudgeContext
    rubric: LoadedRubric | None = None

    @property
    def model_spec(self) -> str | None:
        """The judge model's string, for judges that use one."""
        model = self.context.model
        return model.spec if model is not None and self.judge.needs_model else None

    def key(self, question_id: str) -> tuple[str, str, str, str, str]:
        """What makes a stored judgement of this setup done."""
        judge = self.judge
        return (question_id, judge.name, judge.version, self.context.rubric_hash or "", self.model_spec or "")


def setup_judges(
    names: list[str],
    scoring: ScoringContext,
    *,
    model: Callable[[], Model] | Model | None = None,
    rubric_files: list[Path] | None = None,
    temperature: float = 0.0,
    seed: int = 0,
) -> list[JudgeSetup]:
    """Make the named judges with their rubrics (a `--rubric` file replaces the built-in rubric of its kind) and
    one shared judge model (made only when a judge needs one)."""
    judges: list[Judge] = []
    for name in dict.fromkeys(names):
        judges.append(get_judge(name))
    given = [load_rubric_file(path) for path in rubric_files or []]
    defaults = {j.default_rubric: load_builtin_rubric(j.default_rubric) for j in judges if j.default_rubric}
    kinds = {rubric.kind for rubric in defaults.values()}
    by_kind: dict[str, LoadedRubric] = {}
    for rubric in given:
        if rubric.kind not in kinds:
            takers = ", ".join(sorted(kinds)) or "none of the judges asked for takes a rubric"
            raise UsageError(f"{rubric.source}: a '{rubric.kind}' rubric, but the judges here take: {takers}")
        if rubric.kind in by_kind:
            raise UsageError(f"two --rubric files for '{rubric.kind}' judges; give one")
        by_kind[rubric.kind] = rubric
    built: Model | None = None
    setups = []
    for judge in judges:
        rubric = None
        if judge.default_rubric:
            rubric = by_kind.get(defaults[judge.default_rubric].kind, defaults[judge.default_rubric])
            check = getattr(judge, "check_rubric", None)
            if callable(check):
                check(rubric.data, rubric.source)
        if judge.needs_model and built is None:
            built = model() if callable(model) else model
            if built is None:
                raise UsageError(f"judge '{judge.name}' needs a model (--judge-model)")
        context = JudgeContext(
            scoring=scoring,
            model=built if judge.needs_model else None,
            rubric=rubric.data if rubric else None,
            rubric_hash=rubric.hash if rubric else None,
            temperature=temperature,
            seed=seed,
        )
        setups.append(JudgeSetup(judge, context, rubric))
    return setups


@dataclass
class JudgeProgress:
    """Where judging stands, after one judgement."""

    done: int
    """Judgements made so far in this pass."""
    total: int
    """Judgements this pass set out to make."""
    failed: int
    usage: Usage
    question_id: str
    judge: str
    judgement: Judgement


@dataclass
class JudgeSummary:
    """What a call to judge_run did."""

    judged_now: int = 0
    """Judgements made and stored now."""
    failed: int = 0
    """Of those, judgements that failed (stored with no value and the raw reply in the trace)."""
    skipped: int = 0
    """Judgements already stored for the same judge, version, rubric and model."""
    not_applicable: int = 0
    """(answer, judge) pairs the judge does not judge (e.g. `corgi` on a descriptive question)."""
    pending: int = 0
    """Judgements left when the --max-calls budget stopped the pass."""
    stopped_by_budget: bool = False
    usage: Usage = dataclasses.field(default_factory=Usage)


def usage_of(judgement: Judgement) -> Usage:
    """Model calls and tokens of one judgement, from its trace (a reply asked again counts each call)."""
    calls = hits = prompt = completion = 0
    for entry in judgement.trace:
        if entry.cached:
            hits += 1
        else:
            calls += 1 + len(entry.rejected)
            prompt += entry.prompt_tokens
            completion += entry.completion_tokens
    return Usage(calls=calls, cache_hits=hits, prompt_tokens=prompt, completion_tokens=completion)


def trace_json(judgement: Judgement) -> list[dict[str, Any]]:
    """The judgement's trace as JSON objects."""
    return [dataclasses.asdict(entry) for entry in judgement.trace]


def to_scores(setup: JudgeSetup, question: Question, judgement: Judgement) -> list[Score]:
    """The judgement as Score records: one per named score, stamped with judge, version, rubric hash and model.

    The headline score (named like the judge, else the first) carries every part of the judgement; the others carry
    the provenance and, where the parts name a dimension, that dimension's sub-metrics.
    """
    judge = setup.judge
    usage = usage_of(judgement)
    stamp = {
        "rubric_hash": setup.context.rubric_hash,
        "judge_model": setup.model_spec,
        "judge_temperature": setup.context.temperature if judge.needs_model else None,
        "failed": judgement.failed,
    }
    names = list(judgement.scores) or list(judge.produces)
    headline = judge.name if judge.name in names else names[0]
    metrics = judgement.sub_scores.get("sub_metrics")
    records = []
    for name in names:
        value = None if judgement.failed else judgement.scores.get(name)
        why = judgement.failed or judgement.rationale
        if name == headline:
            parts = {**judgement.sub_scores, **stamp}
        else:
            parts = dict(stamp)
            dimension = name.removeprefix(judge.name + ".")
            if isinstance(metrics, dict):
                mine = {k: v for k, v in metrics.items() if isinstance(v, dict) and v.get("dimension") == dimension}
                if mine:
                    parts["sub_metrics"] = mine
                    why = "; ".join(
                        f"{k} {v.get('score')}: {v.get('reason') or ''}".rstrip(": ") for k, v in mine.items()
                    )
        records.append(
            Score(
                question_id=question.id,
                name=name,
                scorer=judge.name,
                scorer_version=judge.version,
                value=None if value is None else float(value),
                sub_scores=parts,
                rationale=judgement.failed or why,
                usage=usage if name == headline else None,
            )
        )
    return records


def safe_judge(setup: JudgeSetup, question: Question, answer: Answer) -> Judgement:
    """The judge's judgement; a judge's own bug becomes a failed judgement, never a crash of the pass."""
    try:
        return setup.judge.judge(question, answer, setup.context)
    except Exception as error:
        reason = f"the judge failed ({type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''})"
        return Judgement(scores=dict.fromkeys(setup.judge.produces), failed=reason)


def judge_run(
    store: RunStore,
    setups: list[JudgeSetup],
    *,
    concurrency: int = 1,
    max_calls: int | None = None,
    rescore: bool = False,
    on_progress: Callable[[JudgeProgress], None] | None = None,
) -> JudgeSummary:
    """Judge every answer with every judge that applies and has not judged it yet (all again with `rescore`)."""
    questions = {q.id: q for q in store.questions()}
    done = set() if rescore else store.judged()
    summary = JudgeSummary()
    tasks: list[tuple[JudgeSetup, Question, Answer]] = []
    for answer in store.answers():
        question = questions.get(answer.question_id)
        if question is None or answer.status == "error":
            continue
        for setup in setups:
            if not setup.judge.applies(question):
                summary.not_applicable += 1
            elif setup.key(question.id) in done:
                summary.skipped += 1
            else:
                tasks.append((setup, question, answer))
    total = len(tasks)
    lock = threading.Lock()
    calls = {"made": 0}

    def record(setup: JudgeSetup, question: Question, judgement: Judgement) -> None:
        record = JudgementRecord(
            question_id=question.id,
            judge=setup.judge.name,
            judge_version=setup.judge.version,
            rubric_hash=setup.context.rubric_hash,
            judge_model=setup.model_spec,
            failed=judgement.failed,
            trace=trace_json(judgement),
        )
        store.put_judgement(record, to_scores(setup, question, judgement))
        spent = usage_of(judgement)
        with lock:
            summary.judged_now += 1
            summary.failed += judgement.failed is not None
            for field in ("calls", "cache_hits", "prompt_tokens", "completion_tokens"):
                setattr(summary.usage, field, getattr(summary.usage, field) + getattr(spent, field))
            calls["made"] = summary.usage.calls
            snapshot = JudgeProgress(
                summary.judged_now,
                total,
                summary.failed,
                summary.usage.model_copy(),
                question.id,
                setup.judge.name,
                judgement,
            )
        if on_progress is not None:
            on_progress(snapshot)

    def over_budget() -> bool:
        with lock:
            return max_calls is not None and calls["made"] >= max_calls

    queue = list(tasks)
    workers = max(1, concurrency)
    running: dict[Future, tuple[JudgeSetup, Question]] = {}
    with ThreadPoolExecutor(max_workers=workers) as pool:
        try:
            while queue or running:
                while queue and len(running) < workers:
                    if over_budget():
                        summary.stopped_by_budget, summary.pending, queue = True, len(queue), []
                        break
                    setup, question, answer = queue.pop(0)
                    running[pool.submit(safe_judge, setup, question, answer)] = (setup, question)
                if not running:
                    break
                finished, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in finished:
                    setup, question = running.pop(future)
                    record(setup, question, future.result())
        finally:
            for future in running:
                future.cancel()
    return summary
