"""The BI-Bench judge with a scripted model: sentences, the weak expert, paraphrase retests, the penalty formulas."""

from pathlib import Path

import pytest

from biarena.errors import FormatError
from biarena.judges.bibench import consensus, penalized, presentation_score, round_half
from biarena.judges.sentences import split_sentences
from biarena.llm import ChatRequest, RetryableError
from biarena.scoring import get_scorer
from tests.judge_helpers import answer, prompt_of, question, reply, scripted, shop_context

WEIGHTS = {"clarity": 0.4, "coherence": 0.3, "narrative": 0.3}
ATTRITION = (
    "The Sales division has the highest attrition rate at 25%. "
    "The top three divisions with high attrition rates are Marketing, Research, and HR, in that order."
)


def test_rounding_to_halves() -> None:
    assert [round_half(x) for x in (0, 0.1, 0.24, 0.25, 0.45, 0.74, 0.75, 0.9, 1.0)] == [
        0,
        0,
        0,
        0.5,
        0.5,
        0.5,
        1,
        1,
        1,
    ]


def test_conflict_penalty() -> None:
    # BI-Bench's attrition example: both parts answer fully (1 and 1) but conflict totally (0.9): 0.1 rounds to 0
    assert penalized(1, 1, 0.9) == 0
    assert penalized(1, 0, 0.9) == 1  # nothing incorrect answers the question: no penalty bites
    assert penalized(1, 0.5, 0.5) == 1  # 0.75 rounds up
    assert penalized(1, 1, 0.5) == 0.5
    assert penalized(0.5, 1, 0.1) == 0.5  # 0.45
    assert penalized(1, 1, 0.1) == 1  # 0.9
    assert penalized(0, 1, 0.1) == 0


def test_presentation_weighting_and_rounding() -> None:
    # ratings 1/2/3 read as 0/0.5/1, weighted 0.4/0.3/0.3
    assert presentation_score(3, 3, 3, WEIGHTS) == 1
    assert presentation_score(1, 1, 1, WEIGHTS) == 0
    assert presentation_score(3, 2, 1, WEIGHTS) == 0.5  # 0.55
    assert presentation_score(3, 3, 2, WEIGHTS) == 1  # 0.85
    assert presentation_score(1, 1, 2, WEIGHTS) == 0  # 0.15
    assert presentation_score(2, 1, 1, WEIGHTS) == 0  # 0.2
    assert presentation_score(1, 3, 1, WEIGHTS) == 0.5  # 0.3
    assert presentation_score(3, 1, 1, WEIGHTS) == 0.5  # 0.4


def test_consensus_of_runs() -> None:
    assert consensus(["True"]) and consensus(["Partially True"])
    assert not consensus(["False"])
    assert consensus(["False", "True", "Partially True"])
    assert not consensus(["False", "False"]) and not consensus(["False", "True", "False"])
    assert not consensus(["False", "True"])  # a tie keeps the mismatch


def test_sentences_english_and_chinese() -> None:
    text = (
        "## Findings\n- Downtown orders fell by 55% in Sept. 2024. The cause was a competitor.\n"
        "1. Revenue was $4,106.5 in Jan. We should act!\n---\n九月市中心订单下降了55%。原因是竞争对手开业！"
    )
    assert split_sentences(text) == [
        "Downtown orders fell by 55% in Sept. 2024.",
        "The cause was a competitor.",
        "Revenue was $4,106.5 in Jan.",
        "We should act!",
        "九月市中心订单下降了55%。",
        "原因是竞争对手开业！",
    ]
    assert split_sentences("销售额最高的城市是巴黎。其次是柏林？", "zh") == ["销售额最高的城市是巴黎。", "其次是柏林？"]


