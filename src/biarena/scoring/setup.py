"""setup_scorers: scorers made ready for a pass: each with its rubric and, when it calls one, the shared model."""

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from biarena.errors import UsageError
from biarena.llm import Model
from biarena.scoring.context import ScorerContext
from biarena.scoring.registry import get_scorer
from biarena.scoring.rubric import LoadedRubric, load_rubric_file
from biarena.scoring.scorer import Scorer
from biarena.scoring.scoring_context import ScoringContext


@dataclass
class ScorerSetup:
    """A scorer ready to run: the scorer, its rubric and the context its calls go through."""

    scorer: Scorer
    context: ScorerContext
    rubric: LoadedRubric | None = None

    @property
    def model_spec(self) -> str | None:
        """The model's string, for scorers that call one."""
        model = self.context.model
        return model.spec if model is not None and self.scorer.needs_model else None

    def key(self, question_id: str) -> tuple[str, str, str, str, str]:
        """What makes a stored record of this setup done (see ScoreRecord.key)."""
        scorer = self.scorer
        return (question_id, scorer.name, scorer.version, self.context.rubric_hash or "", self.model_spec or "")


def setup_scorers(
    scorers: list[str | Scorer],
    scoring: ScoringContext,
    *,
    model: Callable[[], Model] | Model | None = None,
    rubric_files: list[Path] | None = None,
    temperature: float = 0.0,
    seed: int = 0,
    noun: str = "scorer",
) -> list[ScorerSetup]:
    """Make the scorers (by registry name, or given made) with their rubrics (a `--rubric` file replaces the
    built-in rubric of its kind) and one shared model (made only when a scorer needs one)."""
    made: list[Scorer] = []
    for item in dict.fromkeys(scorers):
        made.append(get_scorer(item, noun) if isinstance(item, str) else item)
    # a scorer with a `default_rubric` gives it as packaged through its `builtin_rubric()`
    rubrics = {name: s.builtin_rubric() for s in made if (name := getattr(s, "default_rubric", None))}
    kinds = {rubric.kind for rubric in rubrics.values()}
    by_kind: dict[str, LoadedRubric] = {}
    for rubric in [load_rubric_file(path) for path in rubric_files or []]:
        if rubric.kind not in kinds:
            takers = ", ".join(sorted(kinds)) or "none of the scorers asked for takes a rubric"
            raise UsageError(f"{rubric.source}: a '{rubric.kind}' rubric, but the scorers here take: {takers}")
        if rubric.kind in by_kind:
            raise UsageError(f"two --rubric files for '{rubric.kind}' judges; give one")
        by_kind[rubric.kind] = rubric
    built: Model | None = None
    setups = []
    for scorer in made:
        rubric = None
        default = getattr(scorer, "default_rubric", None)
        if default:
            rubric = by_kind.get(rubrics[default].kind, rubrics[default])
            check = getattr(scorer, "check_rubric", None)
            if callable(check):
                check(rubric.data, rubric.source)
        if scorer.needs_model and built is None:
            built = model() if callable(model) else model
            if built is None:
                raise UsageError(f"scorer '{scorer.name}' needs a model (--judge-model)")
        context = ScorerContext(
            scoring=scoring,
            model=built if scorer.needs_model else None,
            rubric=rubric.data if rubric else None,
            rubric_hash=rubric.hash if rubric else None,
            temperature=temperature,
            seed=seed,
        )
        setups.append(ScorerSetup(scorer, context, rubric))
    return setups
