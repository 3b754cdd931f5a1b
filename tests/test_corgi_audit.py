"""The CORGI suite's audit: leaks of hidden figures into what agents see, naive forecasts, answerability."""

import re
from pathlib import Path

import pytest

import biarena.generate.corgi_suite as corgi_suite
from biarena.errors import FormatError
from biarena.generate.corgi_suite.audit import figures, leaks
from biarena.records import Benchmark, DatabaseRef, Question
from biarena.synth import vertical_names, vertical_spec
from biarena.synth.spec import Briefing
from tests.test_cli import biarena


def test_figures_are_percentages_and_decimals_not_tolerances() -> None:
    text = "About 1,234 (tolerance ±10%). December runs at 1.20 times the usual level (+20%); 30 days; 15% off."
    assert figures(text) == {"1.20", "+20%", "15%"}


def benchmark_with(reference: str, description: str) -> Benchmark:
    question = Question(id="shop/type2/000", text="Why?", database="shop", reference_answer=reference)
    return Benchmark(
        name="b", databases={"shop": DatabaseRef(path="shop.db", description=description)}, questions=[question]
    )


def test_a_reference_figure_in_the_briefing_is_a_leak() -> None:
    leaked = leaks(benchmark_with("December runs at +20% because of holidays.", "Demand: December +20%."))
    assert [(leak.question, leak.figure) for leak in leaked] == [("shop/type2/000", "+20%")]
    assert leaks(benchmark_with("December runs at +20%.", "We keep 20% of each sale.")) == []
    assert leaks(benchmark_with("Growth is about 15% a year.", "Promo codes take 15% off.")) != []


def test_every_built_in_vertical_keeps_its_parameters_out_of_its_briefing() -> None:
    for name in vertical_names():
        spec = vertical_spec(name)
        assert spec.public is not None, name
        briefing = spec.briefing()
        hidden = {f"{(f - 1) * 100:+.0f}%" for f in spec.seasonality.months.values()}
        assert not {h for h in hidden if h in briefing}, name
        assert not re.search(r"\w+ \d+%, \w+ \d+%", briefing), name  # no segment shares


def test_the_suite_refuses_to_build_when_the_briefing_gives_answers_away(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def leaky(name: str):
        spec = vertical_spec(name)
        return spec.model_copy(update={"public": Briefing(description=spec.description)})

    monkeypatch.setattr(corgi_suite, "vertical_spec", leaky)
    with pytest.raises(FormatError, match="reference figures appear verbatim in what agents are shown"):
        corgi_suite.make_suite(tmp_path, ["food_delivery"], scale=0.05)


def test_audit_prints_the_suites_quality_figures(tmp_path: Path) -> None:
    out = tmp_path / "suite"
    result = biarena(
        "suite", "corgi", "--verticals", "app_store,clothing_ecommerce", "--scale", "0.1", "--audit", "-o", out
    )
    assert result.returncode == 0, result.stderr
    text = result.stdout + result.stderr
    assert "suite audit" in text and "distinct question forms" in text
    assert re.search(r"leaks \(reference figures in what agents see\): 0\b", text)
    hits, total = map(int, re.search(r"within 10%: (\d+) of (\d+)", text).groups())
    assert total >= 6 and hits * 3 <= total
    assert "unanswerable questions: 0 " in text


def test_audit_finds_references_whose_supporting_rows_are_gone(tmp_path: Path) -> None:
    import sqlite3

    from biarena.benchmarks import load_benchmark
    from biarena.generate.corgi_suite.audit import audit

    out = tmp_path / "suite"
    corgi_suite.build(out, verticals=["food_delivery"], scale=0.05)
    benchmark = load_benchmark(out)
    assert audit(benchmark).unanswerable == []
    event = vertical_spec("food_delivery").planted[0]
    conn = sqlite3.connect(benchmark.database_location("food_delivery"))
    conn.execute(f'DELETE FROM "{event.cause["table"]}" WHERE note = ?', (event.cause["row"]["note"],))
    conn.commit()
    conn.close()
    gone = audit(benchmark).unanswerable
    asked = {q.id for q in benchmark.questions if (q.evidence or {}).get("event") == event.name}
    assert asked and set(gone) == asked
