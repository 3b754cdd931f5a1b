"""Business database simulator: declarative vertical specs, a seeded generator, and rule verification."""

from importlib import resources
from pathlib import Path

from biarena.benchmarks.verticals import canonical_vertical
from biarena.errors import NotFoundError, did_you_mean
from biarena.synth.generator import generate, stored_spec
from biarena.synth.spec import Spec, load_spec
from biarena.synth.verify import Check, verify


def vertical_names() -> list[str]:
    """The built-in verticals."""
    folder = resources.files("biarena.synth").joinpath("verticals")
    return sorted(p.name[: -len(".yaml")] for p in folder.iterdir() if p.name.endswith(".yaml"))


def vertical_spec(name: str) -> Spec:
    """The spec of a built-in vertical, by its name or an alias (`app-store`, CORGI's `freelancing-marketplace`)."""
    names = vertical_names()
    if name not in names:
        name = canonical_vertical(name) or name
    if name not in names:
        raise NotFoundError(f"unknown vertical '{name}'{did_you_mean(name, names)} (known: {', '.join(names)})")
    return load_spec(Path(str(resources.files("biarena.synth").joinpath("verticals", f"{name}.yaml"))))


__all__ = ["Check", "Spec", "generate", "load_spec", "stored_spec", "verify", "vertical_names", "vertical_spec"]
