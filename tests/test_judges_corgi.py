"""The `corgi` and `corgi-single` judges with the mock model: the rubric, coverage, aggregation, SER and failures."""

import json
from pathlib import Path
from typing import Any

import pytest

from biarena.db import DatabasePool
from biarena.judges import ScorerContext
from biarena.judges.corgi import corgi_type
from biarena.judges.rubric import corgi_rubric, load_builtin_rubric
from biarena.llm.types import ChatRequest, Completion
from biarena.metrics import ScoringContext
from biarena.records import Answer, Question, SystemSpec
from biarena.scoring import get_scorer
from tests.judge_run_helpers import answer_for, corgi_bench, fill, mock_model, valid_reply

XLSX = Path(__file__).resolve().parents[2] / "shared" / "external" / "corgi" / "CORGI-Evaluation-Framework.xlsx"

GENERAL = [
    "argument_soundness",
    "logical_coherence",
    "verbosity",
    "sql_success_execution_rate",
    "information_adequacy",
    "trend_awareness",
    "out_of_box_thinking",
]


@pytest.fixture
def bench(tmp_path: Path, sales_db: Path):
    """Four questions over the sales database, CORGI types 1-4."""
    return corgi_bench(tmp_path, sales_db, 4)


def context_for(bench, model, rubric=None) -> ScorerContext:
    loaded = rubric or load_builtin_rubric("corgi.yaml")
    scoring = ScoringContext(benchmark=bench, databases=DatabasePool(bench))
    return ScorerContext(scoring=scoring, model=model, rubric=loaded.data, rubric_hash=loaded.hash)


def question(bench, kind: int) -> Question:
    return next(q for q in bench.questions if f"corgi:type{kind}" in q.labels)


def scripted(discriminator: list[str], scores: dict[str, int]) -> Any:
    """A model: the discriminator picks `discriminator`; scoring agents give `scores` per sub-metric."""

    def reply(request: ChatRequest) -> str:
        schema = request.schema_dict() or {}
        if "sub_metrics" in schema.get("properties", {}):
            return json.dumps({"sub_metrics": discriminator})
        return json.dumps(
            {key: {"reason": f"{key} is as scripted", "score": scores.get(key)} for key in schema["properties"]}
        )

    return reply


def roles(judgement) -> list[str]:
    return [entry.role for entry in judgement.trace]


# --- the rubric ------------------------------------------------------------------------------------------------


def test_builtin_rubric_has_corgis_seven_dimensions_and_seventeen_sub_metrics() -> None:
    rubric = corgi_rubric(load_builtin_rubric("corgi.yaml").data)
    assert [d.name for d in rubric.dimensions] == [
        "Structure",
        "SQL Success Execution Rate",
        "Data Sense",
        "Insightfulness",
        "Operational Implementability",
        "Purpose Alignment",
        "Compliance",
    ]
    metrics = [m for d in rubric.dimensions for m in d.sub_metrics]
    assert len(metrics) == 17
    for metric in metrics:
        if metric.computed is None:
            assert sorted(metric.anchors) == [0, 3, 5], metric.key
    assert rubric.judged_types == ["type2", "type3", "type4"]


@pytest.mark.skipif(not XLSX.is_file(), reason="CORGI's published rubric is not beside this checkout")
def test_builtin_rubric_follows_corgis_published_framework() -> None:
    openpyxl = pytest.importorskip("openpyxl")
    sheet = openpyxl.load_workbook(XLSX, read_only=True)["Sheet1"]
    published: list[tuple[str, str, str]] = []
    category = ""
    for row in sheet.iter_rows(min_row=3, values_only=True):
        if not row[1]:
            continue
        category = row[0] or category
        published.append((category.strip(), row[1].strip(), row[2].strip()))
    rubric = corgi_rubric(load_builtin_rubric("corgi.yaml").data)
    ours = [(d.name, m.name, m.coverage) for d in rubric.dimensions for m in d.sub_metrics]
    assert len(ours) == len(published) == 17
    kinds = {
        "Explanation": "type2",
        "Prediction": "type3",
        "Prediction (numerical)": "type3",
        "Recommendation": "type4",
    }
    for (dimension, name, coverage), (their_dimension, their_name, their_coverage) in zip(ours, published, strict=True):
        assert name.lower() == their_name.lower()
        assert dimension.startswith(their_dimension.split()[0])  # the paper's text says Operational
        if their_coverage == "General":
            assert coverage.general == ["type2", "type3", "type4"] and not coverage.unique
        else:
            assert coverage.unique == [kinds[their_coverage.removeprefix("Unique - ")]] and not coverage.general