class Script:
    """Replies by the kind of prompt; inference verdicts scripted per sentence, in the order asked."""

    def __init__(self, verdicts: dict[str, list[str]], **finals: dict) -> None:
        self.verdicts = {fact: list(v) for fact, v in verdicts.items()}
        self.finals = finals
        self.kinds: list[str] = []

    def __call__(self, request: ChatRequest) -> str:
        prompt = prompt_of(request)
        kind, text = self._reply(prompt)
        self.kinds.append(kind)
        return text

    def _reply(self, prompt: str) -> tuple[str, str]:
        if "write the questions a text-to-SQL" in prompt:
            return "questions", reply(questions=["How many sales were made?"])
        if "Write one SQL query" in prompt:
            return "sql", "```sql\nSELECT count(*) AS n FROM sales\n```"
        if "Answer the question in one sentence" in prompt:
            assert "(1 row)" in prompt and "400" in prompt
            return "expert answer", reply(answer="There were 400 sales.")
        if "new paraphrase" in prompt:
            count = prompt.split("Questions (with earlier paraphrases):")[1].count("\n") or 1
            return "paraphrase", reply(questions=[f"What is the number of sales? ({i})" for i in range(count)])
        if "comparing Fact1 with Fact2" in prompt:
            fact = prompt.split("Fact1: ")[-1].split("\n")[0]
            assert "A: There were 400 sales." in prompt
            return "inference", reply(result=self.verdicts[fact].pop(0))
        if "how fully the question is answered" in prompt:
            return "answerability", reply(**self.finals["answerability"])
        if "how relevant the insights are" in prompt:
            return "relevance", reply(**self.finals["relevance"])
        if "Rate the insights" in prompt:
            return "presentation", reply(**self.finals["presentation"])
        raise AssertionError(f"unexpected prompt: {prompt[:200]}")


def _run(tmp_path: Path, sales_db: Path, text: str, script, **options):
    model, provider = scripted(script)
    q = question(text="Which division has the highest attrition?")
    ctx = shop_context(tmp_path, sales_db, [q], model)
    return get_scorer("bibench", **options).judge(q, answer(text), ctx), provider


FINALS = {
    "answerability": {"ans_fc": 1, "ans_fic": 1, "conflict": "total"},
    "relevance": {"rel_fc": 1, "rel_fic": 0.5, "conflict": "partial", "reason": "Both speak to attrition."},
    "presentation": {"clarity": 3, "coherence": 2, "narrative": 1},
}


def test_the_attrition_example_end_to_end(tmp_path: Path, sales_db: Path) -> None:
    first, second = split_sentences(ATTRITION)
    script = Script({first: ["True"], second: ["False", "False"]}, **FINALS)
    result, _ = _run(tmp_path, sales_db, ATTRITION, script)
    assert result.failed is None
    assert result.scores == {
        "bibench.factual_correctness": 0.5,
        "bibench.answerability": 0.0,  # 1 x (1 - 0.9 x 1) = 0.1 -> 0
        "bibench.relevance": 1.0,  # 1 x (1 - 0.5 x 0.5) = 0.75 -> 1
        "bibench.presentation": 0.5,  # 0.4 x 1 + 0.3 x 0.5 + 0.3 x 0 = 0.55 -> 0.5
    }
    sentences = result.sub_scores["sentences"]
    assert [s["correct"] for s in sentences] == [True, False]
    # a match needs no retest; a mismatch is retested with paraphrases until the majority is settled (2 of 3)
    assert [r["verdict"] for r in sentences[0]["runs"]] == ["True"]
    assert [r["verdict"] for r in sentences[1]["runs"]] == ["False", "False"]
    assert sentences[1]["runs"][1]["questions"] == ["What is the number of sales? (0)"]
    assert script.kinds.count("paraphrase") == 1
    # the weak expert (text2sql) answered each distinct question once, and is in the trace
    assert script.kinds.count("sql") == 2
    experts = [e for e in result.trace if e.role.startswith("weak expert")]
    assert len(experts) == 2 and experts[0].parsed == {"sql": "SELECT count(*) AS n FROM sales", "ok": True}
    assert "400" in experts[0].reply
    assert result.sub_scores["answerability"]["penalty"] == 0.9
    assert result.sub_scores["presentation"]["weighted"] == 0.5
    assert result.rationale == "1 of 2 sentences factually correct"


