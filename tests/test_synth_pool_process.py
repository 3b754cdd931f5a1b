"""Faker pools drawn by this process and a helper at once: the same pools, the same file, errors brought back."""

import hashlib
from pathlib import Path

import numpy as np
import pytest

from biarena.errors import FormatError
from biarena.synth import generate, vertical_spec
from biarena.synth.kernel import PoolBlock, assemble_pools, faker_block, pool_blocks, table_rows
from biarena.synth.pool_process import PoolProcess
from biarena.synth.schema import table_order


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("scale", [0.3, 3.0])
def test_every_table_gets_the_pools_one_process_draws(scale: float) -> None:
    spec = vertical_spec("food_delivery")
    order = table_order(spec)
    blocks = [pool_blocks(spec, name, i, table_rows(spec, name, scale), 7) for i, name in enumerate(order)]
    assert sum(map(len, blocks)) > 4
    shared = PoolProcess(blocks)
    try:
        for i, table in enumerate(blocks):
            got = shared.pools(i)
            alone = assemble_pools(table, [faker_block(block) for block in table])
            assert got.keys() == alone.keys()
            assert all(np.array_equal(got[key], alone[key]) for key in alone)
    finally:
        shared.close()
    assert not shared._process.is_alive()


def test_the_file_is_the_same_byte_for_byte_with_and_without_the_helper(tmp_path: Path) -> None:
    spec = vertical_spec("food_delivery")
    alone = generate(spec, tmp_path / "alone.db", scale=0.2, seed=2, chunk=2_000, pool_process=False)
    helped = generate(spec, tmp_path / "helped.db", scale=0.2, seed=2, chunk=2_000, pool_process=True)
    assert alone == helped
    assert digest(tmp_path / "alone.db") == digest(tmp_path / "helped.db")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["alone.db", "helped.db"]


def test_a_block_that_fails_in_the_helper_raises_here_when_its_table_is_reached() -> None:
    good = PoolBlock("name", "first_name", 50, 1, "en_US")
    bad = PoolBlock("code", "no_such_provider", 10, 2, "en_US")
    shared = PoolProcess([[good], [good], [bad]])
    try:
        shared._process.join(timeout=30)  # the helper has claimed and failed the last block (and maybe more)
        assert shared.pools(0)["name"].tolist() == faker_block(good).tolist()
        shared.pools(1)
        with pytest.raises(FormatError, match="no_such_provider"):
            shared.pools(2)
    finally:
        shared.close()