def test_general_and_optional_sub_metrics_per_question_type() -> None:
    rubric = corgi_rubric(load_builtin_rubric("corgi.yaml").data)
    for kind in ("type2", "type3", "type4"):
        assert rubric.general(kind) == GENERAL
    assert rubric.unique("type2")[0] == "root_cause_depth"
    assert rubric.unique("type3")[:2] == ["model_selection_rationality", "assumption_appropriateness"]
    assert rubric.unique("type4")[:7] == [
        "actionability",
        "time_based_planning",
        "goal_orientation",
        "stakeholder_orientation",
        "risk_management",
        "regulatory_compliance",
        "ethical_responsibility",
    ]
    assert len(rubric.unique("type4")) == 10


def test_a_broken_rubric_is_one_line_naming_the_problem() -> None:
    data = load_builtin_rubric("corgi.yaml").data
    data["dimensions"][0]["sub_metrics"][0]["coverage"] = {"general": ["type9"]}
    with pytest.raises(Exception, match="unknown question type 'type9'") as caught:
        corgi_rubric(data, "mine.yaml")
    assert "\n" not in str(caught.value) and "mine.yaml" in str(caught.value)


def test_corgi_judges_types_two_to_four(bench) -> None:
    judge = get_scorer("corgi")
    assert [judge.applies(q) for q in bench.questions] == [False, True, True, True]
    assert [corgi_type(q) for q in bench.questions] == ["type1", "type2", "type3", "type4"]


# --- coverage, aggregation, SER -------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", [2, 3, 4])
def test_general_sub_metrics_are_scored_even_when_the_discriminator_picks_none(bench, kind: int) -> None:
    model = mock_model([scripted([], {})])
    model.provider.replies = [valid_reply(score=2, pick=False)]
    judgement = get_scorer("corgi").judge(
        question(bench, kind), answer_for(question(bench, kind)), context_for(bench, model)
    )
    assert judgement.failed is None
    assert list(judgement.sub_scores["sub_metrics"]) == GENERAL
    assert roles(judgement) == ["discriminator", "Structure", "Data Sense", "Insightfulness"]
    assert set(judgement.scores) == {
        "corgi",
        "corgi.structure",
        "corgi.ser",
        "corgi.data_sense",
        "corgi.insightfulness",
    }
    # three dimensions at 2, SER 3 of 4 statements = 0.75 -> 3.75 on the 0-5 scale
    assert judgement.scores["corgi.ser"] == 0.75
    assert judgement.scores["corgi"] == pytest.approx((2 + 2 + 2 + 3.75) / 4)


def test_dimension_is_the_mean_of_its_sub_metrics_and_final_the_mean_of_dimensions(bench) -> None:
    scores = {
        "argument_soundness": 5,
        "logical_coherence": 3,
        "verbosity": 1,
        "information_adequacy": 4,
        "trend_awareness": 2,
        "out_of_box_thinking": 0,
        "actionability": 5,
        "risk_management": 1,
    }
    model = mock_model([scripted(["risk_management", "actionability"], scores)])
    q = question(bench, 4)
    judgement = get_scorer("corgi").judge(q, answer_for(q, ok_steps=1, failed_steps=3), context_for(bench, model))
    assert judgement.failed is None
    got = judgement.scores
    assert got["corgi.structure"] == pytest.approx(3.0)
    assert got["corgi.data_sense"] == pytest.approx(3.0)
    assert got["corgi.insightfulness"] == 0.0
    assert got["corgi.operational_implementability"] == 5.0
    assert got["corgi.compliance"] == 1.0
    assert "corgi.purpose_alignment" not in got  # no applicable sub-metric: not a dimension of this answer
    assert got["corgi.ser"] == 0.25  # the raw fraction
    assert got["corgi"] == pytest.approx((3 + 1.25 + 3 + 0 + 5 + 1) / 6)
    assert roles(judgement) == [
        "discriminator",
        "Structure",
        "Data Sense",
        "Insightfulness",
        "Operational Implementability",
        "Compliance",
    ]
    parts = judgement.sub_scores["sub_metrics"]
    assert parts["actionability"] == {
        "dimension": "operational_implementability",
        "coverage": "unique",
        "score": 5.0,
        "reason": "actionability is as scripted",
    }
    assert parts["sql_success_execution_rate"]["reason"] == "1 of 4 SQL statements ran without error"


