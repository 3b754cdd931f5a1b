"""`generate roles`: a roles file drafted from the schema, that a person can read and the factory can use."""

from pathlib import Path

import pytest
import yaml

from biarena.db import open_database
from biarena.generate.factory import generate_question_set, latest_time
from biarena.generate.roles import Roles, load_roles
from biarena.generate.roles_check import check_roles
from biarena.generate.roles_draft import draft_roles
from biarena.synth import generate, vertical_names, vertical_spec
from tests.shop_engines import make_shop, write_sqlite
from tests.test_cli import assert_user_error, biarena

MIN_QUESTIONS = 20
"""Questions a drafted roles file must give per database, each with gold that runs."""


def _questions_from_draft(location: str | Path, name: str) -> int:
    with open_database(location) as db:
        text = draft_roles(db, name)
        roles = Roles.model_validate(yaml.safe_load(text))
        check_roles(roles, db, "draft")
        anchor = latest_time(db, roles)
        made = generate_question_set(db, roles, languages=("en",), per_category=3, seed=0, now=anchor)
        for question in made.questions:
            db.execute(question.gold_sql[0], now=anchor)
        return len(made.questions)


def test_draft_of_the_shop_reads_like_a_hand_written_one(tmp_path: Path) -> None:
    path = write_sqlite(make_shop(orders=300), tmp_path / "shop.sqlite")
    with open_database(path) as db:
        text = draft_roles(db, "shop")
    assert text.startswith("# Column roles of shop")
    roles = Roles.model_validate(yaml.safe_load(text))
    orders = next(f for f in roles.facts if f.table == "orders")
    assert orders.time is not None and orders.time.column == "order_date" and orders.time.grain == "hour"
    metrics = {m.column: m.aggregations for m in orders.metrics}
    assert metrics["revenue"] == ["sum", "avg"] and metrics["discount_rate"] == ["avg", "max"]
    assert "customer_id" not in metrics and "order_id" not in metrics
    dimensions = {(d.table, d.column) for d in orders.dimensions}
    assert {(None, "status"), ("customers", "city"), ("products", "category")} <= dimensions
    assert {(j.left, j.right) for j in roles.joins} >= {
        ("orders.customer_id", "customers.customer_id"),
        ("orders.product_id", "products.product_id"),
    }


def test_bis_sample_draft_gives_questions(bis_sample: Path) -> None:
    count = _questions_from_draft(bis_sample / "dataset_2.sqlite3", "dataset_2")
    assert count >= MIN_QUESTIONS


@pytest.mark.slow
@pytest.mark.parametrize("vertical", vertical_names())
def test_vertical_draft_gives_questions(vertical: str, tmp_path: Path) -> None:
    path = tmp_path / f"{vertical}.sqlite"
    generate(vertical_spec(vertical), path, scale=0.02, seed=0)
    assert _questions_from_draft(path, vertical) >= MIN_QUESTIONS


def test_cli_drafts_then_generates_without_roles(tmp_path: Path) -> None:
    path = write_sqlite(make_shop(orders=300), tmp_path / "shop.sqlite")
    drafted = biarena("generate", "roles", path, "-o", tmp_path / "roles.yaml")
    assert drafted.returncode == 0, drafted.stderr
    roles = load_roles(tmp_path / "roles.yaml")
    assert roles.database == "shop"
    assert_user_error(biarena("generate", "roles", path, "-o", tmp_path / "roles.yaml"), "exists")
    done = biarena("generate", "templates", path, "-o", tmp_path / "bench", "--per-category", "2")
    assert done.returncode == 0, done.stderr
    assert "roles drafted from the schema" in done.stderr
    assert "wrote" in done.stderr and "en)" in done.stderr


def test_chinese_only_where_the_names_are_translated(tmp_path: Path) -> None:
    from biarena.benchmarks import load_benchmark

    path = write_sqlite(make_shop(orders=300), tmp_path / "shop.sqlite")
    roles = tmp_path / "roles.yaml"
    assert biarena("generate", "roles", path, "-o", roles).returncode == 0
    asked = ("generate", "templates", path, "--roles", roles, "--per-category", "2", "--languages", "en,zh")
    english_only = biarena(*asked, "-o", tmp_path / "en")
    assert english_only.returncode == 0, english_only.stderr
    assert "left out" in english_only.stderr and "no 'zh' translation" in english_only.stderr
    assert {q.language for q in load_benchmark(tmp_path / "en").questions} == {"en"}
    # every metric and dimension named in Chinese too: both languages, by default
    text = roles.read_text(encoding="utf-8")
    for line in text.splitlines():
        if "names: {en: " in line:
            english = line.split("names: {en: ", 1)[1].split("}", 1)[0]
            text = text.replace(f"names: {{en: {english}}}", f"names: {{en: {english}, zh: 中文{english}}}", 1)
    roles.write_text(text, encoding="utf-8")
    both = biarena("generate", "templates", path, "--roles", roles, "--per-category", "2", "-o", tmp_path / "both")
    assert both.returncode == 0, both.stderr
    assert "left out" not in both.stderr
    languages = {q.language for q in load_benchmark(tmp_path / "both").questions}
    assert languages == {"en", "zh"}
