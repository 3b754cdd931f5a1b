"""`generate questions`: BI-Bench's pipeline step by step with scripted models, the template method, the CLI."""

import json
from pathlib import Path

import pytest

from biarena.benchmarks import load_benchmark
from biarena.errors import FormatError, UsageError
from biarena.generate.bibench_questions import generate_bibench_questions, generate_template_questions
from biarena.generate.bibench_questions.identifiers import named_identifier
from biarena.llm import ChatRequest, MockProvider, Model, ModelError
from tests.cli_in_process import cli
from tests.conftest import SALES_ROLES
from tests.run_helpers import require_embedded_model

REVENUE = "What was the total revenue by city?"
UNITS = "Which product category sells the most units?"
NAMED = "What is the sum of the sale_id values?"


def last_user(request: ChatRequest) -> str:
    """The text of a request's last user turn (the ask, or the ask again after an invalid reply)."""
    return next(content for role, content in reversed(request.messages) if role == "user")


def writer(request: ChatRequest) -> str:
    """The generating model: questions per cell, one malformed cell, table names, the domain."""
    ask = last_user(request)
    if "business domain" in ask:
        return '{"domain": "Retail"}'
    if "Task: generate exactly" in ask:
        if "diagnostic" in ask:
            return "Here are some diagnostic questions: why did sales drop?"
        if "of basic" in ask:
            return json.dumps({"questions": [{"question": REVENUE}, {"question": NAMED}]})
        return json.dumps({"questions": [{"question": f"<question>{UNITS}</question>"}, {"question": REVENUE + " "}]})
    if "Identify the minimum" in ask:
        return '{"tables": ["sales", "no_such_table"]}'
    return "not JSON"


def checker(request: ChatRequest) -> str:
    """A different model: rejects the question about units, and adds the city table to the revenue question."""
    ask = last_user(request)
    if "validating whether" in ask:
        if "units" in ask:
            verdict = {"verdict": "Not Answerable", "explanation": "There is no units column; qty may be it."}
            return json.dumps({**verdict, "missing_columns": ["sales.units"], "missing_tables": []})
        verdict = {"verdict": "Answerable", "explanation": "Revenue is sales.amount; cities are in city."}
        return json.dumps({**verdict, "missing_columns": [], "missing_tables": []})
    if "Verify the tables" in ask:
        return json.dumps({"explanation": "City names are in city, joined on city_id.", "tables": ["sales", "City"]})
    return "not JSON"


def models(write=writer, check=checker) -> tuple[Model, Model, MockProvider, MockProvider]:
    """A generating model and a checker, each a scripted function of the request."""
    first, second = MockProvider([write], model="writer"), MockProvider([check], model="checker")
    return Model(first), Model(second), first, second


def generate(sales_db: Path, out: Path, **options) -> tuple:
    model, check, first, second = models()
    settings = {"categories": ("descriptive", "diagnostic"), "complexities": ("basic", "intermediate"), "per_cell": 2}
    settings.update(options)
    result = generate_bibench_questions(sales_db, out, model=model, checker=check, **settings)
    return result, first, second