def test_at_most_one_call_per_scoring_agent_plus_the_discriminator_and_ser_is_never_asked(bench) -> None:
    model = mock_model([valid_reply(score=3, pick=True)])
    q = question(bench, 4)
    judgement = get_scorer("corgi").judge(q, answer_for(q), context_for(bench, model))
    requests = model.provider.requests
    assert len(requests) == 7 <= 8
    assert [e.role for e in judgement.trace].count("discriminator") == 1
    assert len(set(roles(judgement))) == len(roles(judgement))
    for request in requests:
        assert "sql_success_execution_rate" not in json.dumps(request.schema_dict())
    assert set(judgement.scores) == {
        "corgi",
        *(
            f"corgi.{d}"
            for d in (
                "structure",
                "ser",
                "data_sense",
                "insightfulness",
                "operational_implementability",
                "purpose_alignment",
                "compliance",
            )
        ),
    }


def test_ser_comes_from_the_answers_statements(bench) -> None:
    q = question(bench, 2)
    model = mock_model([valid_reply(score=5, pick=False)])
    only_final = Answer(
        question_id=q.id, system=SystemSpec(agent="x"), final_sql="SELECT count(*) FROM sales", text="Sales rose."
    )
    judged = get_scorer("corgi").judge(q, only_final, context_for(bench, model))
    assert judged.scores["corgi.ser"] == 1.0 and judged.scores["corgi"] == 5.0
    broken = only_final.model_copy(update={"final_sql": "SELECT nope FROM sales"})
    judged = get_scorer("corgi").judge(q, broken, context_for(bench, model))
    assert judged.scores["corgi.ser"] == 0.0
    assert judged.scores["corgi"] == pytest.approx((5 + 0 + 5 + 5) / 4)
    none = Answer(question_id=q.id, system=SystemSpec(agent="x"), text="Sales rose.")
    judged = get_scorer("corgi").judge(q, none, context_for(bench, model))
    assert judged.scores["corgi.ser"] == 0.0
    assert judged.sub_scores["sub_metrics"]["sql_success_execution_rate"]["reason"] == "the answer ran no SQL statement"


def test_a_long_answer_is_cut_and_the_judge_told(bench) -> None:
    q = question(bench, 2)
    model = mock_model([valid_reply()])
    long = answer_for(q).model_copy(update={"text": "word " * 3000})
    get_scorer("corgi").judge(q, long, context_for(bench, model))
    prompt = model.provider.requests[0].messages[1][1]
    assert "[... the answer continues for 8999 more characters]" in prompt


# --- malformed and truncated replies -----------------------------------------------------------------------------


def test_a_malformed_reply_is_asked_again_once_and_then_read(bench) -> None:
    q = question(bench, 2)
    good = valid_reply(score=4, pick=False)
    model = mock_model(["this is not JSON", good])
    judgement = get_scorer("corgi").judge(q, answer_for(q), context_for(bench, model))
    assert judgement.failed is None
    assert judgement.trace[0].rejected == ["this is not JSON"]
    assert len(model.provider.requests) == 1 + 1 + 3
    assert "this is not JSON" in model.provider.requests[1].messages[-2][1]  # the retry shows what was wrong


