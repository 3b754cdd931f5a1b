"""`run --repeats K`: each question asked K times with the seed moved per try, every try stored and scored, and the
run's agreement, pass@k and pass^k as computed by hand; resumed runs add only missing tries; old run files are runs
of one try."""

import json
import re
import shutil
from collections import Counter
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from unittest.mock import patch

import pytest

from biarena.llm import ChatRequest, MockProvider, Model, ModelOptions
from biarena.llm.cache import ResponseCache
from biarena.llm.try_seed import SEED_STRIDE, asking_try
from biarena.metrics.repeatability import pass_all_k, pass_at_k, repeatability
from biarena.runner import RunStore
from tests.cli_in_process import cli
from tests.run_helpers import make_shop

FIXTURES = Path(__file__).parent / "fixtures"

RIGHT_TRIES = {0: {0, 1, 2, 3}, 1: {0, 2}, 2: set()}
"""Question index -> the tries a sampled (temperature above 0) reply gets right."""


def right_sql(index: int) -> str:
    return f"SELECT city_id, sum(amount) FROM sales WHERE qty > {index % 5} GROUP BY city_id"


WRONG_SQL = "SELECT city_id, count(*) FROM sales WHERE qty > 1000 GROUP BY city_id"


def seeded_reply(request: ChatRequest) -> str:
    """Right or wrong SQL by the request's seed (which try asks); greedy, at temperature 0, always right."""
    index = int(re.findall(r"question (\d+)", request.messages[-1][1])[-1])
    number = (request.seed or 0) // SEED_STRIDE
    right = request.temperature == 0 or number in RIGHT_TRIES[index]
    return f"```sql\n{right_sql(index) if right else WRONG_SQL}\n```"


@pytest.fixture
def scripted() -> Iterator[list[MockProvider]]:
    """`--model mock:NAME` answers with `seeded_reply`; the providers made are listed."""
    made: list[MockProvider] = []

    def provider(options: ModelOptions, cache_dir: Path, **extra: object) -> MockProvider:
        made.append(MockProvider([seeded_reply], model=options.name or "scripted"))
        return made[-1]

    with patch.object(MockProvider, "from_options", provider):
        yield made


@pytest.fixture
def shop(tmp_path: Path, sales_db: Path) -> Path:
    return make_shop(tmp_path, sales_db, count=3)


def run(shop: Path, out: Path, model: str, *extra: str) -> None:
    result = cli("run", shop, "--agent", "text2sql", "--model", model, "-o", out, *extra)
    assert result.returncode == 0, result.stderr


def exported(run: Path) -> list[dict]:
    target = run.with_suffix(".jsonl")
    result = cli("export", run, "-o", target)
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]


def seeds(made: list[MockProvider]) -> Counter:
    return Counter(request.seed for provider in made for request in provider.requests)


def test_estimators_match_their_definitions() -> None:
    assert pass_at_k(4, 2, 2) == pytest.approx(1 - 1 / 6)
    assert pass_all_k(4, 2, 2) == pytest.approx(1 / 6)
    assert pass_at_k(4, 0, 4) == 0 and pass_all_k(4, 4, 4) == 1
    assert pass_at_k(3, 1, 1) == pytest.approx(1 / 3) == pass_all_k(3, 1, 1)


def test_each_try_asks_with_its_own_seed_and_cache_key(tmp_path: Path) -> None:
    provider = MockProvider([lambda request: f"seed {request.seed}"])
    model = Model(provider, cache=ResponseCache(tmp_path / "cache.sqlite"), backoff=0.0, retries=0)
    asked = [{"role": "user", "content": "how many?"}]
    replies = []
    for number in (0, 1, 2, 1, 0):
        with asking_try(number):
            replies.append(model.chat(asked, temperature=0.7).text)
    assert replies == ["seed 0", "seed 1000", "seed 2000", "seed 1000", "seed 0"]
    assert [request.seed for request in provider.requests] == [0, 1000, 2000]  # the repeated tries came from the cache
    with asking_try(3):
        assert model.chat(asked, seed=None).text == "seed 3000"  # a request without a seed gets one per try