def test_every_step_keeps_drops_and_corrects_and_counts_it(sales_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "bench"
    result, _, _ = generate(sales_db, out)
    benchmark = load_benchmark(out)
    assert [q.text for q in benchmark.questions] == [REVENUE]
    question = benchmark.questions[0]
    assert question.labels == ["bibench:descriptive/basic"]
    assert question.tables == ["sales", "city"]  # corrected by the checker, in the schema's spelling
    assert question.domain == "Retail" and question.complexity == "basic"

    pipeline = json.loads((out / "pipeline.json").read_text())
    assert pipeline == result.pipeline
    steps = pipeline["steps"]
    assert steps["generation"] == {
        "in": 8,
        "kept": 4,
        "dropped": 2,
        "corrected": 0,
        "invalid_replies": 2,
        "dropped_by_reason": {"the generating model's reply was not valid JSON": 2},
    }
    assert steps["distinct"]["dropped"] == 1 and pipeline["duplicates_by_normalized_text"] == 1
    assert steps["no_identifiers"]["dropped_by_reason"] == {"names column": 1}
    assert steps["answerability"] == {
        "in": 2,
        "kept": 1,
        "dropped": 1,
        "corrected": 0,
        "dropped_by_reason": {"not answerable": 1},
    }
    assert steps["table_completeness"]["corrected"] == 1
    assert pipeline["cells"]["descriptive/basic"] == {"asked": 2, "generated": 2, "kept": 1}
    assert pipeline["cells"]["diagnostic/basic"] == {"asked": 2, "generated": 0, "kept": 0}
    assert pipeline["complete"] is True and pipeline["same_model_checker"] is False and pipeline["warnings"] == []

    checks = {r["id"]: r for r in map(json.loads, (out / "checks.jsonl").read_text().splitlines())}
    rejected = checks["sales/descriptive/intermediate/00"]
    assert rejected["text"] == UNITS  # the paper's <question> tags are removed
    assert rejected["dropped_at"] == "answerability" and "no units column" in rejected["reason"]
    assert rejected["answerability"]["missing_columns"] == ["sales.units"]
    assert checks["sales/descriptive/basic/01"]["reason"] == "names column 'sale_id'"
    assert checks["sales/descriptive/intermediate/01"]["reason"] == "duplicate of sales/descriptive/basic/00"
    kept = checks["sales/descriptive/basic/00"]
    assert kept["tables_identified"] == {"tables": ["sales"], "not_in_schema": ["no_such_table"]}
    assert kept["tables_corrected"] is True and "joined on city_id" in kept["tables_verified"]["explanation"]


def test_the_checker_is_asked_only_what_it_checks_and_the_writer_the_rest(sales_db: Path, tmp_path: Path) -> None:
    _, first, second = generate(sales_db, tmp_path / "bench")
    asked_checker = [last_user(r) for r in second.requests]
    assert asked_checker and all("validating whether" in a or "Verify the tables" in a for a in asked_checker)
    assert not any("validating whether" in last_user(r) for r in first.requests)
    # every ask starts with the same system turn holding the schema (the local model reuses its evaluation)
    systems = {r.messages[0] for r in [*first.requests, *second.requests]}
    assert len(systems) == 1 and "CREATE TABLE sales" in next(iter(systems))[1]


def test_the_same_model_as_checker_is_warned_about_and_recorded(sales_db: Path, tmp_path: Path) -> None:
    def both(request: ChatRequest) -> str:
        ask = last_user(request)
        return checker(request) if ("validating whether" in ask or "Verify the tables" in ask) else writer(request)

    model = Model(MockProvider([both], model="one"))
    said: list[str] = []
    result = generate_bibench_questions(
        sales_db, tmp_path / "b", model=model, checker=model, categories=("descriptive",), complexities=("basic",),
        per_cell=2, say=said.append,
    )  # fmt: skip
    assert result.pipeline["same_model_checker"] is True
    assert "the checker is the generating model" in result.pipeline["warnings"][0]
    assert any(line.startswith("warning: the checker is the generating model") for line in said)
    assert [q.text for q in result.questions] == [REVENUE]


def test_malformed_checker_replies_drop_the_question_with_the_reason(sales_db: Path, tmp_path: Path) -> None:
    model, check, _, _ = models(check=lambda request: "I think it is answerable.")
    result = generate_bibench_questions(
        sales_db, tmp_path / "b", model=model, checker=check, categories=("descriptive",), complexities=("basic",),
        per_cell=2,
    )  # fmt: skip
    assert result.questions == []
    assert result.pipeline["steps"]["answerability"]["invalid_replies"] == 1
    dropped = [d for d in result.drafts if d.dropped_at == "answerability"]
    assert "the checker gave no valid verdict" in dropped[0].reason


def test_a_failing_server_is_not_journaled_so_a_rerun_asks_again(sales_db: Path, tmp_path: Path) -> None:
    def down(request: ChatRequest) -> str:
        raise ModelError("connection refused")

    out = tmp_path / "b"
    cells = {"categories": ("descriptive",), "complexities": ("basic",), "per_cell": 2}
    model, _, _, _ = models()
    failed = generate_bibench_questions(sales_db, out, model=model, checker=Model(MockProvider([down])), **cells)
    assert failed.questions == [] and "connection refused" in failed.drafts[0].reason
    model, _, _, _ = models()
    again = generate_bibench_questions(sales_db, out, model=model, checker=Model(MockProvider([checker])), **cells)
    assert [q.text for q in again.questions] == [REVENUE]


def test_a_failed_table_identification_is_named_by_the_completeness_check(sales_db: Path, tmp_path: Path) -> None:
    def no_tables(request: ChatRequest) -> str:
        return "sales and city" if "Identify the minimum" in last_user(request) else writer(request)

    model, check, _, _ = models(write=no_tables)
    result = generate_bibench_questions(
        sales_db, tmp_path / "b", model=model, checker=check, categories=("descriptive",), complexities=("basic",),
        per_cell=2,
    )  # fmt: skip
    assert result.questions[0].tables == ["sales", "city"]
    steps = result.pipeline["steps"]
    assert steps["table_identification"]["invalid_replies"] == 1 and steps["table_completeness"]["corrected"] == 1


def test_a_killed_or_budgeted_run_continues_from_its_journal(sales_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "bench"
    stopped, first, second = generate(sales_db, out, max_calls=3)
    assert stopped.stopped and "--max-calls" in stopped.stopped
    assert len(first.requests) + len(second.requests) == 3
    assert json.loads((out / "pipeline.json").read_text())["complete"] is False
    # no response cache here: whatever is asked again is a new call, so the journal alone must carry the run on
    finished, again_first, again_second = generate(sales_db, out)
    whole, all_first, all_second = generate(sales_db, tmp_path / "whole")
    assert [q.model_dump() for q in finished.questions] == [q.model_dump() for q in whole.questions]
    assert finished.pipeline["steps"] == whole.pipeline["steps"]
    asked_again = len(again_first.requests) + len(again_second.requests)
    assert asked_again == len(all_first.requests) + len(all_second.requests) - 3


def test_other_settings_in_the_same_directory_are_refused_unless_forced(sales_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "bench"
    generate(sales_db, out, sample_rows=2)
    with pytest.raises(UsageError, match="other settings \\(sample_rows\\)"):
        generate(sales_db, out, sample_rows=0)
    result, _, _ = generate(sales_db, out, sample_rows=0, force=True)
    assert result.questions and load_benchmark(out).questions
    (out / "validation.jsonl").write_text("")
    with pytest.raises(UsageError, match="validation decisions"):
        generate(sales_db, out, sample_rows=1, force=True)
    stray = tmp_path / "stray"
    stray.mkdir()
    (stray / "notes.txt").write_text("mine")
    with pytest.raises(FormatError, match="holds no generation"):
        generate(sales_db, stray)
    assert (stray / "notes.txt").read_text() == "mine"


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("What is the average order_total per month?", "order_total"),
        ("What is the average order total per month?", "order_total"),
        ("What is the average ORDER  TOTAL per month?", "order_total"),
        ("How many signups per appId?", "appId"),
        ("How many signups per app id?", "appId"),
        ("What is the average `price` per category?", "price"),
        ("What is the average price per category?", None),
        ("What were the order totals per month?", "order_total"),
        ("What were the order totalities per month?", None),
        ("Which border totalled most?", None),
    ],
)
def test_questions_that_name_identifiers_are_recognized(text: str, named: str | None) -> None:
    assert named_identifier(text, ["orders", "order_total", "appId", "price", "category"]) == named


def test_the_command_line_generates_and_prints_the_figures(
    sales_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import biarena.llm

    made: dict[str, Model] = {}

    def scripted(spec: str, **_options) -> Model:
        made[spec] = Model(MockProvider([checker if spec == "mock:checker" else writer], model=spec))
        return made[spec]

    monkeypatch.setattr(biarena.llm, "get_model", scripted)
    out = tmp_path / "bench"
    args = ["generate", "questions", sales_db, "-o", out, "--model", "mock:writer", "--checker", "mock:checker"]
    result = cli(*args, "--categories", "descriptive", "--per-cell", "2")
    assert result.returncode == 0, result.stderr
    assert "kept sales/descriptive/basic/00: What was the total revenue by city?" in result.stderr
    assert "table_completeness" in result.stdout and "descriptive/intermediate" in result.stdout
    assert "duplicates by normalized text: 3" in result.stderr
    assert f"wrote 1 questions to {out}" in result.stderr
    assert set(made) == {"mock:writer", "mock:checker"}
    audit = cli("audit", out)
    assert audit.returncode == 0 and "nothing to audit" in audit.stderr

    bad = cli("generate", "questions", sales_db, "-o", tmp_path / "x", "--categories", "descriptive,causal")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
    assert "-O categories=descriptive,causal: must be some of" in bad.stderr
    missing = cli("generate", "questions", tmp_path / "none.sqlite", "-o", tmp_path / "y")
    assert missing.returncode == 2 and "database file not found" in missing.stderr


def test_the_command_line_says_where_the_budget_stopped_it(
    sales_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import biarena.llm

    monkeypatch.setattr(biarena.llm, "get_model", lambda spec, **_: Model(MockProvider([writer, checker], model=spec)))
    out = tmp_path / "bench"
    result = cli("generate", "questions", sales_db, "-o", out, "--model", "mock", "--max-calls", "1")
    assert result.returncode == 1
    assert f"stopped at the --max-calls budget (1 model calls); run the same command again to continue {out}" in (
        result.stderr
    )
    assert json.loads((out / "pipeline.json").read_text())["complete"] is False


def test_ctrl_c_keeps_the_journal_and_says_how_to_continue(
    sales_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import biarena.llm

    def interrupted(request: ChatRequest) -> str:
        if "Task: generate exactly" in last_user(request):
            raise KeyboardInterrupt
        return writer(request)

    monkeypatch.setattr(biarena.llm, "get_model", lambda spec, **_: Model(MockProvider([interrupted], model=spec)))
    out = tmp_path / "bench"
    result = cli("generate", "questions", sales_db, "-o", out, "--model", "mock")
    assert result.returncode == 130
    assert f"interrupted: the finished steps are kept; run the same command again to continue {out}" in result.stderr
    assert '"key": "domain/sales"' in (out / "progress.jsonl").read_text()


def test_nothing_kept_exits_1(sales_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import biarena.llm

    monkeypatch.setattr(biarena.llm, "get_model", lambda spec, **_: Model(MockProvider(["no JSON"], model=spec)))
    result = cli(
        "generate", "questions", sales_db, "-o", tmp_path / "b", "--model", "mock", "--categories", "predictive"
    )
    assert result.returncode == 1
    assert "predictive/basic: no questions" in result.stderr and "wrote 0 questions" in result.stderr


def test_the_template_method_uses_the_factory_and_audits_clean(sales_db: Path, tmp_path: Path) -> None:
    roles = tmp_path / "roles.yaml"
    roles.write_text(SALES_ROLES)
    out = tmp_path / "templ"
    result = cli("generate", "questions", sales_db, "-o", out, "--method", "template", "--roles", roles)
    assert result.returncode == 0, result.stderr
    benchmark = load_benchmark(out)
    assert benchmark.questions and all(q.gold_sql and q.labels[0].startswith("bis:") for q in benchmark.questions)
    pipeline = json.loads((out / "pipeline.json").read_text())
    assert pipeline["method"] == "template" and pipeline["kept"] == len(benchmark.questions)
    steps = pipeline["steps"]
    assert steps["no_identifiers"]["in"] == steps["no_identifiers"]["kept"] + steps["no_identifiers"]["dropped"]
    assert not any("city id" in q.text.lower() for q in benchmark.questions)  # the roles' "city id" names a column
    audit = cli("audit", out, "--json")
    assert audit.returncode in (0, 1), audit.stderr
    assert json.loads(audit.stdout)["with_gold"] == len(benchmark.questions)
    no_roles = cli("generate", "questions", sales_db, "-o", tmp_path / "t2", "--method", "template")
    assert no_roles.returncode == 2 and "method 'template' needs -O roles=" in no_roles.stderr


@pytest.mark.real_model
@pytest.mark.slow
@pytest.mark.extended
def test_the_embedded_model_generates_a_question_that_passes_the_checker(tmp_path: Path) -> None:
    require_embedded_model()
    database = tmp_path / "app_store.sqlite"
    built = cli("synth", "app_store", "--scale", "0.05", "--seed", "1", "-o", database)
    assert built.returncode == 0, built.stderr
    out = tmp_path / "bench"
    args = ["generate", "questions", database, "-o", out, "--model", "local", "--checker", "local"]
    result = cli(*args, "--categories", "descriptive", "--complexities", "basic", "--per-cell", "1")
    assert result.returncode == 0, result.stderr
    assert "warning: the checker is the generating model" in result.stderr
    benchmark = load_benchmark(out)
    assert benchmark.questions, result.stderr
    checks = {r["id"]: r for r in map(json.loads, (out / "checks.jsonl").read_text().splitlines())}
    for question in benchmark.questions:
        assert checks[question.id]["answerability"]["answerability"] == "Answerable"
        assert question.tables and set(question.tables) <= set(benchmark_tables(database))
    assert json.loads((out / "pipeline.json").read_text())["same_model_checker"] is True


def benchmark_tables(database: Path) -> list[str]:
    """The tables of an SQLite file."""
    import sqlite3

    with sqlite3.connect(database) as conn:
        return [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]


def test_a_question_that_repeats_itself_is_dropped(sales_db: Path, tmp_path: Path) -> None:
    repeated = "What was the total revenue by city? Which city sold most? What was the total revenue by city?"

    def write(request: ChatRequest) -> str:
        if "Task: generate exactly" in last_user(request):
            return json.dumps({"questions": [{"question": repeated}, {"question": REVENUE}]})
        return writer(request)

    model, check, _, _ = models(write=write)
    out = tmp_path / "bench"
    result = generate_bibench_questions(
        sales_db, out, model=model, checker=check, categories=("descriptive",), complexities=("basic",), per_cell=2
    )
    distinct = result.pipeline["steps"]["distinct"]
    assert distinct["dropped_by_reason"] == {"repeats itself": 1}
    assert result.pipeline["duplicates_by_normalized_text"] == 0
    assert [q.text for q in load_benchmark(out).questions] == [REVENUE]


@pytest.mark.parametrize(
    ("first", "second", "same"),
    [
        ("what was the total revenue by city", "by city what was the total revenue", True),
        ("what was the total revenue by city", "what was the total revenue for each city", True),
        (
            "which product category sold the most units over the whole period in the data we hold today",
            "which product category sold the most units over the entire period in the data we hold today",
            True,
        ),
        ("what is the average order value by city", "what is the average order value by region", False),
        ("what was the average ctr for all tasks", "what is the average ctr for all tasks", True),
        ("what was the total revenue by city", "what was the total revenue by product", False),
        ("每个城市的总销售额是多少", "每个城市的总销售额是多少呢", True),
        ("每个城市的总销售额是多少", "每个品类的总销量是多少", False),
    ],
)
def test_near_duplicates_say_the_same_in_nearly_the_same_words(first: str, second: str, same: bool) -> None:
    from biarena.generate.bibench_questions.pipeline import near_duplicate

    assert near_duplicate(first, second) is same


def test_each_cell_is_shown_the_questions_kept_so_far_and_near_duplicates_are_dropped(
    sales_db: Path, tmp_path: Path
) -> None:
    reworded = "By city, what was the total revenue?"

    def write(request: ChatRequest) -> str:
        ask = last_user(request)
        if "Task: generate exactly" in ask and "diagnostic" in ask:
            return json.dumps({"questions": [{"question": reworded}, {"question": UNITS}]})
        return writer(request)

    model, check, first, _ = models(write=write)
    result = generate_bibench_questions(
        sales_db, tmp_path / "bench", model=model, checker=check,
        categories=("descriptive", "diagnostic"), complexities=("basic",), per_cell=2,
    )  # fmt: skip
    asks = [last_user(r) for r in first.requests if "Task: generate exactly" in last_user(r)]
    assert "already in the benchmark" not in asks[0]
    # the diagnostic cell is shown the descriptive question kept before it, and asked for others
    assert "These questions are already in the benchmark" in asks[1] and f"- {REVENUE}" in asks[1]
    assert f"- {NAMED}" not in asks[1]  # a dropped question is not shown
    checks = {d.text: d for d in result.drafts}
    assert checks[reworded].reason == "near duplicate of sales/descriptive/basic/00"
    assert result.pipeline["near_duplicates"] == 1
    assert result.pipeline["steps"]["distinct"]["dropped_by_reason"] == {"near duplicate": 1}


def test_the_pipeline_runs_on_duckdb_and_a_server_as_on_sqlite(
    sales_db: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """BI-Bench's pipeline and the template method over the sales tables in DuckDB and on PostgreSQL."""
    from biarena.db import copy_database
    from tests.postgres_server import create_database, create_read_only_role, postgres_bin, postgres_server
    from tests.test_generate_answers import _duckdb_copy

    locations: dict[str, str] = {"duckdb": str(_duckdb_copy(sales_db, tmp_path / "sales.duckdb"))}
    if postgres_bin() is not None:
        pytest.importorskip("psycopg")
        server = postgres_server()
        base = server.__enter__()
        request.addfinalizer(lambda: server.__exit__(None, None, None))
        copy_database(sales_db, create_database(base, "sales"))
        locations["postgres"] = create_read_only_role(base, "sales")
    generate(sales_db, tmp_path / "sqlite")
    expected = load_benchmark(tmp_path / "sqlite")
    roles = tmp_path / "roles.yaml"
    roles.write_text(SALES_ROLES, encoding="utf-8")
    for name, location in locations.items():
        generate(location, tmp_path / name)  # type: ignore[arg-type]
        made = load_benchmark(tmp_path / name)
        assert [(q.text, q.tables) for q in made.questions] == [(q.text, q.tables) for q in expected.questions]
        ref = made.databases["sales"]
        assert ref.dialect == name and (ref.url == location if name == "postgres" else ref.url is None)
        templated = generate_template_questions(location, tmp_path / f"{name}-templates", roles_path=roles)
        assert templated.questions and all(q.gold_sql for q in templated.questions), name