@pytest.mark.parametrize(
    "bad",
    [
        "Sure! Here are the scores you asked for.",
        Completion(text='{"sub_metrics": ["root_cau', finish_reason="length"),
        '{"sub_metrics": ["not_a_metric"]}',
    ],
    ids=["malformed", "truncated", "off-schema"],
)
def test_a_reply_invalid_twice_is_a_failed_judgement_with_the_raw_reply(bench, bad) -> None:
    q = question(bench, 2)
    model = mock_model([bad, bad])
    judgement = get_scorer("corgi").judge(q, answer_for(q), context_for(bench, model))
    assert judgement.failed is not None and judgement.failed.startswith("discriminator:")
    assert all(value is None for value in judgement.scores.values())
    assert set(judgement.scores) == set(get_scorer("corgi").produces)
    entry = judgement.trace[-1]
    raw = bad.text if isinstance(bad, Completion) else bad
    assert entry.reply == raw and entry.parsed is None and entry.rejected == [raw] and entry.error
    assert len(model.provider.requests) == 2


def test_a_scoring_agent_failing_fails_the_judgement_never_a_silent_zero(bench) -> None:
    q = question(bench, 2)
    good = valid_reply(score=4, pick=False)

    def reply(request: ChatRequest) -> str:
        return "{" if "Data Sense" in request.messages[1][1] else good(request)

    judgement = get_scorer("corgi").judge(q, answer_for(q), context_for(bench, mock_model([reply])))
    assert judgement.failed is not None and judgement.failed.startswith("Data Sense:")
    assert all(value is None for value in judgement.scores.values())
    assert roles(judgement) == ["discriminator", "Structure", "Data Sense"]


# --- corgi-single ----------------------------------------------------------------------------------------------


def test_corgi_single_scores_everything_in_one_call_with_the_same_shape(bench) -> None:
    q = question(bench, 4)
    model = mock_model([valid_reply(score=2)])
    single = get_scorer("corgi-single").judge(q, answer_for(q), context_for(bench, model))
    assert len(model.provider.requests) == 1 and roles(single) == ["single evaluator"]
    atomized = get_scorer("corgi").judge(q, answer_for(q), context_for(bench, mock_model([valid_reply(score=2)])))
    assert {k.removeprefix("corgi-single") for k in single.scores} == {k.removeprefix("corgi") for k in atomized.scores}
    assert single.scores["corgi-single"] == pytest.approx((2 * 6 + 3.75) / 7)


def test_corgi_single_leaves_out_the_optional_sub_metrics_scored_null(bench) -> None:
    q = question(bench, 4)

    def reply(request: ChatRequest) -> str:
        value = fill(request.schema_dict(), score=3)
        for key in ("time_based_planning", "goal_orientation", "stakeholder_orientation"):
            value[key]["score"] = None
        return json.dumps(value)

    single = get_scorer("corgi-single").judge(q, answer_for(q), context_for(bench, mock_model([reply])))
    assert "corgi-single.purpose_alignment" not in single.scores
    assert single.scores["corgi-single.operational_implementability"] == 3.0
    assert "time_based_planning" not in single.sub_scores["sub_metrics"]


def test_corgi_single_failure_is_a_failed_judgement(bench) -> None:
    q = question(bench, 3)
    model = mock_model(["[1, 2", "[1, 2"])
    single = get_scorer("corgi-single").judge(q, answer_for(q), context_for(bench, model))
    assert single.failed and single.trace[0].reply == "[1, 2"
    assert all(v is None for v in single.scores.values())


def test_a_reason_is_bounded_so_a_grammar_held_reply_fits_its_budget() -> None:
    import jsonschema

    from biarena.judges.corgi import REASON_CHARS, reply_tokens, scores_schema

    rubric = corgi_rubric(load_builtin_rubric("corgi.yaml").data)
    keys = [m.key for d in rubric.dimensions for m in d.sub_metrics][:3]
    schema = scores_schema(rubric, keys)
    for key in keys:
        assert schema["properties"][key]["properties"]["reason"]["maxLength"] == REASON_CHARS
    fits = {key: {"reason": "x" * REASON_CHARS, "score": 3} for key in keys}
    jsonschema.validate(fits, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**fits, keys[0]: {"reason": "x" * (REASON_CHARS + 1), "score": 3}}, schema)
    # a reason at its longest (about four characters a token) and its JSON fit the reply's budget
    assert reply_tokens(len(keys)) >= len(keys) * (REASON_CHARS // 4 + 30)
