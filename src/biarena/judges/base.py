"""The judge protocol: a judge reads a question and its answer in a context and returns named scores with a trace."""

from dataclasses import dataclass, field
from typing import Any, Protocol

from biarena.llm import Model, StructuredOutputError
from biarena.llm.types import Completion, Message, ModelError
from biarena.metrics.context import ScoringContext
from biarena.records import Answer, Question


@dataclass
class TraceEntry:
    """One model call a judge made: what it asked, what came back, and what was read from it."""

    role: str
    """Which part of the judge asked (`discriminator`, `Data Sense`, `reviewer 2 / planning`, ...)."""
    messages: list[Message]
    """The request's messages."""
    reply: str
    """The raw reply text (the last one, when the reply was asked again)."""
    parsed: Any = None
    """The validated JSON read from the reply; None when it failed."""
    rejected: list[str] = field(default_factory=list)
    """Earlier replies the schema rejected."""
    error: str | None = None
    """Why the call failed, when it did."""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached: bool = False


class JudgeReplyError(Exception):
    """A judge's model call failed for good (invalid JSON after asking again, or a model error)."""


@dataclass
class JudgeContext:
    """What a judge may use: the benchmark and its databases (through the scoring context), a model, a rubric."""

    scoring: ScoringContext
    """The benchmark, its databases and cached statement results."""
    model: Model | None = None
    """The judge's model (independent of the agent's); None for deterministic judges."""
    rubric: dict[str, Any] | None = None
    """The judge's rubric as loaded from YAML (its own or one passed with --rubric)."""
    rubric_hash: str | None = None
    """Short hash of the rubric text, stamped on every score."""
    temperature: float = 0.0
    """The judge model's temperature (judges with several samples use their own, e.g. peer review's 0.7)."""
    seed: int = 0
    """Base seed for sampled calls; a judge asking n samples uses seed, seed+1, ..."""

    def ask(
        self,
        trace: list["TraceEntry"],
        role: str,
        messages: list[Message],
        schema: dict[str, Any],
        *,
        temperature: float | None = None,
        seed: int | None = None,
        max_tokens: int = 512,
    ) -> Any:
        """Ask the judge model for JSON following `schema` (asked again once if invalid); record the call in `trace`.

        Returns the parsed JSON; raises JudgeReplyError (after recording the raw reply) when there is none.
        """
        if self.model is None:
            raise JudgeReplyError("this judge needs a model (--judge-model)")
        temp = self.temperature if temperature is None else temperature
        try:
            completion = self.model.chat(
                messages,
                schema=schema,
                temperature=temp,
                max_tokens=max_tokens,
                seed=self.seed if seed is None else seed,
                json_attempts=2,
            )
        except StructuredOutputError as error:
            tokens = _tokens(error.completions)
            trace.append(
                TraceEntry(role, messages, error.raw, None, list(error.replies[:-1]), error.problem, *tokens)
            )
            raise JudgeReplyError(f"{role}: {error.problem}") from None
        except ModelError as error:
            trace.append(TraceEntry(role, messages, "", None, [], str(error)))
            raise JudgeReplyError(f"{role}: {error}") from None
        tokens = _tokens((*completion.earlier, completion))
        trace.append(
            TraceEntry(
                role,
                messages,
                completion.text,
                completion.parsed,
                list(completion.rejected),
                None,
                tokens[0],
                tokens[1],
                completion.cached,
            )
        )
        return completion.parsed


def _tokens(completions: tuple[Completion, ...]) -> tuple[int, int]:
    return sum(c.prompt_tokens for c in completions), sum(c.completion_tokens for c in completions)


@dataclass
class Judgement:
    """What a judge concluded about one answer."""

    scores: dict[str, float | None]
    """Named scores (each in `produces`); None where the judgement could not be made."""
    sub_scores: dict[str, Any] = field(default_factory=dict)
    """Parts of the scores: dimensions, sub-metrics with reasons, votes, counts."""
    rationale: str | None = None
    """Why, in a sentence or two."""
    trace: list[TraceEntry] = field(default_factory=list)
    """Every model call made, in order."""
    failed: str | None = None
    """Why the judgement failed (a reply that stayed invalid, a model error); its scores are then None."""


class Judge(Protocol):
    """A judge: deterministic or model-driven, scoring one answer at a time."""

    name: str
    """Registry name (`corgi`, `reference`, ...)."""
    version: str
    """Bumped when prompts, rubric handling or formulas change."""
    produces: tuple[str, ...]
    """Score names it returns (each prefixed with the judge name, e.g. `corgi`, `corgi.data_sense`)."""
    needs_model: bool
    """True when it calls a model."""
    default_rubric: str | None
    """Package resource name of its default YAML rubric (under biarena/judges/rubrics/), if it has one."""

    def applies(self, question: Question) -> bool:
        """True when this judge can judge answers to the question (e.g. `reference` needs a reference answer)."""
        ...

    def judge(self, question: Question, answer: Answer, context: JudgeContext) -> Judgement:
        """Judge one answer. Model failures become a Judgement with `failed` set, never an exception."""
        ...
