"""A SQLite output written by a process of its own while the chunks are drawn: the same file, errors brought back."""

import hashlib
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from biarena.errors import BiarenaError
from biarena.synth import generate, verify, vertical_spec
from biarena.synth.generator import WRITER_PROCESS_ROWS, expected_rows
from biarena.synth.writer_process import WriterProcess
from biarena.synth.writers import TableDef


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize(("name", "seed"), [("food_delivery", 0), ("car_rental", 3)])
def test_the_file_is_the_same_byte_for_byte_with_and_without_the_process(name: str, seed: int, tmp_path: Path) -> None:
    spec = vertical_spec(name)
    # small chunks, so that many chunks cross the pipe and tables span several of them
    alone = generate(spec, tmp_path / "alone.db", scale=0.2, seed=seed, chunk=2_000, writer_process=False)
    beside = generate(spec, tmp_path / "beside.db", scale=0.2, seed=seed, chunk=2_000, writer_process=True)
    assert alone == beside and sum(alone.values()) > 10_000
    assert digest(tmp_path / "alone.db") == digest(tmp_path / "beside.db")
    assert [c for c in verify(tmp_path / "beside.db") if not c.ok] == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["alone.db", "beside.db"]


def test_the_writer_process_threshold_lies_between_scale_0_1_and_scale_10() -> None:
    spec = vertical_spec("food_delivery")
    assert expected_rows(spec, 10.0) >= WRITER_PROCESS_ROWS > expected_rows(spec, 0.1)


def test_an_error_in_the_writer_process_is_raised_here(tmp_path: Path) -> None:
    writer = WriterProcess("sqlite", tmp_path / "x.db")
    writer.create(TableDef(name="t", types={"a": "int"}, primary_key="a", references={}))
    writer.append("t", {"a": np.array([1, 2], dtype=np.int64)})
    writer.append("t", {"a": np.array([2], dtype=np.int64)})  # a duplicate primary key
    with pytest.raises(sqlite3.IntegrityError, match="UNIQUE"):
        writer.close({"seed": "0"})
    writer.abort()


def test_a_writer_process_that_dies_is_one_clear_error(tmp_path: Path) -> None:
    writer = WriterProcess("sqlite", tmp_path / "x.db")
    writer.create(TableDef(name="t", types={"a": "int"}, primary_key="a", references={}))
    writer._process.kill()
    writer._process.join()
    with pytest.raises(BiarenaError, match="writer process ended"):
        for _ in range(100):  # the pipe takes a few messages before it knows its other end is gone
            writer.append("t", {"a": np.arange(100_000, dtype=np.int64)})
        writer.close({"seed": "0"})
    writer.abort()


def test_an_output_under_a_file_is_one_line_and_exit_2(tmp_path: Path) -> None:
    from tests.test_cli_output import cli, one_line_error

    (tmp_path / "file.db").write_text("not a folder", encoding="utf-8")
    done = cli("synth", "food_delivery", "--scale", "0.01", "-o", tmp_path / "file.db" / "x.db")
    one_line_error(done, "cannot write")
    assert (tmp_path / "file.db").read_text(encoding="utf-8") == "not a folder"
