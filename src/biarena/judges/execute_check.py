"""execute_judge_check: the judge-check workflow (`biarena judge check`, `biarena.judge_check(...)`)."""

import json
from dataclasses import dataclass
from typing import Any

from biarena.events import EventHandler, Message, ignore
from biarena.judges.check import CheckReport
from biarena.judges.check_settings import JudgeCheckSettings


@dataclass(frozen=True)
class Judged:
    """A judgement of the check was made: `done` of `total`."""

    done: int
    total: int


@dataclass(frozen=True)
class CheckStarted:
    """The check is about to judge (its progress has this description)."""

    description: str


def execute_judge_check(settings: JudgeCheckSettings, on_event: EventHandler = ignore) -> CheckReport:
    """Judge the settings' pairs and return the figures, reporting `CheckStarted`, a `Judged` per judgement and
    messages through `on_event`; with `out`, the report is also written there as JSON."""
    from biarena.benchmarks import resolve_benchmark
    from biarena.benchmarks.options_file import read_options_file
    from biarena.db import DatabasePool
    from biarena.errors import UsageError
    from biarena.judges.check import check_judge
    from biarena.judges.pairwise import PairwiseJudge
    from biarena.judges.rubric import load_builtin_rubric, load_rubric_file
    from biarena.llm import DEFAULT_MODEL, get_model
    from biarena.llm.model_options import resolve_model
    from biarena.options import value_pairs
    from biarena.scoring import ScoringContext, get_scorer
    from biarena.scoring.scorer_options import scorer_options

    name = settings.judge
    judge: Any
    if name == PairwiseJudge.name:
        judge = PairwiseJudge()
    else:
        get_scorer(name, "judge")  # an unknown name is refused before its options are read
        file = {name: read_options_file(settings.options_file)} if settings.options_file is not None else {}
        if isinstance(settings.options, dict):
            file = {name: {**file.get(name, {}), **settings.options}}
            given = scorer_options([name], None, None, given=file)
        else:
            given = scorer_options([name], settings.options, None, given=file or None)
        judge = get_scorer(name, "judge", **({"options": given[name]} if name in given else {}))
        if not callable(getattr(judge, "judge", None)):
            raise UsageError(f"'{name}' is not a judge: judge check compares a judge's judgements")
    given_pairs = settings.judge_model_options
    model_pairs = given_pairs if isinstance(given_pairs, list) else value_pairs(given_pairs)
    loaded = None
    if settings.rubric is not None:
        if not judge.default_rubric:
            raise UsageError(f"judge '{judge.name}' takes no rubric")
        loaded = load_rubric_file(settings.rubric)
        kind = load_builtin_rubric(judge.default_rubric).kind
        if loaded.kind != kind:
            raise UsageError(f"{settings.rubric}: a '{loaded.kind}' rubric, but judge '{judge.name}' takes '{kind}'")
        checker = getattr(judge, "check_rubric", None)
        if callable(checker):
            checker(loaded.data, loaded.source)
    elif (settings.judge_model is not None or model_pairs) and not judge.needs_model:
        said = "--judge-model" if settings.judge_model else "--judge-M"
        raise UsageError(f"judge '{judge.name}' uses no model ({said})")
    model = None
    if judge.needs_model:
        pairs = [*(["cache=false"] if settings.no_cache else []), *model_pairs]
        chosen = resolve_model(settings.judge_model or DEFAULT_MODEL, pairs, settings.models_file, flag="--judge-M")
        model = get_model(chosen.spec(), options=chosen)
    benchmark = resolve_benchmark(settings.benchmark)
    pool = DatabasePool(benchmark)
    try:
        scoring = ScoringContext(benchmark=benchmark, databases=pool)
        on_event(
            Message(f"checking judge '{judge.name}' on {benchmark.name} ({settings.pairs} pairs, seed {settings.seed})")
        )
        on_event(CheckStarted(f"judge {judge.name}"))
        report = check_judge(
            judge,
            scoring,
            model=model,
            count=settings.pairs,
            seed=settings.seed,
            temperature=settings.judge_temperature,
            rubric=loaded,
            score=settings.score_name,
            benchmark_name=settings.benchmark,
            on_judged=lambda done, total: on_event(Judged(done, total)),
        )
    finally:
        pool.close()
    return report


def write_check(report: CheckReport, settings: JudgeCheckSettings, on_event: EventHandler = ignore) -> None:
    """Write the report as JSON to `settings.out` (nothing without one), saying so through `on_event`."""
    if settings.out is None:
        return
    text = json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n"
    settings.out.write_text(text, encoding="utf-8")
    on_event(Message(f"wrote {settings.out}"))
