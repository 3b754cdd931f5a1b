"""`faithfulness`: claims read from the prose (English and Chinese) and checked against the answer's own results."""

import pytest

from biarena.judges import ScorerContext
from biarena.judges.base import to_scores
from biarena.judges.claims import chinese_number, extract_claims
from biarena.judges.faithfulness import FaithfulnessJudge
from biarena.records import Answer, Question, Step, SystemSpec
from biarena.scoring import get_scorer

QUESTION = Question(id="q1", text="How did sales go?", database="sales")
STEPS = [
    Step(sql="SELECT COUNT(*) FROM sales", columns=["n"], preview=[[12345]], row_count=1),
    Step(
        sql="SELECT region, SUM(amount) AS total FROM sales GROUP BY 1 ORDER BY 2 DESC",
        columns=["region", "total"],
        preview=[["east", 35000.0], ["west", 12345.678], ["north", 4200.0]],
        row_count=3,
    ),
    Step(sql="SELECT MAX(day) FROM sales", columns=["day"], preview=[["2024-11-28"]], row_count=1),
]


def _judge(text: str, steps: list[Step] = STEPS, **options):
    answer = Answer(question_id="q1", system=SystemSpec(agent="test"), steps=steps, text=text)
    judge = FaithfulnessJudge(**options)
    return judge.judge(QUESTION, answer, ScorerContext(scoring=None, model=None)), judge


def _verdicts(text: str, steps: list[Step] = STEPS) -> list[tuple[str, str]]:
    judgement, _ = _judge(text, steps)
    return [(m["reason"], m["dimension"]) for m in judgement.sub_scores["sub_metrics"].values()]


def test_chinese_numerals() -> None:
    assert chinese_number("三千五百") == 3500
    assert chinese_number("两万") == 20000
    assert chinese_number("十二") == 12
    assert chinese_number("三点五") == 3.5
    assert chinese_number("一亿二千万") == 120_000_000
    assert chinese_number("abc") is None


def test_claims_are_read_with_units_separators_and_kinds() -> None:
    claims = extract_claims(
        "Sales reached 12,345 orders (query 1) worth $1.2 million; east is 35.0k. Growth was 12.5% on 2024-11-28, "
        "from November 24 to 28 at 10:30 in 2024. 销售额约为3.5万元，占比百分之二十，共一千二百三十四笔。"
        " The top region is east."
    )
    by_text = {c.text: c for c in claims}
    assert by_text["12,345"].value == 12345 and by_text["12,345"].cited == (1,)
    assert by_text["$1.2 million"].kind == "money" and by_text["$1.2 million"].value == pytest.approx(1.2e6)
    assert by_text["35.0k"].value == pytest.approx(35000) and by_text["35.0k"].decimals == 1
    assert by_text["12.5%"].kind == "percent" and by_text["12.5%"].value == 12.5
    assert by_text["2024-11-28"].kind == "date"
    assert by_text["3.5万元"].value == pytest.approx(35000) and by_text["3.5万元"].about
    assert by_text["百分之二十"].kind == "percent" and by_text["百分之二十"].value == 20
    assert by_text["一千二百三十四"].value == 1234
    rank = next(c for c in claims if c.kind == "rank")
    assert rank.top and rank.label.startswith("east")
    written = {c.text for c in claims}
    assert not written & {"24", "28", "10", "30", "2024", "1"}  # day ranges, times, years and query numbers


def test_supported_contradicted_and_not_found() -> None:
    verdicts = _verdicts(
        "We had 12,345 sales in all (query 1). East brought 35,000 and west 12,346 (query 2); north brought 9,999 "
        "(query 2). The top region is east, and the smallest is west. The last sale was on 2024-11-28. "
        "East took 67.9% of the three regions' 51,546 (query 2). Next year may bring 77 new stores."
    )
    shown = dict(verdicts)
    assert shown["[number] 12,345: query 1 gives 12345"] == "supported"
    assert any(r.startswith("[number] 12,346") and d == "supported" for r, d in verdicts)  # rounding of 12345.678
    assert any(r.startswith("[number] 9,999") and d == "contradicted" for r, d in verdicts)  # north's row says 4200
    assert any(r.startswith("[rank]") and "east" in r and d == "supported" for r, d in verdicts)
    assert any(r.startswith("[rank]") and "west" in r and d == "contradicted" for r, d in verdicts)
    assert any(r.startswith("[date]") and d == "supported" for r, d in verdicts)
    assert any(r.startswith("[percent] 67.9%") and d == "supported" for r, d in verdicts)  # 35000 of the total
    assert any(r.startswith("[number] 51,546") and d == "supported" for r, d in verdicts)  # the column's total
    assert any(r.startswith("[number] 77") and d == "not found" for r, d in verdicts)


def test_chinese_prose_is_checked_too() -> None:
    steps = [Step(sql="SELECT 1", columns=["region", "n"], preview=[["华东", 35000], ["华北", 12000]], row_count=2)]
    verdicts = dict(_verdicts("华东的订单约为3.5万笔，华北为一万二千笔；最多的是华东。", steps))
    assert set(verdicts.values()) == {"supported"}
    verdicts = dict(_verdicts("华东的订单为5万笔；最多的是华北。", steps))
    assert set(verdicts.values()) == {"contradicted"}


def test_scores_are_shares_and_the_trace_lists_every_claim() -> None:
    judgement, judge = _judge("We had 12,345 sales (query 1) and 777 returns (query 1). 42 stores opened.")
    assert judgement.scores == {"faithfulness": pytest.approx(1 / 3), "faithfulness.contradicted": pytest.approx(1 / 3)}
    assert judgement.sub_scores["claims"] == 3 and judgement.sub_scores["not_found"] == 1
    records = to_scores(judge, ScorerContext(scoring=None, model=None), QUESTION, judgement)
    headline = next(r for r in records if r.name == "faithfulness")
    assert len(headline.sub_scores["sub_metrics"]) == 3 and "1 of 3 claims supported" in headline.rationale
    empty, _ = _judge("Sales went well.")
    assert empty.scores == {"faithfulness": 0.0, "faithfulness.contradicted": 0.0}
    assert "no claim" in (empty.rationale or "")


def test_registered_without_a_model() -> None:
    judge = get_scorer("faithfulness")
    assert judge.needs_model is False and judge.produces == ("faithfulness", "faithfulness.contradicted")
    assert get_scorer("faithfulness", about=0.1).version != judge.version


def test_scored_and_traced_through_the_commands(tmp_path, sales_db) -> None:
    from tests.cli_in_process import cli
    from tests.judge_run_helpers import answer_for, corgi_bench, write_run

    bench = corgi_bench(tmp_path, sales_db, 2)
    question = bench.questions[0]
    answer = answer_for(question).model_copy(update={"text": "There were 400 sales (query 1), not 520 (query 1)."})
    run = write_run(tmp_path / "r.run", bench, {question.id: answer})
    scored = cli("score", run, "--scorer", "faithfulness")
    assert scored.returncode == 0, scored.stderr
    trace = cli("show", run, "--trace", question.id)
    assert trace.returncode == 0, trace.stderr
    assert "faithfulness v1" in trace.stdout and "faithfulness = 0.5" in trace.stdout
    assert "claim 1 (supported): 1 — [number] 400: query 1 gives 400" in trace.stdout
    assert "claim 2 (contradicted): 0 — [number] 520: not in the queries it cites" in trace.stdout
