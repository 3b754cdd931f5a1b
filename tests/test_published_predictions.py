"""Published predictions files scored with their benchmark's contract: the figure biarena gives equals the one the
peer's documented rule gives on the same fixture, computed here on its own (BIRD: set(predicted rows) == set(gold
rows); Spider: execution match with DISTINCT removed, order only when the gold says ORDER BY; Spider 2.0: each gold
column found among the predicted ones after the CSV round trip, within 0.01, condition_cols and ignore_order)."""

import io
import itertools
import json
import math
import sqlite3
from collections import Counter
from contextlib import closing
from pathlib import Path

import pandas as pd
import pytest

from biarena.agents.predictions import load_bird_predictions, load_spider_predictions
from biarena.api.results import results
from biarena.benchmarks import load_benchmark
from biarena.metrics.contract_match import remove_distinct
from tests.cli_in_process import cli
from tests.published_layouts import SPIDER2_EVAL, SPIDER2_GOLD, bird_layout, spider2_lite_layout, spider_layout
from tests.test_cli import assert_user_error


def ok(*args: str | Path) -> None:
    result = cli(*args)
    assert result.returncode == 0, result.stderr


def figure(run: Path, column: str) -> float:
    return float(results(run)[column].mean())


def rows(db: Path, sql: str) -> list[tuple] | None:
    with closing(sqlite3.connect(db)) as conn:
        try:
            return conn.execute(sql).fetchall()
        except sqlite3.Error:
            return None


def imported(fmt: str, layout: Path, out: Path) -> Path:
    ok("import", fmt, layout, "-o", out)
    return out


BIRD_PREDICTIONS = {
    # right
    "0": "SELECT COUNT(*) FROM orders WHERE status = 'paid'\t----- bird -----\tshop",
    # right: another order, which BIRD's set comparison ignores
    "1": "SELECT name FROM customers WHERE city = 'Paris' ORDER BY name DESC\t----- bird -----\tshop",
    # wrong: refunded orders counted too
    "2": "SELECT c.city, SUM(o.amount) FROM orders o JOIN customers c ON o.customer_id = c.id GROUP BY c.city"
    "\t----- bird -----\tshop",
    # right: the same row twice, which a set ignores
    "3": "SELECT name FROM member WHERE age = 45 UNION ALL SELECT name FROM member WHERE age = 45"
    "\t----- bird -----\tclub",
}


def test_bird_predictions_reproduce_birds_figure(tmp_path: Path) -> None:
    bench = imported("bird", bird_layout(tmp_path / "bird"), tmp_path / "bench")
    predictions = tmp_path / "predict_dev.json"
    predictions.write_text(json.dumps(BIRD_PREDICTIONS))
    run = tmp_path / "run.sqlite"
    ok("run", bench, "--system", "predictions", "--predictions", predictions, "--format", "bird", "-o", run)
    ok("score", run, "--contract", "bird")

    benchmark = load_benchmark(bench)
    verdicts = []
    for position, question in enumerate(benchmark.questions):
        sql, db_id = BIRD_PREDICTIONS[str(position)].split("\t----- bird -----\t")
        db = Path(benchmark.database_location(db_id))
        predicted, gold = rows(db, sql), rows(db, question.gold_sql[0])
        verdicts.append(int(predicted is not None and set(predicted) == set(gold or [])))
    assert verdicts == [1, 1, 0, 1]
    assert figure(run, "execution_accuracy[bird]") == pytest.approx(sum(verdicts) / len(verdicts))


def test_bird_gold_run_scores_every_question(tmp_path: Path) -> None:
    bench = imported("bird", bird_layout(tmp_path / "bird"), tmp_path / "bench")
    ok("run", bench, "--system", "gold", "-o", tmp_path / "gold.sqlite")
    ok("score", tmp_path / "gold.sqlite", "--contract", "bird")
    assert figure(tmp_path / "gold.sqlite", "execution_accuracy[bird]") == 1.0


def test_bird_prediction_for_another_database_is_an_error_not_a_match(tmp_path: Path) -> None:
    bench = imported("bird", bird_layout(tmp_path / "bird"), tmp_path / "bench")
    shifted = {"0": "SELECT name FROM member\t----- bird -----\tclub"}
    (tmp_path / "p.json").write_text(json.dumps(shifted))
    run = tmp_path / "run.sqlite"
    cli(
        "run",
        bench,
        "--system",
        "predictions",
        "--predictions",
        tmp_path / "p.json",
        "--format",
        "bird",
        "--partial",
        "-o",
        run,
    )
    errors = dict(zip(results(run)["question_id"], results(run)["error"], strict=True))
    assert "is for database 'club', not 'shop'" in errors["0"]
    assert errors["1"] == "no prediction for this question"