def test_tries_sampled_by_seed_give_hand_computed_pass_at_k_and_agreement(
    shop: Path, tmp_path: Path, scripted: list[MockProvider]
) -> None:
    out = tmp_path / "four.run"
    run(shop, out, "mock:seeded-four", "-M", "temperature=0.8", "--repeats", "4")
    assert seeds(scripted) == {0: 3, SEED_STRIDE: 3, 2 * SEED_STRIDE: 3, 3 * SEED_STRIDE: 3}
    assert cli("score", out).returncode == 0
    with RunStore(out) as store:
        assert store.tries() == [0, 1, 2, 3] and store.repeats() == 4
        found = repeatability(store)
    assert found is not None
    by_id = {q.question_id: q for q in found.questions}
    assert [(by_id[q].tries, by_id[q].correct, by_id[q].agree) for q in ("q0000", "q0001", "q0002")] == [
        (4, 4, True),
        (4, 2, False),  # two right tries, two wrong ones: two results
        (4, 0, True),  # always the same wrong SQL
    ]
    # by hand: per question pass@k = 1 - C(n-c,k)/C(n,k), pass^k = C(c,k)/C(n,k), then the mean over questions
    expected = {
        1: (Fraction(1 + Fraction(1, 2), 3), Fraction(1 + Fraction(1, 2), 3)),
        2: (Fraction(1 + Fraction(5, 6), 3), Fraction(1 + Fraction(1, 6), 3)),
        3: (Fraction(2, 3), Fraction(1, 3)),
        4: (Fraction(2, 3), Fraction(1, 3)),
    }
    assert [p.k for p in found.passes] == [1, 2, 3, 4]
    for p in found.passes:
        assert p.at_least_one.estimate == pytest.approx(float(expected[p.k][0]))
        assert p.all_of.estimate == pytest.approx(float(expected[p.k][1]))
        assert p.all_of.low is not None and p.all_of.low <= p.all_of.estimate <= p.all_of.high
    assert found.agreement is not None and found.agreement.estimate == pytest.approx(2 / 3)

    shown = cli("show", out)
    assert shown.returncode == 0, shown.stderr
    assert "the 4 tries agree on 2 of 3 questions" in shown.stdout
    assert "q0001" in shown.stdout  # listed among the questions whose tries disagree
    assert "usage: 12 model calls" in cli("show", out, "--usage").stdout  # every try's calls
    data = json.loads(cli("show", out, "--format", "json").stdout)["repeatability"]
    (figures,) = data.values()
    assert figures["pass"][1]["pass_all_k"]["estimate"] == pytest.approx(7 / 18)

    rows = exported(out)
    assert len(rows) == 12
    assert Counter(row["question_id"] for row in rows) == {"q0000": 4, "q0001": 4, "q0002": 4}
    assert sorted(row["try"] for row in rows if row["question_id"] == "q0001") == [0, 1, 2, 3]
    accuracy = {(r["question_id"], r["try"]): r["execution_accuracy"] for r in rows}
    assert [accuracy[("q0001", number)] for number in range(4)] == [1.0, 0.0, 1.0, 0.0]
    assert {r["question_id"]: r["tries_agree"] for r in rows} == {"q0000": True, "q0001": False, "q0002": True}
    report = tmp_path / "report.md"
    assert cli("report", out, "-o", report).returncode == 0
    assert "the 4 tries agree on 2 of 3 questions" in report.read_text(encoding="utf-8")
    with_csv = tmp_path / "four.csv"
    assert cli("export", out, "-o", with_csv).returncode == 0
    assert with_csv.read_text(encoding="utf-8").splitlines()[0].split(",")[4:7] == ["question_id", "try", "tries_agree"]
    parquet = pytest.importorskip("pyarrow.parquet")
    assert cli("export", out, "-o", tmp_path / "four.parquet").returncode == 0
    table = parquet.read_table(tmp_path / "four.parquet").to_pydict()
    assert sorted(table["try"]) == [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]


