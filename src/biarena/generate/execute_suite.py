"""execute_suite: the CORGI suite's build (`biarena suite corgi -o DIR`, `biarena.suite(...)`)."""

from pathlib import Path

from biarena.benchmarks import load_benchmark
from biarena.benchmarks.execute_build import empty_target
from biarena.errors import UsageError
from biarena.events import EventHandler, Message, Stage, ignore
from biarena.generate.corgi_suite.audit import TYPES, audit
from biarena.generate.suite_events import SuiteAudited, SuiteBuilt
from biarena.generate.suite_settings import SuiteSettings


def execute_suite(settings: SuiteSettings, on_event: EventHandler = ignore) -> Path:
    """Generate and verify each vertical, write its four types of questions into `settings.out` and return the
    directory; reports a message, a `Stage` per step, `SuiteBuilt` and (with `audit`) `SuiteAudited`.

    An output that exists and is not empty is a FormatError, an unknown vertical a NotFoundError, one named twice
    a UsageError."""
    from biarena.generate.corgi_suite import build
    from biarena.synth import vertical_names

    out = settings.out
    empty_target(out)
    names = chosen_verticals(settings.verticals)
    chosen = names or vertical_names()
    on_event(Message(f"building the CORGI suite ({', '.join(chosen)}) at scale {settings.scale:g} ..."))
    benchmark = build(
        out,
        verticals=names,
        scale=settings.scale,
        seed=settings.seed,
        on_progress=lambda done, total, item, stage: on_event(Stage(done, total, item, stage)),
    )
    counts = {name: dict.fromkeys(TYPES, 0) for name in benchmark.databases}
    for question in benchmark.questions:
        for label in question.labels:
            if label in TYPES and question.database in counts:
                counts[question.database][label] += 1
    on_event(SuiteBuilt(out, counts, len(benchmark.questions)))
    if settings.audit:
        on_event(SuiteAudited(audit(load_benchmark(out))))
    on_event(Message(f"{len(benchmark.questions)} questions over {len(benchmark.databases)} databases in {out}"))
    return out


def chosen_verticals(given: list[str] | None) -> list[str] | None:
    """The verticals' built-in names (an alias becomes its name), or None for all; an unknown one is a
    NotFoundError, one named twice a UsageError."""
    from biarena.synth import vertical_spec

    if not given:
        return None
    names = [vertical_spec(name).name for name in given]
    if len(set(names)) != len(names):
        raise UsageError(f"--verticals names one vertical twice: {', '.join(names)}")
    return names
