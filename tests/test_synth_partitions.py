"""The simulator's partitioned Parquet output: day-range parts drawn in parallel, the same bytes whoever draws them,
the same rows as the serial output."""

import hashlib
import itertools
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from biarena.errors import UsageError
from biarena.synth import faker_pools, generate, kernel, task_graph, verify, vertical_spec
from biarena.synth.kernel import Calendar, draw_chunk, table_state
from biarena.synth.schema import table_order
from biarena.synth.task_graph import Node
from tests.cli_in_process import cli
from tests.test_cli import assert_user_error

duckdb = pytest.importorskip("duckdb")
pq = pytest.importorskip("pyarrow.parquet")

VERTICAL, SCALE, SEED, CHUNK, PARTS = "car_rental", 0.05, 3, 600, 3


def digests(folder: Path) -> dict[str, str]:
    return {
        str(f.relative_to(folder)): hashlib.sha256(f.read_bytes()).hexdigest()
        for f in sorted(folder.rglob("*"))
        if f.is_file()
    }


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    work = tmp_path_factory.mktemp("partitions")
    spec = vertical_spec(VERTICAL)
    paths = {"sqlite": work / "serial.db", "parquet": work / "serial_parquet", "w1": work / "w1", "w2": work / "w2"}
    counts = generate(spec, paths["sqlite"], scale=SCALE, seed=SEED, chunk=CHUNK)
    assert generate(spec, paths["parquet"], scale=SCALE, seed=SEED, chunk=CHUNK, fmt="parquet") == counts
    for workers in (1, 2):
        options = {"partitions": PARTS, "workers": workers}
        assert generate(spec, paths[f"w{workers}"], scale=SCALE, seed=SEED, chunk=CHUNK, **options) == counts
    return paths


def test_one_and_two_workers_write_the_same_bytes(outputs: dict[str, Path]) -> None:
    one, two = digests(outputs["w1"]), digests(outputs["w2"])
    assert one == two
    assert not any(name.startswith(".") for name in one)  # no scratch files left behind
    timed = [t for t, table in vertical_spec(VERTICAL).tables.items() if table.stamp]
    for table in timed:
        assert any(name.startswith(f"{table}/part-") for name in one), table
    assert "_biarena_synth.parquet" in one


def test_parts_read_in_order_hold_the_serial_rows(outputs: dict[str, Path]) -> None:
    conn = duckdb.connect()
    spec = vertical_spec(VERTICAL)
    several = 0
    for table in spec.tables:
        parts = sorted((outputs["w2"] / table).glob("*.parquet"))
        several += len(parts) > 1
        listed = ", ".join(f"'{p}'" for p in parts)
        partitioned = conn.execute(f"SELECT * FROM read_parquet([{listed}])").fetchall()
        serial = conn.execute(f"SELECT * FROM read_parquet('{outputs['parquet'] / table}.parquet')").fetchall()
        assert partitioned == serial, table
    assert several >= 5  # the check compares real splits, not single files


def test_duckdb_reads_each_table_with_a_glob_and_counts_as_sqlite(outputs: dict[str, Path]) -> None:
    serial = sqlite3.connect(outputs["sqlite"])
    conn = duckdb.connect()
    for table in vertical_spec(VERTICAL).tables:
        glob = outputs["w1"] / table / "*.parquet"
        (count,) = conn.execute(f"SELECT count(*) FROM read_parquet('{glob}')").fetchone()
        assert count == serial.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0], table


def test_partitioned_output_verifies(outputs: dict[str, Path]) -> None:
    assert [c for c in verify(outputs["w2"]) if not c.ok] == []


def test_each_part_names_its_days_and_they_follow_each_other(outputs: dict[str, Path]) -> None:
    spec = vertical_spec(VERTICAL)
    stamped = next(t for t in table_order(spec) if spec.tables[t].stamp and spec.tables[t].scaled)
    days = []
    for part in sorted((outputs["w1"] / stamped).glob("*.parquet")):
        meta = {k.decode(): v.decode() for k, v in pq.read_schema(part).metadata.items() if k.startswith(b"biarena")}
        assert meta["biarena.table"] == stamped and meta["biarena.partitions"] == str(PARTS)
        assert part.name == f"part-{int(meta['biarena.partition']):04d}.parquet"
        days.append((meta["biarena.first_day"], meta["biarena.last_day"]))
    assert len(days) > 1
    assert all(first <= last for first, last in days)
    assert all(a[1] <= b[0] for a, b in itertools.pairwise(days))


