"""The pools Faker columns draw from: drawn in blocks, each from a seed of its own, so processes can draw a pool at
once and every process gets the same values."""

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from biarena.errors import FormatError
from biarena.synth.spec import Spec

FAKER_POOL = 2_000
"""Faker columns longer than this draw from pools (Faker is slow): person names combine a pool of first names with
a pool of last names (millions of combinations); other providers sample a pool of `FAKER_POOL * 4` values."""
FAKER_BLOCK = FAKER_POOL
"""Values Faker draws from one seed: a larger pool is drawn in blocks, each from a seed of its own (the first block's
is the pool's), so that processes can draw the blocks of one pool at once."""


@lru_cache(maxsize=8)
def faker_of(locale: str) -> Any:
    """One Faker per locale and process (making one loads its providers: tens of milliseconds); each pool seeds it
    afresh, so what it drew before changes nothing."""
    from faker import Faker

    try:
        return Faker(locale)
    except AttributeError:
        raise FormatError(f"unknown Faker locale '{locale}'") from None


@dataclass(frozen=True)
class PoolBlock:
    """Values of one Faker pool drawn from one seed: `size` values of `provider` in `locale`."""

    key: str
    """The pool: a column's name, or the column's name and `\\0last` for its last names."""
    provider: str
    size: int
    seed: int
    locale: str


def pool_blocks(spec: Spec, name: str, index: int, n: int, seed: int) -> list[PoolBlock]:
    """The blocks of a table's Faker pools (`index` in `table_order`, `n` rows), in pool order: each pool takes its
    seed from the table's stream in column order, and its blocks past the first a seed derived from the pool's."""
    rng = np.random.default_rng([seed, index])
    blocks = []
    for column_name, column in spec.tables[name].columns.items():
        if column.kind != "faker":
            continue
        provider = column.provider or "name"
        if n <= FAKER_POOL:
            pools = [(column_name, provider, n)]
        elif provider == "name":
            pools = [(column_name, "first_name", FAKER_POOL), (f"{column_name}\0last", "last_name", FAKER_POOL)]
        else:
            pools = [(column_name, provider, FAKER_POOL * 4)]
        for key, drawn, size in pools:
            first = int(rng.integers(0, 2**31))
            for number, start in enumerate(range(0, size, FAKER_BLOCK)):
                block_seed = first if number == 0 else int(np.random.default_rng([first, number]).integers(0, 2**31))
                blocks.append(PoolBlock(key, drawn, min(FAKER_BLOCK, size - start), block_seed, spec.locale))
    return blocks


def faker_block(block: PoolBlock) -> np.ndarray:
    """The values of one pool block."""
    fake = faker_of(block.locale)
    fake.seed_instance(block.seed)
    try:
        provider = getattr(fake, block.provider)
    except AttributeError:
        raise FormatError(f"unknown Faker provider '{block.provider}'") from None
    return np.array([str(provider()) for _ in range(block.size)], dtype=object)


def assemble_pools(blocks: list[PoolBlock], values: list[np.ndarray]) -> dict[str, np.ndarray]:
    """The pools of a table from its blocks' values (in the order of `blocks`)."""
    parts: dict[str, list[np.ndarray]] = {}
    for block, drawn in zip(blocks, values, strict=True):
        parts.setdefault(block.key, []).append(drawn)
    return {key: drawn[0] if len(drawn) == 1 else np.concatenate(drawn) for key, drawn in parts.items()}
