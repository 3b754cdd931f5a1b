"""Test-suite accuracy: neighbour databases (simulated or fuzzed), lucky matches caught, undetermined gold reported;
results kept in the run file score a new contract without running SQL; `score --contract` and `--suite`."""

import sqlite3
from pathlib import Path

import pytest

from biarena.benchmarks import load_benchmark, save_benchmark
from biarena.db import DatabasePool
from biarena.metrics import ScoringContext
from biarena.metrics.database_fuzzer import fuzz_database, read_tables
from biarena.metrics.gold_perturbations import perturb_gold
from biarena.metrics.neighbour_suite import _domain, suite_for
from biarena.records import Answer, Benchmark, DatabaseRef, Question, Score, SystemSpec
from biarena.runner import RunStore
from biarena.scoring import get_scorer
from tests.cli_in_process import cli
from tests.conftest import make_sales_db
from tests.judge_run_helpers import write_run

GOLD = "SELECT name FROM city WHERE population > 1000000"
LUCKY = "SELECT name FROM city WHERE population > 1400000"  # the same cities here: none between 1.0 and 1.4 million


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("BIARENA_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def _answer(question: Question, sql: str) -> Answer:
    return Answer(question_id=question.id, system=SystemSpec(agent="test"), final_sql=sql)


def _value(scorer_name: str, question: Question, sql: str, context: ScoringContext, **options: object) -> Score:
    scorer = get_scorer(scorer_name, **options)
    (score,) = scorer(question, _answer(question, sql), context)
    return score


def _sales(tmp_path: Path, questions: list[Question]) -> tuple[Benchmark, ScoringContext]:
    db = make_sales_db(tmp_path / "sales.sqlite")
    bench = Benchmark(name="imported", databases={"sales": DatabaseRef(path=str(db))}, questions=questions)
    bench = load_benchmark(save_benchmark(bench, tmp_path / "bench"))
    return bench, ScoringContext(bench, DatabasePool(bench))


def test_a_fuzzed_neighbour_keeps_schema_keys_and_domains(tmp_path: Path) -> None:
    source = make_sales_db(tmp_path / "sales.sqlite")
    fuzz_database(source, tmp_path / "a.sqlite", seed=3, literals=[1000000.0])
    fuzz_database(source, tmp_path / "b.sqlite", seed=3, literals=[1000000.0])
    schema = "SELECT sql FROM sqlite_master ORDER BY name"
    with sqlite3.connect(source) as before, sqlite3.connect(tmp_path / "a.sqlite") as after:
        assert before.execute(schema).fetchall() == after.execute(schema).fetchall()
    _, original = read_tables(source)
    _, fuzzed = read_tables(tmp_path / "a.sqlite")
    assert read_tables(tmp_path / "b.sqlite")[1] == fuzzed  # seeded: the same seed, the same rows
    assert fuzzed != original
    cities = {row[0] for row in fuzzed["city"]}
    assert len(cities) == len(fuzzed["city"])  # keys stay unique
    assert {row[2] for row in fuzzed["sales"]} <= {row[0] for row in original["city"]}  # foreign keys hold
    assert {row[1] for row in fuzzed["product"]} <= {row[1] for row in original["product"]} | {None}
    assert any(row[3] is None for row in fuzzed["sales"]) or any(row[5] is None for row in fuzzed["sales"])
    assert len(fuzzed["sales"]) != len(original["sales"])  # rows dropped and duplicated


def test_a_wrong_literal_passes_execution_accuracy_and_fails_the_suite_on_a_fuzzed_database(
    tmp_path: Path, home: Path
) -> None:
    question = Question(id="q", text="Which cities have over a million people?", database="sales", gold_sql=[GOLD])
    bench, context = _sales(tmp_path, [question])
    assert _value("execution_accuracy", question, LUCKY, context).value == 1.0
    assert _value("execution_accuracy[bird]", question, LUCKY, context).value == 1.0
    caught = _value("test_suite_accuracy", question, LUCKY, context, k=3)
    assert caught.value == 0.0 and "neighbour" in (caught.rationale or "")
    assert _value("test_suite_accuracy", question, GOLD, context, k=3).value == 1.0
    suite = suite_for(bench, context.databases, 3)
    assert suite.methods == {"sales": "fuzzer"} and len(suite.neighbours) == 3
    told, tried = suite.mutants["sales"]
    assert 0 < told <= tried
    assert len(list((home / "suites").iterdir())) == 1  # built once, cached under its fingerprint
    again = suite_for(bench, context.databases, 3)
    assert again.fingerprint == suite.fingerprint and again.neighbours == suite.neighbours


def test_gold_the_data_do_not_determine_is_reported_not_scored(tmp_path: Path, home: Path) -> None:
    loose = Question(id="loose", text="Two cities", database="sales", gold_sql=["SELECT name FROM city LIMIT 2"])
    _, context = _sales(tmp_path, [loose])
    score = _value("test_suite_accuracy", loose, "SELECT name FROM city LIMIT 2", context, k=2)
    assert score.value is None and "not determined" in (score.rationale or "")


def test_a_wrong_literal_that_passes_on_bis_synth_fails_its_simulated_suite(home: Path) -> None:
    from biarena.benchmarks import resolve_benchmark

    bench = resolve_benchmark("bis-synth")
    context = ScoringContext(bench, DatabasePool(bench))
    domains = {name: _domain(Path(bench.database_location(name))) for name in bench.databases}
    lucky = []
    for question in bench.questions:
        wrong = perturb_gold(question.gold_sql[0], "literal", domain=domains[question.database])
        if wrong and _value("execution_accuracy", question, wrong, context).value == 1.0:
            lucky.append((question, wrong))
    assert lucky, "no wrong filter value returns the gold's rows on bis-synth"
    question, wrong = lucky[0]
    caught = _value("test_suite_accuracy", question, wrong, context, k=5)
    assert caught.value == 0.0
    assert suite_for(bench, context.databases, 5).methods == {"ads": "simulator", "ops": "simulator"}


class _Refusing(DatabasePool):
    """A pool that runs nothing: every statement must come from the run file."""

    def get(self, name: str):  # type: ignore[no-untyped-def]
        raise AssertionError(f"database '{name}' was opened")


def test_a_new_contract_scores_an_old_run_from_its_kept_results(tmp_path: Path) -> None:
    question = Question(id="q", text="Big cities", database="sales", gold_sql=["SELECT DISTINCT country FROM city"])
    bench, context = _sales(tmp_path, [question])
    answer = _answer(question, "SELECT country FROM city")
    store = RunStore(tmp_path / "kept.run", create=True)
    try:
        context.kept = store
        first = [get_scorer(n)(question, answer, context)[0].value for n in ("execution_accuracy", "execution")]
        assert first == [0.0, 1.0]
        later = ScoringContext(bench, _Refusing(bench), kept=store)
        for name, expected in (
            ("execution_accuracy", 0.0),
            ("execution_accuracy[bird]", 1.0),
            ("execution_accuracy[spider]", 1.0),  # DISTINCT out of the gold: the same 5 rows (kept at the first pass)
            ("execution_accuracy[spider-keep-distinct]", 0.0),
        ):
            assert get_scorer(name)(question, answer, later)[0].value == expected, name
        other = _answer(question, "SELECT name FROM city")
        with pytest.raises(AssertionError, match="was opened"):  # an answer never scored: nothing kept to read
            get_scorer("execution_accuracy[bird]")(question, other, later)
    finally:
        store.close()


def test_score_contract_and_suite_on_the_command_line(tmp_path: Path, home: Path) -> None:
    questions = [
        Question(id="q1", text="Big cities", database="sales", gold_sql=[GOLD]),
        Question(id="q2", text="Countries", database="sales", gold_sql=["SELECT country, name FROM city"]),
    ]
    bench, _ = _sales(tmp_path, questions)
    answers = {"q1": _answer(questions[0], LUCKY), "q2": _answer(questions[1], "SELECT name, country FROM city")}
    run = write_run(tmp_path / "r.run", bench, answers)
    done = cli("score", run, "--contract", "bird,spider", "--contract", "biarena", "--suite", "2")
    assert done.returncode == 0, done.stderr
    shown = cli("show", run)
    assert "EA[bird]" in shown.stdout and "EA[spider]" in shown.stdout and "TS" in shown.stdout
    assert "contract disagreement: 1 of 2 questions" in shown.stdout  # q2: columns swapped, BIRD goes by position
    with RunStore(run) as store:
        values = {(s.question_id, s.name): s.value for s in store.scores()}
    assert values[("q1", "execution_accuracy")] == 1.0 and values[("q1", "test_suite_accuracy")] == 0.0
    assert values[("q2", "execution_accuracy[bird]")] == 0.0 and values[("q2", "execution_accuracy[spider]")] == 1.0
    bad = cli("score", run, "--contract", "brid")
    assert bad.returncode == 2 and "unknown contract 'brid'" in bad.stderr and "Traceback" not in bad.stderr


def test_a_duckdb_table_that_refers_to_itself_gets_neighbours(tmp_path: Path, home: Path) -> None:
    """DuckDB cannot empty a table whose rows refer to each other: the neighbours are written without foreign keys."""
    import duckdb

    path = tmp_path / "staff.db"  # a DuckDB file, whatever its name says
    with duckdb.connect(str(path)) as conn:
        conn.execute("CREATE TABLE city (city_id INTEGER PRIMARY KEY, name TEXT NOT NULL, population INTEGER)")
        conn.execute(
            "CREATE TABLE employee (id INTEGER PRIMARY KEY, boss INTEGER REFERENCES employee (id), "
            "city_id INTEGER REFERENCES city (city_id))"
        )
        conn.execute("CREATE VIEW big AS SELECT * FROM city WHERE population > 1000000")
        cities = [(1, "Dublin", 592000), (2, "London", 8900000), (3, "Paris", 2100000), (4, "Munich", 1500000)]
        conn.executemany("INSERT INTO city VALUES (?, ?, ?)", cities)
        for row in [(1, None, 1), (2, 1, 2), (3, 2, 3), (4, 2, 4)]:
            conn.execute("INSERT INTO employee VALUES (?, ?, ?)", row)
    question = Question(id="q", text="Big cities?", database="staff", gold_sql=[GOLD])
    bench = Benchmark(
        name="staff", databases={"staff": DatabaseRef(path=str(path), dialect="duckdb")}, questions=[question]
    )
    bench = load_benchmark(save_benchmark(bench, tmp_path / "bench"))
    context = ScoringContext(bench, DatabasePool(bench))
    try:
        score = _value("test_suite_accuracy", question, GOLD, context, k=3)
        assert (score.value, score.sub_scores.get("error")) == (1.0, None), score.rationale
        assert _value("test_suite_accuracy", question, LUCKY, context, k=3).value == 0.0
        suite = suite_for(bench, context.databases, 3)
        for neighbour in suite.neighbours:
            with duckdb.connect(neighbour.databases["staff"], read_only=True) as conn:
                assert conn.execute("SELECT count(*) FROM big").fetchone()[0] >= 0  # the view is there
                ids = {row[0] for row in conn.execute("SELECT city_id FROM city").fetchall()}
                assert {row[0] for row in conn.execute("SELECT city_id FROM employee").fetchall()} <= ids | {None}
    finally:
        context.databases.close()


def test_a_wrong_literal_fails_the_suite_on_a_fuzzed_duckdb_database(tmp_path: Path, home: Path) -> None:
    import duckdb

    path = tmp_path / "cities.duckdb"
    with duckdb.connect(str(path)) as conn:
        conn.execute("CREATE TABLE city (city_id INTEGER PRIMARY KEY, name TEXT NOT NULL, population INTEGER)")
        conn.execute("CREATE TABLE visit (city_id INTEGER REFERENCES city (city_id), visitors INTEGER)")
        cities = [(1, "Dublin", 592000), (2, "London", 8900000), (3, "Paris", 2100000), (4, "Munich", 1500000)]
        conn.executemany("INSERT INTO city VALUES (?, ?, ?)", cities)
        conn.executemany("INSERT INTO visit VALUES (?, ?)", [(i % 4 + 1, i * 10) for i in range(40)])
    question = Question(id="q", text="Big cities?", database="cities", gold_sql=[GOLD])
    bench = Benchmark(
        name="duck", databases={"cities": DatabaseRef(path=str(path), dialect="duckdb")}, questions=[question]
    )
    bench = load_benchmark(save_benchmark(bench, tmp_path / "bench"))
    context = ScoringContext(bench, DatabasePool(bench))
    try:
        assert _value("execution_accuracy", question, LUCKY, context).value == 1.0
        assert _value("test_suite_accuracy", question, LUCKY, context, k=3).value == 0.0
        assert _value("test_suite_accuracy", question, GOLD, context, k=3).value == 1.0
        suite = suite_for(bench, context.databases, 3)
        assert suite.methods == {"cities": "fuzzer"}
        _, fuzzed = read_tables(Path(suite.neighbours[0].databases["cities"]))
        assert {row[0] for row in fuzzed["visit"]} <= {1, 2, 3, 4}  # foreign keys hold
    finally:
        context.databases.close()