def test_a_chunk_is_the_same_whichever_chunks_were_drawn_before(tmp_path: Path) -> None:
    spec = vertical_spec("app_store")
    name = "app_user"  # no parents (its state needs no kept columns); categories with exact shares, Faker text
    index, calendar = table_order(spec).index(name), Calendar.of(spec)
    forward, backward = (table_state(spec, index, name, 0.1, 1, {}, calendar) for _ in range(2))
    plan = forward.plan(300)
    backward.plan(300)
    assert len(plan) > 2
    drawn = {number: draw_chunk(forward, number, *plan[number])[0] for number in range(len(plan))}
    for number in reversed(range(len(plan))):
        again, _ = draw_chunk(backward, number, *plan[number])
        assert again.keys() == drawn[number].keys()
        for column, values in again.items():
            assert np.array_equal(values, drawn[number][column]), (number, column)


def test_ray_writes_the_same_bytes(outputs: dict[str, Path], tmp_path: Path) -> None:
    pytest.importorskip("ray")
    spec = vertical_spec(VERTICAL)
    out = tmp_path / "ray"
    generate(spec, out, scale=SCALE, seed=SEED, chunk=CHUNK, partitions=PARTS, workers=2, engine="ray")
    assert digests(out) == digests(outputs["w1"])


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--partitions", "0"], "--partitions must be at least 1"),
        (["--partitions", "-2"], "--partitions must be at least 1"),
        (["--partitions", "5000"], "more than the"),
        (["--partitions", "2", "--format", "sqlite"], "--partitions needs --format parquet"),
        (["--partitions", "2", "--format", "duckdb"], "--partitions needs --format parquet"),
        (["--workers", "2"], "go with --partitions"),
        (["--partitions", "2", "--workers", "0"], "--workers must be at least 1"),
        (["--partitions", "2", "--engine", "spark"], "unknown engine 'spark'"),
        (["--partitions", "2", "--engine", "rey"], "unknown engine 'rey'; did you mean 'ray'?"),
        (["--partitions", "2", "--address", "10.0.0.1:6379"], "--address goes with --engine ray"),
    ],
)
def test_bad_partition_options_are_one_line(args: list[str], fragment: str, tmp_path: Path) -> None:
    assert_user_error(cli("synth", VERTICAL, "--scale", "0.01", "-o", tmp_path / "out", *args), fragment)
    assert not (tmp_path / "out").exists()


def test_the_command_line_writes_parts_that_verify(tmp_path: Path) -> None:
    result = cli("synth", VERTICAL, "--scale", "0.05", "-o", tmp_path / "out", "--partitions", "2", "--workers", "1")
    assert result.returncode == 0, result.stderr
    assert "verified: every rule holds" in result.stderr
    assert sorted(p.name for p in (tmp_path / "out" / "trip").glob("*.parquet")) == ["part-0000.parquet"]


def test_ray_missing_is_one_line_and_leaves_nothing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # as if not installed: importing it raises ImportError
    out = tmp_path / "out"
    with pytest.raises(UsageError, match=r"--engine ray needs Ray: pip install 'biarena\[ray\]'"):
        generate(vertical_spec(VERTICAL), out, scale=0.01, partitions=2, workers=2, engine="ray")
    assert list(tmp_path.iterdir()) == []


