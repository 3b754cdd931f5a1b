"""Every built-in vertical is at least as big as CORGI's published database (CORGI, Table 1): the same tables,
at least its columns per table and foreign keys; `synth list` prints both side by side."""

import os
import subprocess
import sys

import pytest

from biarena.synth import VERTICALS, corgi_figures, vertical_spec


def test_corgi_figures_cover_every_vertical() -> None:
    assert [name for name in VERTICALS.builtin_names() if corgi_figures(name) is None] == []


@pytest.mark.parametrize("name", VERTICALS.builtin_names())
def test_each_vertical_reaches_corgis_schema_figures(name: str) -> None:
    ours, corgi = vertical_spec(name).figures(), corgi_figures(name)
    assert corgi is not None
    assert ours.tables == corgi.tables
    assert ours.columns_per_table >= corgi.columns_per_table, (ours, corgi)
    assert ours.foreign_keys >= corgi.foreign_keys, (ours, corgi)


def test_synth_list_prints_ours_beside_corgis() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "biarena", "synth", "list"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert result.returncode == 0, result.stderr
    line = next(line for line in result.stdout.splitlines() if "car_rental" in line)
    figures = vertical_spec("car_rental").figures()
    assert f"{figures.columns_per_table} (6.7)" in line and f"{figures.foreign_keys} (68)" in line
    assert "30 (30)" in line
