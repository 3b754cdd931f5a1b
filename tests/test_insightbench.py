"""InsightBench: the importer on three published flags, its ROUGE-1 score as the published code computes it, the
value check, the matcher and `judge check` pairs."""

import json
import math
import shutil
import sqlite3
from pathlib import Path

import pytest
from rouge_score import rouge_scorer, scoring

from biarena.benchmarks import load_benchmark, open_import
from biarena.judges.base import ScorerContext
from biarena.judges.insight_list import answer_insights
from biarena.judges.insight_match import InsightMatchJudge, read_reply
from biarena.judges.insight_rouge import InsightRougeScorer, flag_rouge, rouge1
from biarena.judges.insight_values import Fact, InsightValuesJudge, value_facts
from biarena.judges.insightbench_pairs import insightbench_pairs
from biarena.llm import Completion, MockProvider, Model, TokenLogprob
from biarena.llm.cache import ResponseCache
from biarena.records import Answer, Question, SystemSpec
from tests.cli_in_process import cli

FIXTURE = Path(__file__).parent / "fixtures" / "insightbench"
INSIGHTS = {1: 6, 21: 3, 37: 4}
"""Flags in the test data and their insights (every one has a question)."""


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("ib") / "bench"
    result = cli("import", "insightbench", FIXTURE, "-o", out, "--no-gold-check")
    assert result.returncode == 0, result.stderr
    return out


def _answer(question: Question, text: str) -> Answer:
    return Answer(question_id=question.id, system=SystemSpec(agent="test"), text=text)


def test_import_makes_a_database_per_flag_a_question_per_insight_and_one_per_goal(imported: Path) -> None:
    bench = load_benchmark(imported)
    assert sorted(bench.databases) == ["flag-1", "flag-21", "flag-37"]
    assert len(bench.questions) == sum(INSIGHTS.values()) + len(INSIGHTS)
    goal = next(q for q in bench.questions if q.id == "flag-1/goal")
    assert goal.text.startswith("Find the discrepancy")
    assert goal.labels == ["insightbench:goal", "insightbench-domain:incidents"]
    assert goal.knowledge == "Your role: L2 Support Agent."
    assert len(goal.evidence["insights"]) == 6 and goal.evidence["summary"]
    first = next(q for q in bench.questions if q.id == "flag-1/insight-1")
    assert first.labels[0] == "insightbench:descriptive" and first.domain == "incidents"
    assert first.reference_answer.splitlines()[:2] == [
        "hardware incidents is significantly higher than others",
        'Values: x_val: "Hardware"; y_val: 335',
    ]
    # the published spellings map to the documented set: 'location-based retention analysis', 'analytical'
    types = [q.labels[0] for q in bench.questions if q.database == "flag-37" and q.id != "flag-37/goal"]
    expected = ["descriptive", "comparative", "diagnostic", "diagnostic"]
    assert types == [f"insightbench:{kind}" for kind in expected]
    # an action the files give as an object is kept as its text
    assert "Action: " in next(q for q in bench.questions if q.id == "flag-21/insight-1").reference_answer


def test_csv_columns_are_typed(imported: Path) -> None:
    bench = load_benchmark(imported)
    with sqlite3.connect(bench.database_location("flag-1")) as conn:
        types = {row[1]: row[2] for row in conn.execute("PRAGMA table_info(incidents)")}
        rows = conn.execute("SELECT closed_at, opened_at, category FROM incidents LIMIT 2").fetchall()
    assert types["opened_at"] == "TIMESTAMP" and types["category"] == "TEXT"
    # nanoseconds are cut to microseconds; a zero fraction is dropped
    assert rows[1][0] == "2023-01-11 01:17:39.128189" and rows[0][1] == "2023-01-02 11:04:00"
    with sqlite3.connect(bench.database_location("flag-21")) as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        amount = {row[1]: row[2] for row in conn.execute("PRAGMA table_info(expenses)")}["amount"]
    assert tables == {"expenses", "sys_user"} and amount == "INTEGER"


def test_duckdb_engine(tmp_path: Path) -> None:
    duckdb = pytest.importorskip("duckdb")
    with open_import("insightbench", FIXTURE, engine="duckdb", flags=[1]) as made:
        path = made.benchmark.database_location("flag-1")
        with duckdb.connect(path, read_only=True) as conn:
            kinds = dict(conn.execute("SELECT column_name, data_type FROM information_schema.columns").fetchall())
            count = conn.execute("SELECT count(*) FROM incidents").fetchone()[0]
    assert kinds["opened_at"] == "TIMESTAMP" and count == 40
    assert made.benchmark.databases["flag-1"].dialect == "duckdb"