def test_at_temperature_zero_the_tries_agree(shop: Path, tmp_path: Path, scripted: list[MockProvider]) -> None:
    out = tmp_path / "greedy.run"
    run(shop, out, "mock:seeded-greedy", "--repeats", "3")
    assert cli("score", out).returncode == 0
    with RunStore(out) as store:
        answers = store.answers_of_tries()
        found = repeatability(store)
    assert len(answers) == 9
    for qid in ("q0000", "q0001", "q0002"):
        assert len({a.final_sql for _, a in answers if a.question_id == qid}) == 1
    assert found is not None and found.all_agree
    assert all(p.at_least_one.estimate == 1 == p.all_of.estimate for p in found.passes)
    shown = cli("show", out)
    assert "the 3 tries agree on every question" in shown.stdout, shown.stdout
    assert "the 3 tries agree on every question" in cli("show", out, "--format", "md").stdout
    assert cli("score", out, "--judge", "interaction").returncode == 0
    traced = cli("show", out, "--trace", "q0001").stdout
    assert "q0001 · interaction" in traced and "q0001 · try 2 · interaction" in traced


def test_resume_adds_only_the_missing_tries(shop: Path, tmp_path: Path, scripted: list[MockProvider]) -> None:
    out = tmp_path / "grow.run"
    model = "mock:seeded-grow"
    run(shop, out, model, "-M", "temperature=0.8", "--repeats", "2")
    assert seeds(scripted) == {0: 3, SEED_STRIDE: 3}
    assert cli("score", out).returncode == 0
    scripted.clear()
    run(shop, out, model, "-M", "temperature=0.8", "--repeats", "4")
    assert seeds(scripted) == {2 * SEED_STRIDE: 3, 3 * SEED_STRIDE: 3}  # tries 0 and 1 are not asked again
    with RunStore(out) as store:
        found = repeatability(store)
    assert found is not None and found.passes == []  # tries 2 and 3 are not scored yet: not counted as wrong
    scored = cli("score", out)
    assert "6 answers scored now, 6 already scored" in scored.stderr, scored.stderr
    with RunStore(out) as store:
        found = repeatability(store)
    assert found is not None and [p.k for p in found.passes] == [1, 2, 3, 4]
    scripted.clear()
    run(shop, out, model, "-M", "temperature=0.8")  # the run remembers its 4 tries: nothing left to ask
    assert seeds(scripted) == {}
    with RunStore(out) as store:
        assert store.repeats() == 4
        assert Counter(number for number, _ in store.answers_of_tries()) == {0: 3, 1: 3, 2: 3, 3: 3}


def test_a_stopped_run_resumes_without_asking_a_try_twice(
    shop: Path, tmp_path: Path, scripted: list[MockProvider]
) -> None:
    out = tmp_path / "stopped.run"
    model = "mock:seeded-stopped"
    run(shop, out, model, "-M", "temperature=0.8", "--repeats", "3", "--max-calls", "4")
    first = seeds(scripted)
    assert sum(first.values()) == 4
    scripted.clear()
    run(shop, out, model, "-M", "temperature=0.8", "--repeats", "3")
    second = seeds(scripted)
    assert first + second == {0: 3, SEED_STRIDE: 3, 2 * SEED_STRIDE: 3}
    with RunStore(out) as store:
        assert Counter(number for number, _ in store.answers_of_tries()) == {0: 3, 1: 3, 2: 3}


def test_a_run_file_of_the_format_before_tries_reads_as_try_0(tmp_path: Path) -> None:
    """The fixture is a gold run of three questions scored with the metrics, made by the biarena of run format 4."""
    old = tmp_path / "old.run"
    shutil.copyfile(FIXTURES / "run_format4.run", old)
    with RunStore(old) as store:
        assert store.tries() == [0] and store.repeats() == 1
        assert [a.question_id for a in store.answers()] == ["q0000", "q0001", "q0002"]
        assert {s.value for s in store.scores() if s.name == "execution_accuracy"} == {1.0}
        assert store.at_try(1).answers() == [] and repeatability(store) is None
    rows = exported(old)
    assert [(r["question_id"], r["try"], r["tries_agree"]) for r in rows] == [
        ("q0000", 0, None),
        ("q0001", 0, None),
        ("q0002", 0, None),
    ]
    shown = cli("show", old)
    assert shown.returncode == 0 and "tries agree" not in shown.stdout
