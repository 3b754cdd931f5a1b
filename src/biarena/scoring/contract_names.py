"""CONTRACTS: the named result contracts, each object imported when first used, and the checks of names given for
them; the contracts themselves are in biarena.metrics.contracts."""

from typing import Any

from biarena.registry import Registry

CONTRACTS: Registry[Any] = Registry(
    "contract",
    {
        "biarena": "biarena.metrics.contracts:BIARENA",
        "spider": "biarena.metrics.contracts:SPIDER",
        "spider-keep-distinct": "biarena.metrics.contracts:SPIDER_KEEP_DISTINCT",
        "bird": "biarena.metrics.contracts:BIRD",
        "bird-f1": "biarena.metrics.contracts:BIRD_F1",
        "spider2": "biarena.metrics.contracts:SPIDER2",
        "strict": "biarena.metrics.contracts:STRICT",
    },
    group="biarena.contracts",
)
"""The named contracts, `biarena` first (the default); plugins add theirs through the `biarena.contracts` entry
points (a ResultContract object each)."""


def contract_named(name: str) -> Any:
    """The contract called `name` (NotFoundError, with a suggestion, for an unknown one)."""
    return CONTRACTS[name]


def split_contract_names(values: list[str] | None) -> list[str]:
    """Contract names given as repeated and/or comma-separated values, in order, each once, checked."""
    names = [part.strip() for value in values or [] for part in value.split(",") if part.strip()]
    for name in names:
        contract_named(name)
    return list(dict.fromkeys(names))