SPIDER_PREDICTIONS = [
    "SELECT count(*) FROM customers",
    # right: the gold has neither ORDER BY nor a reason to keep DISTINCT, so order and duplicates are free
    "SELECT name FROM customers WHERE city = 'Paris' ORDER BY name DESC",
    # wrong: the gold orders largest first
    "SELECT T1.name, sum(T2.amount) FROM customers AS T1 JOIN orders AS T2 ON T1.id = T2.customer_id "
    "GROUP BY T1.name ORDER BY sum(T2.amount) ASC",
    # right; Spider's files may carry the database after a tab
    "SELECT name FROM member WHERE age > 34\tclub",
]


def _spider_exec_match(db: Path, predicted_sql: str, gold_sql: str) -> int:
    """Spider's execution match as its evaluator documents it."""
    predicted, gold = rows(db, remove_distinct(predicted_sql)), rows(db, remove_distinct(gold_sql))
    if predicted is None or gold is None:
        return 0
    if not predicted and not gold:
        return 1
    if len(predicted) != len(gold) or len(predicted[0]) != len(gold[0]):
        return 0
    ordered = "order by" in gold_sql.lower()
    for columns in itertools.permutations(range(len(gold[0]))):
        permuted = [tuple(row[i] for i in columns) for row in predicted]
        if (permuted == gold) if ordered else (Counter(permuted) == Counter(gold)):
            return 1
    return 0


def test_spider_predictions_reproduce_spiders_figure(tmp_path: Path) -> None:
    bench = imported("spider", spider_layout(tmp_path / "spider"), tmp_path / "bench")
    predictions = tmp_path / "pred.txt"
    predictions.write_text("\n".join(SPIDER_PREDICTIONS) + "\n\n")
    run = tmp_path / "run.sqlite"
    ok("run", bench, "--system", "predictions", "--predictions", predictions, "--format", "spider", "-o", run)
    ok("score", run, "--contract", "spider")

    benchmark = load_benchmark(bench)
    verdicts = [
        _spider_exec_match(
            Path(benchmark.database_location(q.database)), SPIDER_PREDICTIONS[i].split("\t")[0], q.gold_sql[0]
        )
        for i, q in enumerate(benchmark.questions)
    ]
    assert verdicts == [1, 1, 0, 1]
    assert figure(run, "execution_accuracy[spider]") == pytest.approx(sum(verdicts) / len(verdicts))


def test_spider_gold_run_and_a_short_predictions_file(tmp_path: Path) -> None:
    bench = imported("spider", spider_layout(tmp_path / "spider"), tmp_path / "bench")
    ok("run", bench, "--system", "gold", "-o", tmp_path / "gold.sqlite")
    ok("score", tmp_path / "gold.sqlite", "--contract", "spider")
    assert figure(tmp_path / "gold.sqlite", "execution_accuracy[spider]") == 1.0

    (tmp_path / "short.txt").write_text(SPIDER_PREDICTIONS[0] + "\n")
    run = tmp_path / "short.sqlite"
    short = tmp_path / "short.txt"
    cli("run", bench, "--system", "predictions", "--predictions", short, "--format", "spider", "--partial", "-o", run)
    assert list(results(run)["error"].fillna("")) == [""] + ["no prediction for this question"] * 3


SPIDER2_PREDICTIONS = {
    # right: rows in another order (ignore_order), the columns renamed, an extra column: all ignored
    "local001": "SELECT c.city AS place, COALESCE(SUM(CASE WHEN o.status = 'paid' THEN o.amount END), 0) AS t, "
    "42 AS extra FROM customers c LEFT JOIN orders o ON o.customer_id = c.id GROUP BY c.city ORDER BY c.city DESC",
    # right: 0 and 1 against 0.0 and 1.0, within the tolerance
    "local002": "SELECT name, AVG(status = 'refunded') FROM customers c JOIN orders o ON o.customer_id = c.id "
    "GROUP BY name",
    # wrong: the youngest member
    "local003": "SELECT name, age FROM member ORDER BY age LIMIT 1",
}


def _through_csv(frame: pd.DataFrame) -> pd.DataFrame:
    buffer = io.StringIO()
    frame.to_csv(buffer, index=False)
    return pd.read_csv(io.StringIO(buffer.getvalue()))


def _same_column(gold: list, predicted: list, ignore_order: bool) -> bool:
    if ignore_order:
        key = lambda x: (x is None, str(x), isinstance(x, int | float))  # noqa: E731 - Spider 2.0's sort key
        gold, predicted = sorted(gold, key=key), sorted(predicted, key=key)
    if len(gold) != len(predicted):
        return False
    for a, b in zip(gold, predicted, strict=True):
        if pd.isna(a) and pd.isna(b):
            continue
        if isinstance(a, int | float) and isinstance(b, int | float):
            if not math.isclose(float(a), float(b), abs_tol=1e-2):
                return False
        elif a != b:
            return False
    return True


