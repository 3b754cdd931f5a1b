"""RunData: what a report needs of one run file, read once, and the labels that tell runs apart."""

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from biarena.errors import FormatError, UsageError
from biarena.metrics.repeatability import Repeatability, repeatability
from biarena.records import Answer, Question, RunSpec, Score, Usage
from biarena.records.outcome import Outcome, outcome_of
from biarena.report.run_names import LABEL_WIDTH, clip_label, short_label
from biarena.runner import RunStore, scores_by_question


@dataclass(frozen=True)
class TryData:
    """One more try of a run that asked each question several times (`run --repeats`): its answers and scores."""

    number: int
    answers: list[Answer]
    scores: list[Score]
    not_applicable: set[tuple[str, str]]


@dataclass
class RunData:
    """A run's spec, questions, answers and scores, and how reports name it."""

    path: Path
    spec: RunSpec
    questions: list[Question]
    answers: list[Answer]
    scores: list[Score]
    label: str = ""
    """How reports name the run; `label_runs` makes the labels of compared runs distinct."""
    not_applicable: set[tuple[str, str]] = field(default_factory=set)
    """(question id, scorer) pairs the scorer does not score, as the scoring stored them."""
    tries: list[TryData] = field(default_factory=list)
    """The run's tries after its first (try 0, whose answers and scores are the fields above), in order."""
    repeatability: Repeatability | None = None
    """How the tries agree, and pass@k / pass^k (None for a run of one try)."""
    _answers: dict[str, Answer] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        self.label = self.label or short_label(self.spec)
        self._answers = {a.question_id: a for a in self.answers}

    @classmethod
    def read(cls, path: Path, label: str | None = None) -> "RunData":
        """Read a run file."""
        with RunStore(path) as store:
            spec = store.spec()
            if spec is None:
                raise FormatError(f"{path}: the run has not started")
            questions, answers, scores = store.questions(), store.answers(), store.scores()
            tries = []
            for number in store.tries():
                if number > 0:
                    view = store.at_try(number)
                    tries.append(TryData(number, view.answers(), view.scores(), view.not_applicable()))
            return cls(
                path,
                spec,
                questions,
                answers,
                scores,
                label or "",
                store.not_applicable(),
                tries,
                repeatability(store) if tries else None,
            )

    def answer(self, question_id: str) -> Answer | None:
        """The run's answer to a question, if it has one."""
        return self._answers.get(question_id)

    def outcome(self, question_id: str) -> Outcome:
        """What happened to a question in this run."""
        return outcome_of(self.answer(question_id))

    def applies(self, scorer: str, question_id: str) -> bool:
        """False when the scoring stored that the scorer does not score answers to the question."""
        return (question_id, scorer) not in self.not_applicable

    def score_table(self) -> dict[str, dict[str, float | None]]:
        """question id -> score name -> value, as stored."""
        return scores_by_question(self.scores)

    def usage(self) -> Usage:
        """Model usage summed over the run's answers (of every try); cost only when an answer has one."""
        answers = [*self.answers, *(a for one in self.tries for a in one.answers)]
        costs = [a.usage.cost for a in answers if a.usage.cost is not None]
        return Usage(
            calls=sum(a.usage.calls for a in answers),
            cache_hits=sum(a.usage.cache_hits for a in answers),
            prompt_tokens=sum(a.usage.prompt_tokens for a in answers),
            completion_tokens=sum(a.usage.completion_tokens for a in answers),
            cost=sum(costs) if costs else None,
        )


def read_runs(paths: list[Path], labels: list[str] | None = None) -> list[RunData]:
    """Read run files and label them: `labels` name the first runs in order; the rest get distinct defaults."""
    labels = list(labels or [])
    if len(labels) > len(paths):
        raise UsageError(f"{len(labels)} --label values for {len(paths)} run(s); give at most one per run")
    if len(set(labels)) != len(labels):
        twice = next(name for name in labels if labels.count(name) > 1)
        raise UsageError(f"--label '{twice}' is given twice; each run needs its own label")
    runs = [RunData.read(path) for path in paths]
    label_runs(runs, labels)
    return runs


def label_runs(runs: list[RunData], given: list[str] | None = None) -> None:
    """Give each run a distinct label of at most `LABEL_WIDTH` characters: `given` ones first, then its own (chosen
    or `agent · model`); labels that would clash get a number (`#1`, `#2`, ...)."""
    given = [clip_label(label) for label in given or []]
    for run, label in zip(runs, given, strict=False):
        run.label = label
    taken = set(given)
    free = runs[len(given) :]
    counts = Counter(run.label for run in free)
    numbered: Counter[str] = Counter()
    for run in free:
        base = run.label
        if base in taken or counts[base] > 1:
            while True:
                numbered[base] += 1
                suffix = f" #{numbered[base]}"
                label = clip_label(base, LABEL_WIDTH - len(suffix)) + suffix
                if label not in taken:
                    break
            run.label = label
        taken.add(run.label)
