"""`import bird`, `import spider` and `import spider2-lite` on fixtures in the published layouts: what they read,
the counts they print, paths kept inside the given folder, and bad input as one line."""

import json
import os
from pathlib import Path

import pytest

from biarena.agents.external import request_payload
from biarena.agents.system import AgentEnv
from biarena.benchmarks import load_benchmark
from biarena.db import DatabasePool
from tests.cli_in_process import cli
from tests.published_layouts import (
    BIRD_QUESTIONS,
    SPIDER2_QUESTIONS,
    bird_layout,
    spider2_lite_layout,
    spider_layout,
)
from tests.test_cli import assert_user_error


def imported(fmt: str, source: Path, out: Path, *options: str) -> str:
    result = cli("import", fmt, source, "-o", out, *options)
    assert result.returncode == 0, result.stderr
    return result.stderr


def test_bird_evidence_difficulty_and_descriptions(tmp_path: Path) -> None:
    said = imported("bird", bird_layout(tmp_path / "bird"), tmp_path / "out")
    assert "imported 4 questions over 2 database(s)" in said
    bench = load_benchmark(tmp_path / "out")
    assert [q.id for q in bench.questions] == ["0", "1", "2", "3"]
    first = bench.question("0")
    assert first.knowledge == "paid refers to status = 'paid'"
    assert first.labels == ["bird:simple"] and first.gold_sql == [BIRD_QUESTIONS[0]["SQL"]]
    assert bench.question("1").knowledge is None  # BIRD's empty evidence
    assert {q.category("bird") for q in bench.questions} == {"simple", "moderate", "challenging"}
    described = bench.databases["shop"].description or ""
    assert "status 'order status' (text): where the order stands; values: paid / refunded / open" in described
    assert "Orléans" in described  # a Windows-1252 description file is read, not refused
    assert bench.databases["club"].description is None


def test_bird_evidence_is_shown_to_agents_and_can_be_left_out(tmp_path: Path) -> None:
    imported("bird", bird_layout(tmp_path / "bird"), tmp_path / "with")
    bench = load_benchmark(tmp_path / "with")
    payload = request_payload(bench.question("0"), AgentEnv(bench, DatabasePool(bench)))
    assert payload["knowledge"] == "External knowledge: paid refers to status = 'paid'"
    assert "order amount in euros" in payload["schema"]  # the column descriptions reach the schema systems see
    assert bench.knowledge_for(bench.question("1")) is None

    imported("bird", tmp_path / "bird", tmp_path / "without", "-O", "evidence=false")
    assert all(q.knowledge is None for q in load_benchmark(tmp_path / "without").questions)
    imported("bird", tmp_path / "bird", tmp_path / "flag", "--no-evidence")  # the same, as a flag
    assert all(q.knowledge is None for q in load_benchmark(tmp_path / "flag").questions)
    refused = cli("import", "spider", tmp_path / "bird", "-o", tmp_path / "s", "--no-evidence")
    assert refused.returncode == 2 and "evidence" in refused.stderr and len(refused.stderr.strip().splitlines()) == 1


def test_bird_mini_dev_file_and_the_question_file_itself(tmp_path: Path) -> None:
    root = bird_layout(tmp_path / "mini", file="mini_dev_sqlite.json")
    imported("bird", root, tmp_path / "a")
    assert load_benchmark(tmp_path / "a").name == "bird-mini_dev_sqlite"
    imported("bird", root / "mini_dev_sqlite.json", tmp_path / "b")
    assert len(load_benchmark(tmp_path / "b").questions) == 4


def test_spider_hardness_labels_and_glossary(tmp_path: Path) -> None:
    said = imported("spider", spider_layout(tmp_path / "spider"), tmp_path / "out")
    assert "imported 4 questions over 2 database(s)" in said
    bench = load_benchmark(tmp_path / "out")
    assert [q.labels for q in bench.questions] == [["spider:easy"], ["spider:easy"], ["spider:hard"], ["spider:hard"]]
    assert "customer_id (number) 'customer id'" in (bench.databases["shop"].description or "")


def test_spider2_lite_local_instances_gold_tables_and_documents(tmp_path: Path) -> None:
    said = imported("spider2-lite", spider2_lite_layout(tmp_path / "s2"), tmp_path / "out")
    assert "skipped 2 instance(s) on cloud warehouses" in said
    assert "imported 3 questions over 2 database(s)" in said
    bench = load_benchmark(tmp_path / "out")
    assert [q.id for q in bench.questions] == ["local001", "local002", "local003"]
    one, two, three = bench.questions
    assert one.gold_results[0].rows == [["Oslo", 0], ["Paris", 60.5]] and one.gold_sql
    assert one.evidence == {"condition_cols": [1], "ignore_order": True}
    assert two.knowledge is not None and two.knowledge.startswith("# Refund rate")
    assert two.evidence == {"ignore_order": True} and not two.gold_sql
    assert [t.columns for t in three.gold_results] == [["name"], ["name", "age"]]


def _rewrite(path: Path, change) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


