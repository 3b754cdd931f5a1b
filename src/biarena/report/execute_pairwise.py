"""execute_pairwise: the pairwise-judging workflow (`biarena judge pairwise`, `biarena.judge_pairwise(...)`): runs'
answers compared two by two by a judge model, each pair in both orders, and the verdicts ranked as votes are."""

import itertools
from collections import Counter
from dataclasses import dataclass, field

from biarena.errors import UsageError
from biarena.events import EventHandler, Message, ignore
from biarena.judges.base import ScorerContext
from biarena.judges.check_figures import Rate, wilson
from biarena.judges.pairwise import PairVerdict, PairwiseJudge, as_vote
from biarena.records import Answer, Question
from biarena.records.vote import Vote
from biarena.report.auto_scores import contender
from biarena.report.pairwise_settings import PairwiseSettings
from biarena.report.run_data import RunData, read_runs
from biarena.stats.agreement import KappaInterval, kappa_interval
from biarena.votes.export import export_votes
from biarena.votes.leaderboard import Leaderboard, build_leaderboard, vote_agreement
from biarena.votes.settings import LeaderboardSettings
from biarena.votes.style import vote_styles


@dataclass(frozen=True)
class PairJudged:
    """A pair of answers was judged in both orders: `done` of `total`; `failed` says why it got no verdict."""

    done: int
    total: int
    failed: str | None = None


@dataclass(frozen=True)
class HumanAgreement:
    """The judge's verdicts against an arena's human votes on the same question and runs."""

    votes: int
    """Votes on the same question and runs."""
    kappa: KappaInterval | None
    """Cohen's kappa over them (outcomes: one side, the other, tie) with a 95% bootstrap interval; None under two."""


@dataclass(frozen=True)
class PairwiseResult:
    """What a pairwise judging found: the verdicts as votes, their ranking, and how far the judge held."""

    model: str
    """The judge model's spec."""
    votes: list[Vote]
    """One vote per pair that got a verdict (a verdict that flipped with the order is a tie)."""
    leaderboard: Leaderboard
    """Bradley-Terry strengths from the votes, and (`style_control`) with length and Markdown structure held fixed."""
    position_bias: Rate
    """Pairs whose two orders picked opposite sides, of those with a verdict, with a 95% Wilson interval."""
    failures: Counter[str]
    """Why pairs got no verdict, and how often."""
    agreement: HumanAgreement | None = None
    """Agreement with the arena's human votes (with `arena` only)."""


@dataclass
class _Tally:
    """The verdicts so far: votes, how many of them flipped with the order, and why the others failed."""

    votes: list[Vote] = field(default_factory=list)
    flips: int = 0
    failures: Counter[str] = field(default_factory=Counter)

    @property
    def judged(self) -> int:
        return len(self.votes) + sum(self.failures.values())


def execute_pairwise(settings: PairwiseSettings, on_event: EventHandler = ignore) -> PairwiseResult:
    """Judge every two runs on each question all of them answered, reporting a `Message` and a `PairJudged` per pair
    through `on_event`, and rank the verdicts (`write_votes` writes them). Bad input is a UsageError before the
    model is asked."""
    from biarena.llm import DEFAULT_MODEL, get_model

    if len(settings.runs) < 2:
        raise UsageError("judge pairwise compares two runs or more")
    human = None
    if settings.arena is not None:
        from biarena.votes.vote_file import load_votes

        human = load_votes(settings.arena).votes
    data = read_runs(settings.runs)
    answers = [{a.question_id: a for a in run.answers if a.status == "ok" and (a.text or "").strip()} for run in data]
    shared = [q for q in data[0].questions if all(q.id in mine for mine in answers)]
    if not shared:
        raise UsageError("the runs have no answered question in common")
    shared = shared[: settings.questions] if settings.questions else shared
    model = get_model(settings.judge_model or DEFAULT_MODEL, use_cache=not settings.no_cache)
    # a comparison reads only its two answers: there is no benchmark or database to give the judge
    context = ScorerContext(
        scoring=None,  # type: ignore[arg-type]
        model=model,
        temperature=settings.judge_temperature,
        seed=settings.seed,
    )
    pairs = list(itertools.combinations(range(len(data)), 2))
    total = len(shared) * len(pairs)
    on_event(Message(f"judging {total} pairs ({len(shared)} questions, {len(data)} runs) with {model.spec}"))
    tally = _Tally()
    judge = PairwiseJudge()
    for question in shared:
        for i, j in pairs:
            # alternate which run is shown as A first, so that neither run always opens the comparison
            if len(tally.votes) % 2:
                i, j = j, i
            verdict = judge.compare(question, answers[i][question.id], answers[j][question.id], context)
            _add(tally, verdict, question, data, (i, j), model.spec)
            failed = None if verdict.winner is not None else verdict.failed or "no verdict"
            on_event(PairJudged(tally.judged, total, failed))
    return PairwiseResult(
        model=model.spec,
        votes=tally.votes,
        leaderboard=_leaderboard(tally.votes, data, answers, settings),
        position_bias=wilson(tally.flips, len(tally.votes)),
        failures=tally.failures,
        agreement=None if human is None else _agreement(tally.votes, human),
    )


def write_votes(result: PairwiseResult, settings: PairwiseSettings, on_event: EventHandler = ignore) -> None:
    """Write the verdicts as votes (JSONL) to `settings.out` (nothing without one), saying so through `on_event`."""
    if settings.out is None:
        return
    settings.out.write_text("".join(export_votes(result.votes, "jsonl")), encoding="utf-8")
    on_event(Message(f"wrote {settings.out}"))


def _add(
    tally: _Tally, verdict: PairVerdict, question: Question, data: list[RunData], sides: tuple[int, int], model: str
) -> None:
    """Count one pair's verdict: a vote (run `sides[0]` on the left) when it has one, else why it failed."""
    if verdict.winner is None:
        tally.failures[verdict.failed or "no verdict"] += 1
        return
    tally.flips += verdict.flipped
    left, right = (data[side] for side in sides)
    vote = as_vote(
        len(tally.votes) + 1,
        verdict,
        model=model,
        benchmark=data[0].spec.benchmark_name,
        question_id=question.id,
        systems=(left.label, right.label),
        runs=(left.spec.run_id, right.spec.run_id),
    )
    tally.votes.append(vote)


def _leaderboard(
    votes: list[Vote], data: list[RunData], answers: list[dict[str, Answer]], settings: PairwiseSettings
) -> Leaderboard:
    """The runs ranked from the votes, as the arena ranks human votes, and with the answers' style held fixed."""
    texts = {
        (run.spec.run_id, qid): answer.text
        for run, mine in zip(data, answers, strict=True)
        for qid, answer in mine.items()
    }
    return build_leaderboard(
        votes,
        [contender(run) for run in data],
        LeaderboardSettings(bootstrap=settings.bootstrap, seed=settings.seed),
        style=vote_styles(texts),
    )


def _agreement(judged: list[Vote], human: list[Vote]) -> HumanAgreement:
    """Cohen's kappa between the judge's verdicts and the arena's human votes on the same question and runs."""
    mine, theirs = vote_agreement(judged, human)
    return HumanAgreement(len(mine), kappa_interval(mine, theirs) if len(mine) >= 2 else None)
