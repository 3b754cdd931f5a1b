"""ScorerContext: what a scorer may use: the benchmark and its databases, and for a judge its model and rubric."""

from dataclasses import dataclass
from typing import Any

from biarena.llm import Model, StructuredOutputError
from biarena.llm.types import Completion, Message, ModelError
from biarena.records import TraceEntry
from biarena.scoring.scoring_context import ScoringContext


class JudgeReplyError(Exception):
    """A scorer's model call failed for good (invalid JSON after asking again, or a model error)."""


@dataclass
class ScorerContext:
    """One scorer's view of a scoring pass: the shared scoring context, and its own model and rubric."""

    scoring: ScoringContext
    """The benchmark, its databases and cached statement results (shared by every scorer of the pass)."""
    model: Model | None = None
    """The scorer's model (independent of the agent's); None for scorers that call none."""
    rubric: dict[str, Any] | None = None
    """The scorer's rubric as loaded from YAML (its own or one passed with --rubric)."""
    rubric_hash: str | None = None
    """Short hash of the rubric text, stamped on every score."""
    temperature: float = 0.0
    """The model's temperature (judges with several samples use their own, e.g. peer review's 0.7)."""
    seed: int = 0
    """Base seed for sampled calls; a judge asking n samples uses seed, seed+1, ..."""

    def ask(
        self,
        trace: list[TraceEntry],
        role: str,
        messages: list[Message],
        schema: dict[str, Any],
        *,
        temperature: float | None = None,
        seed: int | None = None,
        max_tokens: int = 512,
    ) -> Any:
        """Ask the model for JSON following `schema` (asked again once if invalid); record the call in `trace`.

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
            prompt, written = _tokens(error.completions)
            trace.append(
                TraceEntry(
                    role=role,
                    messages=messages,
                    reply=error.raw,
                    rejected=list(error.replies[:-1]),
                    error=error.problem,
                    prompt_tokens=prompt,
                    completion_tokens=written,
                )
            )
            raise JudgeReplyError(f"{role}: {error.problem}") from None
        except ModelError as error:
            trace.append(TraceEntry(role=role, messages=messages, error=str(error)))
            raise JudgeReplyError(f"{role}: {error}") from None
        prompt, written = _tokens((*completion.earlier, completion))
        trace.append(
            TraceEntry(
                role=role,
                messages=messages,
                reply=completion.text,
                parsed=completion.parsed,
                rejected=list(completion.rejected),
                prompt_tokens=prompt,
                completion_tokens=written,
                cached=completion.cached,
            )
        )
        return completion.parsed


def _tokens(completions: tuple[Completion, ...]) -> tuple[int, int]:
    return sum(c.prompt_tokens for c in completions), sum(c.completion_tokens for c in completions)
