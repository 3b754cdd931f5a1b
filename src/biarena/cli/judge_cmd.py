"""`biarena judge check`: how well a judge tells good answers from degraded copies of them."""

from collections import Counter
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeRemainingColumn
from rich.text import Text

from biarena.cli.console import err, new_table, out, print_table, row
from biarena.cli.model_flags import JUDGE_MODEL_PAIRS, JUDGE_TEMPERATURE, MODEL_CHOICES, MODELS_FILE, judge_model_flag
from biarena.cli.options import NO_CACHE, OPTIONS_FILE, flag, option_pairs
from biarena.cli.settings_from import settings_from
from biarena.scoring import SCORERS
from biarena.scoring.infos import is_judge

if TYPE_CHECKING:
    from biarena.judges.check import CheckReport, Rate
    from biarena.report.execute_pairwise import HumanAgreement, PairwiseResult

app = typer.Typer(help="Measure how far to trust a judge.", no_args_is_help=True)


def _rate(rate: float | None, low: float | None, high: float | None) -> str:
    if rate is None:
        return "-"
    return f"{rate:.2f} [{low:.2f}, {high:.2f}]"


def _margin(margin: object) -> str:
    value = getattr(margin, "value", None)
    if value is None:
        return "-"
    low, high = getattr(margin, "low", None), getattr(margin, "high", None)
    interval = f" [{low:+.2f}, {high:+.2f}]" if low is not None and high is not None else ""
    return f"{value:+.2f}{interval} vs {margin.baseline}"  # type: ignore[attr-defined]


def _progress(bar: Progress, task: TaskID, done: int, total: int) -> None:
    bar.update(task, completed=done, total=total)
    if not err.is_terminal:  # a log gets one line per judgement instead of a bar
        err.print(Text(f"judged {done} of {total}"))


@app.command("check")
def check(
    judge: str = typer.Option(
        ..., "--judge", metavar="NAME", help=f"The judge: {', '.join(n for n in SCORERS if is_judge(n))}, pairwise."
    ),
    judge_model: str | None = judge_model_flag(f"The judge's model: {MODEL_CHOICES}"),
    judge_model_option: list[str] | None = JUDGE_MODEL_PAIRS,
    models_file: Path | None = MODELS_FILE,
    benchmark: str = typer.Option(
        "corgi-synth", "--benchmark", help="Benchmark with simulator-known truths (corgi-synth or a suite directory)."
    ),
    pairs: int = typer.Option(20, "-n", "--pairs", min=1, help="Good-vs-degraded pairs to judge."),
    seed: int = typer.Option(0, "--seed", help="Picks the questions and degradations, and seeds the judge."),
    out: Path | None = typer.Option(None, "-o", "--out", help="Write the figures and every pair as JSON."),
    score_name: str | None = typer.Option(
        None, "--score", help="The score compared (default: the judge's first score the answer gets)."
    ),
    rubric: Path | None = typer.Option(None, "--rubric", metavar="FILE", help="A rubric YAML for this judge."),
    judge_temperature: float = JUDGE_TEMPERATURE,
    option: list[str] | None = option_pairs("biarena describe scorer NAME"),
    options_file: Path | None = OPTIONS_FILE,
    judge_option: list[str] | None = typer.Option(None, "--judge-option", hidden=True, help="The old name of -O."),
    no_cache: bool = flag("--no-cache", "Do not use cached model replies (the same as --judge-M cache=false)."),
) -> None:
    """How well a judge tells good answers from degraded copies of them.

    Good answers, written as an analyst would (a plan, figures from their own queries with provenance, the planted
    finding, a recommendation), are judged against degraded copies of the same length and wording (cause swapped,
    figures changed by 30-50%, recommendation made vague, busiest and quietest swapped, figures replaced by filler,
    results under the prose that contradict it, plausible but wrong SQL). Reported per degradation: how often the
    good answer scores higher (ties are not higher), with a 95% Wilson interval; beside it the trivial rules
    (shorter, longer, reference overlap, random) on the same pairs, and the judge's margin over the best of them
    with a 95% paired bootstrap interval; and how often the same answer judged twice with another seed gets the same
    score. -o writes every pair (question, reference, both texts, their steps' results) so other rules can be run.
    """
    from biarena.judges.check_settings import JudgeCheckSettings
    from biarena.judges.execute_check import execute_judge_check, write_check

    settings = settings_from(
        JudgeCheckSettings,
        locals(),
        judge_model_options=list(judge_model_option or []),
        options=[*(judge_option or []), *(option or [])],
    )
    with closing(_CheckView()) as view:
        report = execute_judge_check(settings, view)
    _show_check(report)
    write_check(report, settings, view)


