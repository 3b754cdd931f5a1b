"""execute_answers: reference answers by Conjecture-Construct-Conclude (`biarena generate answers BENCH -o OUT`)."""

from biarena.errors import UsageError
from biarena.events import EventHandler, Message, ignore
from biarena.generate.cca import AnswerResult
from biarena.generate.generate_settings import AnswersSettings


def execute_answers(settings: AnswersSettings, on_event: EventHandler = ignore) -> AnswerResult:
    """Annotate the benchmark's questions with reference answers backed by rows injected into a copy of each
    database, into the benchmark directory `settings.out` (journaled there, so a killed run continues) and
    return what it kept with the counts; progress is reported as messages. The source databases are only read.

    An unknown base, or an output that is the benchmark itself, is a UsageError."""
    from biarena.benchmarks import resolve_benchmark
    from biarena.generate.cca import BASES, generate_cca_answers
    from biarena.llm import get_model

    base, out = settings.base, settings.out
    if base not in BASES:
        raise UsageError(f"--base takes {' or '.join(BASES)}, not '{base}'")
    source = resolve_benchmark(settings.benchmark)
    if source.root is not None and out.resolve() == source.root.resolve():
        raise UsageError(f"-o must be another directory than the benchmark {settings.benchmark}")
    made = get_model(settings.model, use_cache=not settings.no_cache, concurrency=1)
    return generate_cca_answers(
        source,
        out,
        model=made,
        base=base,
        sample_rows=settings.sample_rows,
        max_calls=settings.max_calls,
        limit=settings.limit,
        name=settings.name,
        force=settings.force,
        say=lambda text: on_event(Message(text)),
    )