def _spider2_match(predicted: pd.DataFrame, gold: pd.DataFrame, columns: list[int], ignore_order: bool) -> int:
    """Spider 2.0's compare_pandas_table as its evaluator documents it."""
    gold = gold.iloc[:, columns] if columns else gold
    candidates = predicted.transpose().values.tolist()
    return int(all(any(_same_column(g, p, ignore_order) for p in candidates) for g in gold.transpose().values.tolist()))


def test_spider2_lite_results_reproduce_spider2s_figure(tmp_path: Path) -> None:
    layout = spider2_lite_layout(tmp_path / "s2")
    bench = imported("spider2-lite", layout, tmp_path / "bench")
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text("\n".join(json.dumps({"question_id": k, "sql": v}) for k, v in SPIDER2_PREDICTIONS.items()))
    run = tmp_path / "run.sqlite"
    ok("run", bench, "--system", "predictions", "--predictions", predictions, "-o", run)
    ok("score", run, "--contract", "spider2")

    settings = {e["instance_id"]: e for e in SPIDER2_EVAL}
    benchmark = load_benchmark(bench)
    verdicts = []
    for instance, sql in SPIDER2_PREDICTIONS.items():
        with closing(sqlite3.connect(benchmark.database_location(benchmark.question(instance).database))) as conn:
            predicted = _through_csv(pd.read_sql_query(sql, conn))
        golds = [pd.read_csv(io.StringIO(text)) for name, text in sorted(SPIDER2_GOLD.items()) if name[:8] == instance]
        columns = settings[instance]["condition_cols"] or [[]]
        per_gold = columns if all(isinstance(c, list) for c in columns) else [columns] * len(golds)
        ignore = settings[instance]["ignore_order"]
        verdicts.append(max(_spider2_match(predicted, g, per_gold[i], ignore) for i, g in enumerate(golds)))
    assert verdicts == [1, 1, 0]
    assert figure(run, "execution_accuracy[spider2]") == pytest.approx(sum(verdicts) / len(verdicts))


def test_spider2_lite_second_accepted_result_and_gold_sql(tmp_path: Path) -> None:
    bench = imported("spider2-lite", spider2_lite_layout(tmp_path / "s2"), tmp_path / "bench")
    (tmp_path / "p.jsonl").write_text(
        json.dumps({"question_id": "local003", "sql": "SELECT name, age FROM member ORDER BY age DESC LIMIT 1"})
    )
    run = tmp_path / "run.sqlite"
    cli("run", bench, "--system", "predictions", "--predictions", tmp_path / "p.jsonl", "--partial", "-o", run)
    ok("score", run, "--contract", "spider2")
    table = results(run)
    assert table.loc[table["question_id"] == "local003", "execution_accuracy[spider2]"].tolist() == [1.0]

    gold = tmp_path / "gold.sqlite"  # only local001 ships its gold SQL
    cli("run", bench, "--system", "gold", "-o", gold)
    ok("score", gold, "--contract", "spider2")
    scored = dict(zip(results(gold)["question_id"], results(gold)["execution_accuracy[spider2]"], strict=True))
    assert scored["local001"] == 1.0


def test_a_bad_published_predictions_file_is_one_line(tmp_path: Path) -> None:
    bench = imported("bird", bird_layout(tmp_path / "bird"), tmp_path / "bench")
    (tmp_path / "list.json").write_text("[]")
    (tmp_path / "keys.json").write_text(json.dumps({"first": "SELECT 1"}))
    base = ("run", bench, "--system", "predictions", "--format", "bird", "-o", tmp_path / "r.sqlite", "--predictions")
    assert_user_error(cli(*base, tmp_path / "list.json"), "expected a JSON object")
    assert_user_error(cli(*base, tmp_path / "keys.json"), "is not a position")
    assert_user_error(cli(*base, tmp_path / "absent.json"), "not found")
    assert_user_error(
        cli("run", bench, "--system", "predictions", "--predictions", tmp_path / "keys.json", "--format", "csv",
            "-o", tmp_path / "r.sqlite"),
        "format",
    )


def test_published_files_are_read_as_their_evaluators_read_them(tmp_path: Path) -> None:
    spider = tmp_path / "pred.txt"
    lines = ["SELECT a FROM t WHERE b = value AND c = 2\tdb1", "", "  ", "SELECT value FROM t", "SELECT t.value FROM t"]
    spider.write_text("\n".join(lines) + "\n")
    # blank lines skipped; what follows a tab dropped; " value " is the evaluator's placeholder for a value, replaced
    # wherever it stands between spaces (a column called value too, as the evaluator does)
    assert load_spider_predictions(spider) == {
        0: "SELECT a FROM t WHERE b = 1 AND c = 2",
        1: "SELECT 1 FROM t",
        2: "SELECT t.value FROM t",
    }
    bird = tmp_path / "predict_dev.json"
    bird.write_text(json.dumps({"0": "SELECT 1\t----- bird -----\tshop", "1": None, "2": "SELECT 2"}))
    assert load_bird_predictions(bird) == {0: ("SELECT 1", "shop"), 1: (None, None), 2: ("SELECT 2", None)}