def _show_check(report: "CheckReport") -> None:
    """A judge check's figures: the table by degradation, then its margin, position bias, consistency and cost."""
    from biarena.judges.baselines import BASELINES

    columns = [("degradation", "name")] + [(c, "number") for c in ("pairs", "higher", "ties", "lower", "failed")]
    table = new_table(
        f"judge check: {report.judge} with {report.model or 'no model'} ({report.questions} good answers)",
        [
            *columns,
            ("good scores higher [95% CI]", "name"),
            *[(rule, "number") for rule in BASELINES],
            ("margin over best rule [95% CI]", "name"),
        ],
    )
    for figures in [*report.degradations, report.overall]:
        rate = figures.good_higher
        rules = [figures.baselines.get(rule) for rule in BASELINES]
        row(
            table,
            figures.degradation,
            figures.pairs,
            figures.higher,
            figures.ties,
            figures.lower,
            figures.failed,
            _rate(rate.rate, rate.low, rate.high),
            *["-" if r is None or r.rate is None else f"{r.rate:.2f}" for r in rules],
            _margin(figures.margin),
        )
    print_table(table)
    out.print(
        Text(
            f"margin over the best trivial rule, overall: {_margin(report.margin)} "
            "(the judge's share of pairs won minus the rule's, on the pairs the judge decided; 95% paired bootstrap "
            "over pairs). Trivial rules: shorter, longer, more reference words (overlap), a seeded coin (random)."
        )
    )
    if report.position_bias is not None:
        _position_bias(report.position_bias)
    _consistency(report)
    _failures(Counter(r.failure for r in report.pairs if r.failure))
    out.print(
        Text(
            f"{report.judgements} judgements, {report.model_calls} model calls, "
            f"{report.prompt_tokens + report.completion_tokens} tokens"
        )
    )


def _position_bias(bias: "Rate") -> None:
    """How often the two orders of a pair picked opposite sides."""
    out.print(
        Text(
            f"position bias (the two orders picked opposite sides, counted as a tie): {bias.successes} of "
            f"{bias.trials} pairs, " + _rate(bias.rate, bias.low, bias.high)
        )
    )


def _consistency(report: "CheckReport") -> None:
    """How often a good answer judged twice, with another seed, got the same score (when any was)."""
    consistency = report.consistency
    if not consistency.answers:
        return
    agreement = consistency.agreement
    line = (
        f"self-consistency (each good answer judged twice, another seed, temperature {report.temperature:g}): "
        f"same score {agreement.successes} of {agreement.trials}, "
        + _rate(agreement.rate, agreement.low, agreement.high)
    )
    if consistency.mean_abs_difference is not None:
        line += f", mean |difference| {consistency.mean_abs_difference:.3f}"
    if consistency.failed:
        line += f", {consistency.failed} failed"
    out.print(Text(line))


def _failures(reasons: Counter[str]) -> None:
    """How many pairs failed, and the most frequent reason (on one line, cut at 300 characters)."""
    if not reasons:
        return
    reason, times = reasons.most_common(1)[0]
    out.print(Text(f"failed pairs: {sum(reasons.values())}; most often ({times}): {' '.join(reason.split())[:300]}"))


