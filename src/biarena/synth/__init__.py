"""Business database simulator: declarative vertical specs, a seeded generator, and rule verification."""

from importlib import resources
from pathlib import Path
from typing import Any

from biarena.registry import Registry
from biarena.synth.corgi_figures import CORGI, SchemaFigures, corgi
from biarena.synth.generator import generate, stored_spec
from biarena.synth.spec import Spec, load_spec
from biarena.synth.verify import Check, verify


def _spec_file(target: str) -> Path:
    """The spec file of a registered vertical: "package:folder/file.yaml" among a package's data, or a file's path."""
    if Path(target).is_absolute():
        return Path(target)
    package, _, where = target.partition(":")
    return Path(str(resources.files(package).joinpath(where)))


VERTICALS: Registry[Any] = Registry(
    "vertical",
    {
        "app_store": ("biarena.synth:verticals/app_store.yaml", corgi(18, 4.3, 22)),
        "car_rental": ("biarena.synth:verticals/car_rental.yaml", corgi(30, 6.7, 68)),
        "clothing_ecommerce": ("biarena.synth:verticals/clothing_ecommerce.yaml", corgi(34, 3.9, 40)),
        "ecommerce_enablement": ("biarena.synth:verticals/ecommerce_enablement.yaml", corgi(23, 7.0, 60)),
        "food_delivery": ("biarena.synth:verticals/food_delivery.yaml", corgi(30, 4.0, 25)),
        "freelancing": ("biarena.synth:verticals/freelancing.yaml", corgi(25, 3.8, 33)),
        "home_rental": ("biarena.synth:verticals/home_rental.yaml", corgi(18, 4.3, 25)),
        "luxury_consignment": ("biarena.synth:verticals/luxury_consignment.yaml", corgi(30, 6.5, 65)),
        "personalized_product": ("biarena.synth:verticals/personalized_product.yaml", corgi(28, 7.8, 38)),
        "user_analytics": ("biarena.synth:verticals/user_analytics.yaml", corgi(20, 7.5, 25)),
    },
    group="biarena.verticals",
    load=_spec_file,
)
"""The verticals by name: a built-in is a spec file among biarena's data, with CORGI's figures of its published
database (`corgi(tables, columns per table, foreign keys)`, which `synth list` prints beside the spec's) when CORGI
has one; a plugin's entry point names a Spec, or the path of its YAML spec file (a Path or a str)."""


def vertical_names() -> list[str]:
    """The verticals: the built-in ones, then the plugins'."""
    return list(VERTICALS)


def corgi_figures(name: str) -> SchemaFigures | None:
    """CORGI's figures of the vertical `name`, as its registry line declares them (None when it declares none)."""
    found = VERTICALS.meta(name, CORGI)
    return found if isinstance(found, SchemaFigures) else None


def vertical_spec(name: str) -> Spec:
    """The spec of a vertical, by its name or an alias (`app-store`, CORGI's `freelancing-marketplace`)."""
    if name not in VERTICALS.builtin_names():
        # imported here: the benchmarks package is more than the simulator's own processes need
        from biarena.benchmarks.verticals import canonical_vertical

        name = canonical_vertical(name) or name
    found = VERTICALS[name]
    return found if isinstance(found, Spec) else load_spec(Path(found))


__all__ = [
    "VERTICALS",
    "Check",
    "Spec",
    "corgi_figures",
    "generate",
    "load_spec",
    "stored_spec",
    "verify",
    "vertical_names",
    "vertical_spec",
]
