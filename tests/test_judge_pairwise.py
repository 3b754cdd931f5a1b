"""`pairwise`: two answers compared in both orders, position bias, verdicts as votes, and its judge check."""

import json
from pathlib import Path

import pytest

from biarena.benchmarks import load_benchmark
from biarena.db import DatabasePool
from biarena.judges import ScorerContext
from biarena.judges.check import check_judge
from biarena.judges.pairwise import PairwiseJudge, as_vote, combine
from biarena.metrics import ScoringContext
from biarena.records import Answer, Question, SystemSpec
from biarena.votes.export import read_exported_votes
from tests.cli_in_process import cli as cli_in_process
from tests.judge_helpers import prompt_of, reply, scripted
from tests.judge_run_helpers import answer_for, corgi_bench, write_run
from tests.test_judge_check import _pairs, suite  # noqa: F401 - the shared corgi-synth fixture

QUESTION = Question(id="q1", text="Which region sells most?", database="sales")


def _answer(text: str) -> Answer:
    return Answer(question_id="q1", system=SystemSpec(agent="test"), text=text)


def _shown(prompt: str, side: str) -> str:
    return prompt.split(f"[Answer {side}]\n")[1].split(f"\n[End of answer {side}]")[0].split("\n\nIts queries")[0]


def test_sides_are_combined_and_a_flip_is_a_tie() -> None:
    assert combine("a", "a") == ("a", False)
    assert combine("a", "b") == ("tie", True)
    assert combine("tie", "b") == ("tie", False)
    assert combine(None, "a") == (None, False)


def test_each_pair_is_asked_twice_with_the_sides_swapped() -> None:
    def prefers_east(request) -> str:
        prompt = prompt_of(request)
        return reply(reason="east is right", verdict="A" if "east" in _shown(prompt, "A") else "B")

    model, provider = scripted(prefers_east)
    context = ScorerContext(scoring=None, model=model)
    verdict = PairwiseJudge().compare(QUESTION, _answer("west"), _answer("east"), context)
    assert (verdict.first, verdict.second, verdict.winner, verdict.flipped) == ("b", "b", "b", False)
    assert len(provider.requests) == 2 and len(verdict.trace) == 2
    prompts = [prompt_of(r) for r in provider.requests]
    assert _shown(prompts[0], "A") == "west" and _shown(prompts[1], "A") == "east"

    model, _ = scripted(lambda request: reply(reason="first is best", verdict="A"))
    biased = PairwiseJudge().compare(QUESTION, _answer("west"), _answer("east"), ScorerContext(None, model))
    assert biased.winner == "tie" and biased.flipped
    vote = as_vote(1, biased, model="mock", benchmark="b", question_id="q1", systems=("x", "y"), runs=("r1", "r2"))
    assert vote.choice == "tie" and vote.winner == "tie" and "position bias" in vote.rationale
    assert vote.annotator == "judge:pairwise:mock" and vote.left_run == "r1"


def test_judge_check_measures_position_bias_and_agreement(suite: Path) -> None:  # noqa: F811
    good = {p.good.text for p in _pairs(suite, 8, seed=0)}

    def knows(request) -> str:
        prompt = prompt_of(request)
        a, b = _shown(prompt, "A") in good, _shown(prompt, "B") in good
        return reply(reason="compared", verdict="tie" if a == b else ("A" if a else "B"))

    benchmark = load_benchmark(suite)
    scoring = ScoringContext(benchmark, DatabasePool(benchmark))
    model, _ = scripted(knows)
    report = check_judge(PairwiseJudge(), scoring, model=model, count=8, seed=0)
    same_text = sum(1 for p in report.pairs if p.good_text == p.degraded_text)
    assert report.overall.pairs == 8 and report.overall.higher == 8 - same_text and report.overall.lower == 0
    assert report.position_bias is not None and report.position_bias.rate == 0.0
    assert report.model_calls == 16 and report.margin.value is not None

    model, _ = scripted(lambda request: reply(reason="the first", verdict="A"))
    report = check_judge(PairwiseJudge(), scoring, model=model, count=8, seed=0)
    assert report.overall.ties == 8 and report.position_bias.rate == 1.0 and report.position_bias.trials == 8


