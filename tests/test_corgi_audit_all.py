"""The whole CORGI suite (all ten verticals at scale 0.2) audited through the command line: counts, forms, leaks,
naive forecasts and answerability, as a researcher reads them."""

import re
from pathlib import Path

import pytest

from biarena.benchmarks import load_benchmark
from biarena.generate.corgi_suite.audit import TYPES, audit
from biarena.synth import vertical_names
from tests.test_cli import biarena


@pytest.fixture(scope="module")
def audited(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("corgi-all") / "suite"
    # ten verticals generated, verified and written: minutes on a busy 2-core machine
    result = biarena("suite", "corgi", "--scale", "0.2", "--audit", "-o", out, timeout=1200)
    assert result.returncode == 0, result.stderr
    return out, result.stdout + result.stderr


def _row(text: str, figure: str) -> list[int]:
    match = re.search(rf"{re.escape(figure)}\W+(\d+)\W+(\d+)\W+(\d+)\W+(\d+)", text)
    assert match, text
    return [int(n) for n in match.groups()]


def test_the_printed_audit_meets_the_suites_bar(audited: tuple[Path, str]) -> None:
    _, text = audited
    assert min(_row(text, "fewest questions in a vertical")) >= 30
    assert min(_row(text, "distinct question forms")) >= 15
    assert re.search(r"leaks \(reference figures in what agents see\): 0\b", text)
    hits, total = map(int, re.search(r"within 10%: (\d+) of (\d+)", text).groups())
    assert total >= 100 and hits * 3 <= total
    assert "unanswerable questions: 0 (none)" in text
    assert "questions naming a column, a code or an exact date: 0 (none)" in text


def test_the_audit_counts_every_vertical_and_checks_every_reference(audited: tuple[Path, str]) -> None:
    out, _ = audited
    benchmark = load_benchmark(out)
    figures = audit(benchmark)
    assert set(figures.counts) == set(vertical_names())
    for name, counts in figures.counts.items():
        assert all(counts[kind] >= 30 for kind in TYPES), (name, counts)
    assert not figures.leaks and not figures.unanswerable and not figures.jargon
    for question in benchmark.questions:
        if "corgi:type1" in question.labels:
            continue
        # every type 2-4 reference says which hidden parameters and which rows support it
        assert question.evidence and question.evidence["parameters"], question.id
        assert question.evidence["support_sql"], question.id