def test_workers_from_the_fork_server_write_the_same_bytes(
    outputs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Another thread runs here, so the workers may not be forked from this process: they come from the fork server.
    started = []
    start = task_graph.LocalEngine._start
    monkeypatch.setattr(
        task_graph.LocalEngine, "_start", lambda self, context: started.append(context) or start(self, context)
    )
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        out = tmp_path / "w3"
        generate(vertical_spec(VERTICAL), out, scale=SCALE, seed=SEED, chunk=CHUNK, partitions=PARTS, workers=3)
    finally:
        stop.set()
        other.join()
    assert started == [None]  # the fork server's context, made in the starting thread
    assert digests(out) == digests(outputs["w1"])


def _square_unless_three(value: int) -> int:
    if value == 3:
        raise ValueError("three")
    return value * value


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_the_local_engine_runs_a_call_once_those_it_follows_are_done(workers: int) -> None:
    engine = task_graph.LocalEngine(workers)
    try:
        seen: list[int] = []
        leaves = [Node(_square_unless_three, (v,), cost=v, done=seen.append) for v in (5, 1, 4, 2, 6, 7, 8)]
        total = Node(sum, lambda: ([n.result for n in leaves],), after=leaves, done=seen.append)
        again = Node(_square_unless_three, lambda: (total.result - 150,), after=[total])
        join = Node(None, after=[again], done=lambda _: seen.append(-again.result))
        engine.run([again, join, total, *leaves])
        assert [n.result for n in leaves] == [25, 1, 16, 4, 36, 49, 64]
        assert total.result == 195 and again.result == 45 * 45
        assert sorted(seen[:7]) == sorted(n.result for n in leaves)  # each leaf's `done` before what follows
        assert seen[7:] == [195, -(45 * 45)]
        engine.run([Node(_square_unless_three, (2,))])  # the engine runs graph after graph
        with pytest.raises(ValueError, match="three"):
            engine.run([Node(_square_unless_three, (v,)) for v in (1, 3, 2)])
    finally:
        engine.close()


def test_ready_calls_are_taken_longest_chain_first() -> None:
    order: list[str] = []
    short = [Node(str, (f"short{i}",), cost=1, done=order.append) for i in range(3)]
    head = Node(str, ("head",), cost=1, done=order.append)
    tail = Node(str, ("tail",), after=[head], cost=10, done=order.append)
    task_graph.LocalEngine(1).run([*short, tail, head])
    assert order[:2] == ["head", "tail"]  # the chain that costs most from its start to the end runs first
    with pytest.raises(ValueError, match="cycle"):
        a = Node(str)
        b = Node(str, after=[a])
        a.after.append(b)
        task_graph.TaskGraph([a, b])


def test_a_large_faker_pool_is_drawn_in_blocks_whose_first_is_the_one_seed_pool() -> None:
    spec = vertical_spec("food_delivery")
    name = "customer_address"  # street addresses: a pool of FAKER_POOL * 4 values above FAKER_POOL rows
    index = table_order(spec).index(name)
    rows = kernel.FAKER_POOL * 3
    blocks = kernel.pool_blocks(spec, name, index, rows, SEED)
    assert [b.size for b in blocks] == [kernel.FAKER_BLOCK] * 4
    assert len({b.seed for b in blocks}) == 4 and {b.key for b in blocks} == {"street"}
    # the first block is the first values of one Faker seeded as the whole pool once was
    first_seed = int(np.random.default_rng([SEED, index]).integers(0, 2**31))
    assert blocks[0].seed == first_seed
    fake = faker_pools.faker_of(spec.locale)
    fake.seed_instance(first_seed)
    once = [fake.street_address() for _ in range(kernel.FAKER_BLOCK)]
    assert kernel.faker_block(blocks[0]).tolist() == once
    # drawn in any order, the blocks make the pools the table draws from
    values = {i: kernel.faker_block(b) for i, b in reversed(list(enumerate(blocks)))}
    pools = kernel.assemble_pools(blocks, [values[i] for i in range(len(blocks))])
    state = table_state(spec, index, name, 1.0, SEED, {}, Calendar.of(spec))
    state.n = rows
    assert pools.keys() == state.faker_pools().keys()
    assert all(np.array_equal(pools[k], v) for k, v in state.faker_pools().items())
    assert len(pools["street"]) == kernel.FAKER_POOL * 4


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    for listing in Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            found |= {int(p) for p in listing.read_text().split()}
        except OSError:
            continue
    return found


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads the process tree from Linux's /proc")
def test_workers_end_with_a_synth_killed_alone(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "biarena", "synth", "food_delivery", "--scale", "3", "--partitions", "8"]
    driver = subprocess.Popen(
        [*command, "--workers", "3", "-o", str(tmp_path / "out")], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    workers: set[int] = set()
    try:
        deadline = time.monotonic() + 120
        while driver.poll() is None and time.monotonic() < deadline and len(workers) < 2:
            workers = {pid for pid in _children(driver.pid) if _running(pid)}
            time.sleep(0.02)
        assert driver.poll() is None and len(workers) >= 2, "the workers were not seen while synth ran"
        driver.kill()  # synth alone, as `kill -9 PID` does: not its process group
        driver.wait(30)
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait(30)
    deadline = time.monotonic() + 20
    while (left := {pid for pid in workers if _running(pid)}) and time.monotonic() < deadline:
        time.sleep(0.1)
    for pid in left:  # no stray process outlives a failing test
        os.kill(pid, signal.SIGKILL)
    assert not left, f"workers still running after synth's SIGKILL: {sorted(left)}"