def test_a_flag_without_its_csv_is_one_note_and_the_others_import(tmp_path: Path) -> None:
    copy = tmp_path / "repo"
    shutil.copytree(FIXTURE, copy)
    (copy / "data" / "notebooks" / "csvs" / "flag-37.csv").unlink()
    result = cli("import", "insightbench", copy, "-o", tmp_path / "out", "--no-gold-check")
    assert result.returncode == 0, result.stderr
    notes = [line for line in result.stderr.splitlines() if "CSV is missing" in line]
    assert len(notes) == 1 and "flag-37" in notes[0]
    assert sorted(load_benchmark(tmp_path / "out").databases) == ["flag-1", "flag-21"]


def test_a_broken_flag_is_one_line(tmp_path: Path) -> None:
    copy = tmp_path / "repo"
    shutil.copytree(FIXTURE, copy)
    (copy / "data" / "notebooks" / "flag-1.json").write_text('{"insight_list": 3}', encoding="utf-8")
    result = cli("import", "insightbench", copy, "-o", tmp_path / "out")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [result.stderr.strip()]
    assert "flag-1.json" in result.stderr and "insight_list" in result.stderr


def test_a_table_wider_than_sqlite_allows_is_one_line(tmp_path: Path) -> None:
    copy = tmp_path / "repo"
    shutil.copytree(FIXTURE, copy)
    header = ",".join(f"c{i}" for i in range(2500))
    (copy / "data" / "notebooks" / "csvs" / "flag-1.csv").write_text(f"{header}\n{','.join(['1'] * 2500)}\n")
    result = cli("import", "insightbench", copy, "-o", tmp_path / "out", "--no-gold-check")
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip().splitlines() == [result.stderr.strip()] and "Traceback" not in result.stderr
    assert "2500 columns" in result.stderr and "-O engine=duckdb" in result.stderr


def test_a_gold_free_run_is_scored_by_rouge_and_values(imported: Path, tmp_path: Path) -> None:
    run = tmp_path / "run.sqlite"
    result = cli("run", imported, "--agent", "sequential", "--model", "mock", "-o", run)
    assert result.returncode == 0, result.stderr
    result = cli("score", run, "--scorer", "insight_rouge", "--scorer", "insight_values")
    assert result.returncode == 0, result.stderr
    with sqlite3.connect(run) as conn:
        rows = conn.execute("SELECT applies, scores FROM results").fetchall()
    names: dict[str, int] = {}
    for applies, stored in rows:
        if applies:
            for score in json.loads(stored):
                names[score["name"]] = names.get(score["name"], 0) + (score["value"] is not None)
    # every question gets ROUGE-1; the goals their summary score; the values only where the ground truth has a number
    assert names["insight_rouge"] == sum(INSIGHTS.values()) + len(INSIGHTS)
    assert names["insight_rouge.summary"] == len(INSIGHTS)
    assert 0 < names["insight_values"] < sum(INSIGHTS.values()) + len(INSIGHTS)


TEXTS = [
    ("Hardware incidents are significantly higher than others.", "hardware incidents is significantly higher"),
    ("HARDWARE: 335 incidents (67%)!", "Hardware has 335 incidents, 67 percent of all."),
    ("Le café coûte 3,50 € à Zürich", "Cafe costs 3.50 EUR in Zurich"),
    ("预算超支 in Q3 2023", "Q3 2023 budget overrun"),
    ("", "anything at all"),
    ("the the the cat", "the cat sat on the mat"),
    ("Average TTR rose from 2.5 to 7.1 days; see flag-12.", "TTR rose to 7.1 days"),
]


@pytest.mark.parametrize(("prediction", "reference"), TEXTS)
def test_rouge1_is_evaluates_figure(prediction: str, reference: str) -> None:
    # `evaluate`'s rouge: RougeScorer(["rouge1"], use_stemmer=False), scorer.score(ref, pred), BootstrapAggregator,
    # the middle value's F
    aggregator = scoring.BootstrapAggregator()
    aggregator.add_scores(rouge_scorer.RougeScorer(["rouge1"], use_stemmer=False).score(reference, prediction))
    assert rouge1(prediction, reference) == aggregator.aggregate()["rouge1"].mid.fmeasure


def test_non_ascii_text_is_dropped_by_the_tokenizer() -> None:
    assert rouge1("预算超支", "预算超支") == 0.0
    assert rouge1("Zürich", "Zrich") == 0.0 and rouge1("Zürich", "Z rich") == 1.0