def test_paraphrase_retests_reach_a_consensus(tmp_path: Path, sales_db: Path) -> None:
    text = "There were 400 sales."
    script = Script({text: ["False", "True", "Partially True"]}, **FINALS)
    result, _ = _run(tmp_path, sales_db, text, script)
    runs = result.sub_scores["sentences"][0]["runs"]
    assert [r["verdict"] for r in runs] == ["False", "True", "Partially True"]
    assert result.sub_scores["sentences"][0]["correct"] is True
    assert result.scores["bibench.factual_correctness"] == 1.0
    assert script.kinds.count("paraphrase") == 2
    # with no factually incorrect sentence, ans_fic counts 0 whatever the model says
    assert result.scores["bibench.answerability"] == 1.0
    # no retests asked for: the first mismatch stands
    script = Script({text: ["False"]}, **FINALS)
    result, _ = _run(tmp_path / "b", sales_db, text, script, retests=0)
    assert result.scores["bibench.factual_correctness"] == 0.0 and "paraphrase" not in script.kinds


def test_no_correct_sentence_scores_zero_without_asking(tmp_path: Path, sales_db: Path) -> None:
    text = "There were 9 sales."
    script = Script({text: ["False", "False"]}, **FINALS)
    result, _ = _run(tmp_path, sales_db, text, script)
    assert result.scores["bibench.factual_correctness"] == 0.0
    assert result.scores["bibench.answerability"] == 0.0 and result.scores["bibench.relevance"] == 0.0
    assert "answerability" not in script.kinds and "relevance" not in script.kinds


def test_a_user_penalty(tmp_path: Path, sales_db: Path) -> None:
    first, second = split_sentences(ATTRITION)
    script = Script({first: ["True"], second: ["False", "False"]}, **FINALS)
    result, _ = _run(tmp_path, sales_db, ATTRITION, script, penalty=0.4)
    assert result.scores["bibench.answerability"] == 0.5  # 1 x (1 - 0.4) = 0.6


def test_malformed_reply_fails_with_the_raw_reply(tmp_path: Path, sales_db: Path) -> None:
    text = "There were 400 sales."
    finals = {**FINALS, "presentation": {"clarity": 4, "coherence": 2, "narrative": 1}}
    script = Script({text: ["True"]}, **finals)
    result, _ = _run(tmp_path, sales_db, text, script)
    assert result.failed and result.failed.startswith("presentation")
    assert all(v is None for v in result.scores.values())
    assert '"clarity": 4' in result.trace[-1].reply and result.trace[-1].parsed is None
    assert result.sub_scores["failed"] is True and result.sub_scores["sentences"][0]["correct"] is True


def test_a_weak_expert_model_failure_fails_the_judgement(tmp_path: Path, sales_db: Path) -> None:
    def script(request: ChatRequest) -> str:
        if "Write one SQL query" in prompt_of(request):
            raise RetryableError("server down")
        return reply(questions=["How many sales were made?"])

    result, _ = _run(tmp_path, sales_db, "There were 400 sales.", script)
    assert result.failed and "weak expert" in result.failed and "server down" in result.failed


def test_an_empty_answer_scores_zero_without_a_call(tmp_path: Path, sales_db: Path) -> None:
    result, provider = _run(tmp_path, sales_db, "", ["unused"])
    assert set(result.scores.values()) == {0.0} and provider.requests == []


def test_rubric_checks() -> None:
    judge = get_scorer("bibench")
    from biarena.judges.rubric import load_builtin_rubric

    data = load_builtin_rubric("bibench.yaml").data
    judge.check_rubric(data, "bibench.yaml")
    with pytest.raises(FormatError, match=r"mine\.yaml: `penalties` must give none, partial, total"):
        judge.check_rubric({**data, "penalties": {"none": 0.1}}, "mine.yaml")
    with pytest.raises(FormatError, match="clarity must be a number from 0 to 1"):
        judge.check_rubric({**data, "presentation_weights": {"clarity": "a", "coherence": 0.3, "narrative": 0.3}}, "m")
    with pytest.raises(FormatError, match="no prompt 'answer'"):
        judge.check_rubric({**data, "prompts": {"questions": "x"}}, "m")