def test_the_command_writes_votes_and_ranks_them_both_ways(tmp_path: Path, sales_db: Path, monkeypatch) -> None:
    bench = corgi_bench(tmp_path, sales_db, 4)
    first = write_run(tmp_path / "plain.run", bench)
    better = {
        q.id: answer_for(q).model_copy(update={"text": "**Best.** " + (answer_for(q).text or "")})
        for q in bench.questions
    }
    second = write_run(tmp_path / "bold.run", bench, better)

    def prefers_best(request) -> str:
        return reply(reason="clearer", verdict="A" if "**Best.**" in _shown(prompt_of(request), "A") else "B")

    model, _ = scripted(prefers_best)
    monkeypatch.setattr("biarena.llm.get_model", lambda spec, use_cache=True: model)
    out = tmp_path / "votes.jsonl"
    result = cli_in_process("judge", "pairwise", first, second, "-o", out, "--bootstrap", "20")
    assert result.returncode == 0, result.stderr
    assert "style-controlled" in result.stdout and "position bias" in result.stdout and "0 of 4 pairs" in result.stdout
    votes = read_exported_votes(out)
    assert len(votes) == 4 and all(v.annotator == "judge:pairwise:mock:scripted" for v in votes)
    winners = {v.left_system if v.choice == "left" else v.right_system for v in votes}
    assert len(winners) == 1 and all(v.left_run and v.right_run for v in votes)
    assert json.loads(out.read_text().splitlines()[0])["winner"] in ("a", "b")
    from biarena.votes.settings import LeaderboardSettings
    from biarena.votes.vote_file import VoteFile

    human = [v.__class__(**{**v.__dict__, "annotator": "ann"}) for v in votes]
    monkeypatch.setattr("biarena.votes.vote_file.load_votes", lambda path: VoteFile(human, LeaderboardSettings()))
    result = cli_in_process("judge", "pairwise", first, second, "--bootstrap", "0", "--arena", tmp_path / "a.db")
    assert result.returncode == 0, result.stderr
    assert "agreement with the arena's human votes: Cohen's kappa 1.00" in result.stdout
    assert "over 4 votes" in result.stdout
    result = cli_in_process("judge", "pairwise", first)
    assert result.returncode == 2 and "two runs or more" in result.stderr


@pytest.mark.parametrize("line", ["{}", "not json"])
def test_a_bad_votes_file_is_one_line(tmp_path: Path, line: str) -> None:
    from biarena.errors import FormatError

    path = tmp_path / "v.jsonl"
    path.write_text(line + "\n")
    with pytest.raises(FormatError, match="line 1: not a vote record"):
        read_exported_votes(path)


def test_agreement_with_human_votes_is_a_kappa_with_an_interval() -> None:
    from biarena.stats.agreement import kappa_interval
    from biarena.votes.leaderboard import vote_agreement
    from biarena.votes.vote import Vote

    def vote(qid: str, left: str, right: str, choice: str) -> Vote:
        return Vote(0, "x", "b", qid, left, right, choice, "", "", left, right)

    judged = [vote("q1", "r1", "r2", "left"), vote("q2", "r2", "r1", "left"), vote("q3", "r1", "r2", "tie")]
    # the humans saw the sides the other way round on q1, and two of them voted on q2
    human = [vote("q1", "r2", "r1", "right"), vote("q2", "r1", "r2", "right"), vote("q2", "r1", "r2", "left")]
    human += [vote("q3", "r2", "r1", "tie"), vote("q4", "r1", "r2", "left")]
    mine, theirs = vote_agreement(judged, human)
    assert mine == [1.0, 0.0, 0.0, 0.5] and theirs == [1.0, 0.0, 1.0, 0.5]
    found = kappa_interval([1, 0, 1, 0, 0.5, 1] * 5, [1, 0, 1, 1, 0.5, 1] * 5, resamples=200)
    assert 0 < found.kappa < 1 and found.low <= found.kappa <= found.high and found.n == 30