def test_flag_score_by_hand() -> None:
    predictions = ["sales rose in march", "costs fell", "sales rose"]
    references = ["sales rose", "costs fell sharply", ""]
    # "sales rose": 1.0 with prediction 3 (2/4 tokens with 1: F 2*1*0.5/1.5 = 2/3); "costs fell sharply": P 1, R 2/3,
    # F 0.8; the empty one 0: (1 + 0.8 + 0) / 3
    value, matches = flag_rouge(predictions, references)
    assert value == pytest.approx((1.0 + 0.8 + 0.0) / 3)
    assert [m.prediction for m in matches] == ["sales rose", "costs fell", "sales rose in march"]
    assert flag_rouge([], ["x"])[0] == 0.0 and flag_rouge(["x"], [])[0] is None


def test_answer_insights_from_a_list_bullets_or_sentences() -> None:
    assert answer_insights('["a finding", "another"]') == ["a finding", "another"]
    assert answer_insights('{"insights": [{"insight": "one"}, "two"]}') == ["one", "two"]
    assert answer_insights("Findings:\n- first one\n  goes on\n- second") == ["first one goes on", "second"]
    assert answer_insights("Sales rose 5%. Costs fell.") == ["Sales rose 5%.", "Costs fell."]


def test_gold_like_replay_scores_one(imported: Path) -> None:
    bench = load_benchmark(imported)
    scorer = InsightRougeScorer()
    for question in bench.questions:
        evidence = question.evidence
        text = evidence["insight"] if "insight" in evidence else json.dumps(evidence["insights"])
        assert scorer.judge(question, _answer(question, text), None).scores["insight_rouge"] == 1.0


def test_value_check_states_and_contradicts(imported: Path) -> None:
    question = next(q for q in load_benchmark(imported).questions if q.id == "flag-1/insight-1")
    judge = InsightValuesJudge()
    assert value_facts({"x_val": "Hardware", "y_val": 335}) == [Fact(335.0, ("Hardware",), False, "y_val")]
    stated = judge.judge(question, _answer(question, "Hardware has 335 incidents."), None).scores
    assert stated == {"insight_values": 1.0, "insight_values.contradicted": 0.0}
    wrong = judge.judge(question, _answer(question, "Hardware has 120 incidents."), None).scores
    assert wrong == {"insight_values": 0.0, "insight_values.contradicted": 1.0}
    assert not judge.applies(next(q for q in load_benchmark(imported).questions if q.id == "flag-1/insight-2"))


def test_values_written_as_text_are_figures_of_their_names() -> None:
    facts = value_facts({"IT": {"Critical": "61.1%"}, "Other": {"Critical": "Average 58.3%"}, "HR": "4874.25$"})
    assert facts == [
        Fact(61.1, ("IT", "Critical"), True),
        Fact(58.3, ("Other", "Critical"), True),
        Fact(4874.25, ("HR",), False),
    ]
    rows = value_facts({"agents": ["Beth", "Fred"], "incidents": [188, 40]})
    assert [(f.names, f.value) for f in rows] == [(("Beth",), 188.0), (("Fred",), 40.0)]


def test_the_reference_itself_is_not_contradicted_but_wrong_figures_are(imported: Path) -> None:
    questions = load_benchmark(imported).questions
    judge = InsightValuesJudge()
    scored = [q for q in questions if judge.applies(q) and q.reference_answer]
    assert scored
    for question in scored:
        # the whole reference: the insight, its values and its action prose (with figures of its own)
        gold = judge.judge(question, _answer(question, question.reference_answer), None).scores
        assert gold["insight_values.contradicted"] == 0.0, question.id
    question = next(q for q in questions if q.id == "flag-1/insight-1")
    action = (
        "Hardware has 335 incidents. Deploy 2 technicians to the hardware team within 3 weeks; Hardware incidents "
        "could fall by 40% and Hardware's 335 would be 20 fewer each month."
    )
    judgement = judge.judge(question, _answer(question, action), None)
    assert judgement.scores == {"insight_values": 1.0, "insight_values.contradicted": 0.0}
    # the same measure of the same name, with another figure, is contradicted; a percent of it is another measure
    wrong = judge.judge(question, _answer(question, "Hardware: 120 incidents, 36% of them in March."), None)
    assert wrong.scores["insight_values.contradicted"] == 0.5
    # figures of a date the claim extraction does not read, and a question's number, are no claims
    dated = judge.judge(question, _answer(question, "From 01-06-2023 (question 2) hardware rose."), None)
    assert dated.sub_scores["claims"] == 0


def _rating(text: str, top: dict[str, float] | None = None) -> Completion:
    """A scripted reply, with the log-probabilities of its first token when `top` gives them."""
    logprobs = ()
    if top is not None:
        ranked = tuple(sorted(((t, math.log(p)) for t, p in top.items()), key=lambda item: -item[1]))
        logprobs = (TokenLogprob(text[0], math.log(top[text[0]]), ranked),)
    return Completion(text=text, completion_tokens=len(text.split()), logprobs=logprobs)