@pytest.mark.parametrize(
    ("break_it", "fragment"),
    [
        (lambda root: (root / "dev.json").unlink(), "no dev.json or mini_dev_sqlite.json"),
        (lambda root: (root / "dev.json").write_text("[{"), "invalid JSON"),
        (lambda root: _rewrite(root / "dev.json", lambda d: d[1].pop("SQL")), "question 1: missing field 'SQL'"),
        (lambda root: _rewrite(root / "dev.json", lambda d: d[2].update(db_id="nope")), "unknown database 'nope'"),
        (lambda root: _rewrite(root / "dev.json", lambda d: d[0].update(db_id="../x")), "is not a plain name"),
        (lambda root: _rewrite(root / "dev.json", lambda d: d[0].update(difficulty="easy")), "is not one of"),
        (lambda root: _rewrite(root / "dev.json", lambda d: d[1].update(question_id=0)), "repeats question 0"),
    ],
)
def test_bird_bad_input_is_one_line(tmp_path: Path, break_it, fragment: str) -> None:
    root = bird_layout(tmp_path / "bird")
    break_it(root)
    assert_user_error(cli("import", "bird", root, "-o", tmp_path / "out"), fragment)
    assert not (tmp_path / "out").exists()


def test_a_database_linked_from_outside_is_refused(tmp_path: Path) -> None:
    root = bird_layout(tmp_path / "bird")
    outside = tmp_path / "elsewhere.sqlite"
    os.replace(root / "dev_databases" / "club" / "club.sqlite", outside)
    (root / "dev_databases" / "club" / "club.sqlite").symlink_to(outside)
    assert_user_error(cli("import", "bird", root, "-o", tmp_path / "out"), "outside")

    spider = spider_layout(tmp_path / "spider")
    os.replace(spider / "database" / "club" / "club.sqlite", tmp_path / "club2.sqlite")
    (spider / "database" / "club" / "club.sqlite").symlink_to(tmp_path / "club2.sqlite")
    assert_user_error(cli("import", "spider", spider, "-o", tmp_path / "out2"), "outside")


@pytest.mark.parametrize(
    ("break_it", "fragment"),
    [
        (lambda root: (root / "tables.json").unlink(), "no tables.json"),
        (lambda root: (root / "dev.json").write_text("{"), "invalid JSON"),
        (lambda root: _rewrite(root / "dev.json", lambda d: d[0].pop("query")), "question 0: missing field 'query'"),
        (lambda root: _rewrite(root / "dev.json", lambda d: d[3].update(db_id="gone")), "unknown database 'gone'"),
        (lambda root: _rewrite(root / "dev.json", lambda d: d[0].update(db_id="..")), "is not a plain name"),
    ],
)
def test_spider_bad_input_is_one_line(tmp_path: Path, break_it, fragment: str) -> None:
    root = spider_layout(tmp_path / "spider")
    break_it(root)
    assert_user_error(cli("import", "spider", root, "-o", tmp_path / "out"), fragment)


def _jsonl(items: list[dict]) -> str:
    return "\n".join(json.dumps(i) for i in items) + "\n"


@pytest.mark.parametrize(
    ("break_it", "fragment"),
    [
        (lambda root: (root / "spider2-lite.jsonl").unlink(), "no spider2-lite.jsonl"),
        (lambda root: (root / "spider2-lite.jsonl").write_text('{"instance_id": "local001",\n'), "invalid JSON"),
        (lambda root: (root / "evaluation_suite/gold/spider2lite_eval.jsonl").unlink(), "spider2lite_eval.jsonl"),
        (
            lambda root: (root / "spider2-lite.jsonl").write_text(_jsonl([{"instance_id": "local001", "db": "shop"}])),
            "missing field 'question'",
        ),
        (
            lambda root: (root / "spider2-lite.jsonl").write_text(
                _jsonl([{**SPIDER2_QUESTIONS[0], "db": "missing"}])
            ),
            "unknown database 'missing'",
        ),
        (
            lambda root: (root / "spider2-lite.jsonl").write_text(
                _jsonl([{**SPIDER2_QUESTIONS[2], "external_knowledge": "../../secret.md"}])
            ),
            "is not a plain name",
        ),
        (
            lambda root: (root / "spider2-lite.jsonl").write_text(_jsonl([SPIDER2_QUESTIONS[1]])),
            "no SQLite (local) instances (1 on cloud warehouses)",
        ),
        (lambda root: (root / "evaluation_suite/gold/exec_result/local002.csv").write_text(""), "local002.csv: empty"),
    ],
)
def test_spider2_lite_bad_input_is_one_line(tmp_path: Path, break_it, fragment: str) -> None:
    root = spider2_lite_layout(tmp_path / "s2")
    break_it(root)
    assert_user_error(cli("import", "spider2-lite", root, "-o", tmp_path / "out"), fragment)


def test_spider2_lite_gold_linked_from_outside_is_refused(tmp_path: Path) -> None:
    root = spider2_lite_layout(tmp_path / "s2")
    gold = root / "evaluation_suite" / "gold" / "exec_result" / "local001.csv"
    (tmp_path / "stolen.csv").write_text("a\n1\n")
    gold.unlink()
    gold.symlink_to(tmp_path / "stolen.csv")
    assert_user_error(cli("import", "spider2-lite", root, "-o", tmp_path / "out"), "outside")