class _CheckView:
    """A judge check's events on stderr: a bar on a terminal, a line per judgement in a log."""

    def __init__(self) -> None:
        self.bar: Progress | None = None
        self.task: TaskID | None = None

    def __call__(self, event: Any) -> None:
        from biarena.events import Message
        from biarena.judges.execute_check import CheckStarted, Judged

        if isinstance(event, Message):
            err.print(Text(event.text))
        elif isinstance(event, CheckStarted):
            self.bar = Progress(
                TextColumn("{task.description}", markup=False, style="bold"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
                console=err,
                disable=not err.is_terminal,
            )
            self.bar.start()
            self.task = self.bar.add_task(event.description, total=None)
        elif isinstance(event, Judged) and self.bar is not None and self.task is not None:
            _progress(self.bar, self.task, event.done, event.total)

    def close(self) -> None:
        """Take the bar off the screen."""
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


@app.command("pairwise")
def pairwise(
    runs: list[Path] = typer.Argument(..., help="Two or more run files answering the same questions."),
    judge_model: str | None = judge_model_flag(
        "The judge's model: local (default), local:/path.gguf, openai:MODEL[@URL]."
    ),
    out: Path | None = typer.Option(None, "-o", "--out", help="Write the verdicts as votes (JSONL)."),
    questions: int | None = typer.Option(
        None, "-n", "--questions", min=1, help="Compare on the first N questions only."
    ),
    seed: int = typer.Option(0, "--seed", help="The judge model's seed."),
    judge_temperature: float = JUDGE_TEMPERATURE,
    bootstrap: int = typer.Option(500, "--bootstrap", min=0, help="Bootstrap resamples behind the intervals."),
    arena: Path | None = typer.Option(
        None, "--arena", metavar="ARENA.db", help="An arena database: the judge's agreement with its human votes."
    ),
    no_cache: bool = NO_CACHE,
) -> None:
    """Compare runs' answers two by two with a judge model (arena-hard style), each pair twice with the sides
    swapped: a verdict that flips with the order is a tie and counted as position bias. The verdicts are votes
    (the arena's export format, with -o), ranked with Bradley-Terry as human votes are, and again with the answers'
    length and Markdown structure held fixed (style control).
    """
    from biarena.report.execute_pairwise import execute_pairwise, write_votes
    from biarena.report.pairwise_settings import PairwiseSettings

    settings = settings_from(PairwiseSettings, locals())
    result = execute_pairwise(settings, _pairwise_event)
    _show_pairwise(result)
    write_votes(result, settings, _pairwise_event)


def _show_pairwise(result: "PairwiseResult") -> None:
    """The ranking from a pairwise judging's verdicts, its style effects, position bias, failures and agreement."""
    board = result.leaderboard
    table = new_table(
        f"pairwise: {len(result.votes)} verdicts by {result.model}",
        [("rank", "number"), ("system", "name"), ("strength [95% CI]", "name"), ("verdicts", "number"),
         ("win rate", "number"), ("style-controlled [95% CI]", "name"), ("rank, style held", "number")],
    )  # fmt: skip
    controlled = board.style_control
    for board_row in board.rows:
        styled = "-"
        styled_rank: object = "-"
        if controlled is not None and board_row.name in controlled.strength:
            name = board_row.name
            styled = _strength(controlled.strength[name], controlled.low[name], controlled.high[name])
            styled_rank = controlled.systems.index(name) + 1
        row(
            table,
            board_row.rank,
            board_row.name,
            _strength(board_row.strength, board_row.low, board_row.high),
            board_row.votes,
            "-" if board_row.win_rate is None else f"{board_row.win_rate:.2f}",
            styled,
            styled_rank,
        )
    print_table(table)
    if controlled is not None:
        effects = ", ".join(f"{k} {v:+.2f}" for k, v in controlled.coefficients.items())
        out.print(Text(f"style effects (log-odds per standard deviation of the normalised difference): {effects}"))
    _position_bias(result.position_bias)
    _failures(result.failures)
    if result.agreement is not None:
        _agreement(result.agreement)


def _pairwise_event(event: Any) -> None:
    """A pairwise judging's events on stderr: its messages, and in a log a line per pair that got a verdict."""
    from biarena.events import Message
    from biarena.report.execute_pairwise import PairJudged

    if isinstance(event, Message):
        err.print(Text(event.text))
    elif isinstance(event, PairJudged) and event.failed is None and not err.is_terminal:
        err.print(Text(f"judged {event.done} of {event.total}"))


def _strength(value: float | None, low: float | None, high: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:+.2f} [{low:+.2f}, {high:+.2f}]" if low is not None and high is not None else f"{value:+.2f}"


def _agreement(found: "HumanAgreement") -> None:
    """Cohen's kappa between the judge's verdicts and the arena's human votes on the same question and runs."""
    kappa = found.kappa
    if kappa is None:
        out.print(Text(f"agreement with the arena's human votes: {found.votes} vote(s) on the same question and runs"))
        return
    interval = f" [{kappa.low:.2f}, {kappa.high:.2f}]" if kappa.low is not None else ""
    out.print(
        Text(
            f"agreement with the arena's human votes: Cohen's kappa {kappa.kappa:.2f}{interval} over {kappa.n} votes "
            "on the same question and runs (outcomes: one side, the other, tie; 95% bootstrap over votes)"
        )
    )
