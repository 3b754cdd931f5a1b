"""execute_synth: the simulator's workflow (`biarena synth VERTICAL -o PATH`, `biarena.synth(...)`)."""

from pathlib import Path

from biarena.errors import FormatError, UsageError
from biarena.events import EventHandler, Message, ignore
from biarena.synth.generator import generate
from biarena.synth.partitions import default_workers
from biarena.synth.spec import Spec, load_spec
from biarena.synth.synth_settings import SynthSettings
from biarena.synth.task_graph import ENGINES
from biarena.synth.verify import verify


def execute_synth(settings: SynthSettings, on_event: EventHandler = ignore) -> Path:
    """Generate the vertical's database at `settings.out`, verify it unless told not to, and return the path;
    what it wrote and the verification's outcome are reported as messages through `on_event`.

    A vertical that does not exist is a NotFoundError, settings that do not go together a UsageError, a rule that
    does not hold in the written data a FormatError naming each."""
    _check_parallel(settings)
    spec = _spec(settings.vertical)
    parallel = {}
    if settings.partitions is not None:
        parallel = {"partitions": settings.partitions, "workers": settings.workers or default_workers()}
    out = settings.out
    counts = generate(
        spec,
        out,
        scale=settings.scale,
        seed=settings.seed,
        fmt=settings.format,
        engine=settings.engine,
        address=settings.address,
        **parallel,
    )
    on_event(Message(f"{spec.name}: {sum(counts.values())} rows in {len(counts)} tables written to {out}"))
    if settings.verify:
        failed = [check for check in verify(out) if not check.ok]
        if failed:
            names = "; ".join(f"{check.kind} '{check.name}': {check.detail}" for check in failed)
            raise FormatError(f"spec '{spec.name}' does not hold in the generated data: {names}")
        on_event(Message("verified: every rule holds"))
    return out


def _check_parallel(settings: SynthSettings) -> None:
    """Refuse parallel settings without partitions, a worker count below one, a Ray address without Ray."""
    if settings.partitions is None and (
        settings.workers is not None or settings.engine != "local" or settings.address is not None
    ):
        raise UsageError("--workers, --engine and --address go with --partitions")
    if settings.workers is not None and settings.workers < 1:
        raise UsageError(f"--workers must be at least 1 (got {settings.workers})")
    takes_address = settings.engine in ENGINES and ENGINES.meta(settings.engine, "cluster", False)
    if settings.address is not None and not takes_address:
        raise UsageError("--address goes with --engine ray")


def _spec(vertical: str) -> Spec:
    """A spec file's spec, or a registered vertical's (by name or alias)."""
    if vertical.endswith((".yaml", ".yml")):
        return load_spec(vertical)
    from biarena.synth import vertical_spec

    return vertical_spec(vertical)