def test_matcher_averages_the_ratings(imported: Path) -> None:
    question = next(q for q in load_benchmark(imported).questions if q.id == "flag-21/goal")
    mock = MockProvider(["4 1", "Rating: 2, finding 2", "1 0"])
    judgement = InsightMatchJudge().judge(
        question, _answer(question, "- first\n- second"), ScorerContext(scoring=None, model=Model(mock))
    )
    # no log-probabilities: the ratings as written, (rating - 1) / 4
    assert judgement.scores["insight_match"] == pytest.approx((0.75 + 0.25 + 0.0) / 3)
    assert len(judgement.trace) == 3 and "first" in judgement.trace[0].messages[-1]["content"]
    assert [judgement.sub_scores["sub_metrics"][f"insight {i}"]["match"] for i in (1, 2, 3)] == [1, 2, 0]
    # the reply is one digit first and a few tokens, and log-probabilities are asked for
    assert all(r.max_tokens <= 8 and r.logprobs == 5 for r in mock.requests)
    assert read_reply("10") is None and read_reply(" 5") == (5, 0)


def test_matcher_weights_the_rating_by_its_token_probabilities(imported: Path, tmp_path: Path) -> None:
    question = next(q for q in load_benchmark(imported).questions if q.id == "flag-1/insight-1")
    # G-Eval: "4" written, but 5 and 3 are likely too; "The" is no rating and is left out of the mean
    reply = _rating("4 1", {"4": 0.5, "5": 0.2, "3": 0.2, "The": 0.1})
    mock = MockProvider([reply])
    model = Model(mock, cache=ResponseCache(tmp_path / "cache.sqlite"))
    answer = _answer(question, "Hardware incidents are the most common.")
    judge = InsightMatchJudge()
    judgement = judge.judge(question, answer, ScorerContext(scoring=None, model=model))
    expected = (4 * 0.5 + 5 * 0.2 + 3 * 0.2) / 0.9
    assert judgement.sub_scores["sub_metrics"]["insight 1"]["weighted"] == pytest.approx(expected)
    assert judgement.scores["insight_match"] == pytest.approx((expected - 1) / 4)
    assert judgement.trace[0].parsed["probabilities"] == pytest.approx({"3": 0.2 / 0.9, "4": 0.5 / 0.9, "5": 0.2 / 0.9})
    # a cached reply keeps its log-probabilities: judged again, no call and the same score
    again = judge.judge(question, answer, ScorerContext(scoring=None, model=model))
    assert len(mock.requests) == 1 and again.trace[0].cached
    assert again.scores == judgement.scores
    # an endpoint that gives none (asked for none here): the written rating
    plain = InsightMatchJudge(logprobs=0).judge(question, answer, ScorerContext(scoring=None, model=Model(mock)))
    assert mock.requests[-1].logprobs is None
    assert plain.scores["insight_match"] == pytest.approx(0.75)


def test_a_reply_without_a_rating_is_asked_again_then_fails(imported: Path) -> None:
    question = next(q for q in load_benchmark(imported).questions if q.id == "flag-1/insight-1")
    answer = _answer(question, "Hardware incidents are the most common.")
    mock = MockProvider(["The best finding is", "3 1"])
    judgement = InsightMatchJudge().judge(question, answer, ScorerContext(scoring=None, model=Model(mock)))
    assert judgement.scores["insight_match"] == 0.5 and judgement.trace[0].rejected == ["The best finding is"]
    never = InsightMatchJudge().judge(question, answer, ScorerContext(scoring=None, model=Model(MockProvider(["?"]))))
    assert never.failed and never.scores == {"insight_match": None}


def test_judge_check_pairs_from_an_imported_insightbench(imported: Path) -> None:
    questions = load_benchmark(imported).questions
    pairs = insightbench_pairs(questions, lambda q: True, 20, 0)
    assert len(pairs) == 20
    # the three flags are of three domains, so no flag has another of its domain to borrow a finding from
    assert {p.degradation for p in pairs} == {"other_finding", "wrong_figures"}
    for pair in pairs:
        assert pair.good.text and pair.degraded.text and pair.good.text != pair.degraded.text
    scorer = InsightValuesJudge()
    figures = [p for p in pairs if p.degradation == "wrong_figures" and scorer.applies(p.question)]
    for pair in figures:
        good = scorer.judge(pair.question, pair.good, None).scores["insight_values"]
        worse = scorer.judge(pair.question, pair.degraded, None).scores["insight_values"]
        assert good > worse
