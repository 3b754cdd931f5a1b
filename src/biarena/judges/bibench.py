"""`bibench`: BI-Bench's unsupervised evaluation (section 4): factual correctness with a weak expert, answerability
and relevance with a conflict penalty, presentation.

Factual correctness: the answer is split into sentences; for each, questions grounded in the schema are written;
the weak expert (biarena's `text2sql` agent on the same database, then a one-sentence answer from its result)
answers them; an inference call decides whether the sentence follows from those answers (True / Partially True /
False). A sentence that does not follow is retested up to `retests` more times with paraphrased questions, and the
majority of the runs decides. fc = |FC| / |sentences|. Answerability and relevance: `x_fc x (1 - penalty x x_fic)`,
with the penalty of the degree of conflict the judge model names; presentation: 0.4 clarity + 0.3 coherence +
0.3 narrative, each 1/2/3 read as 0/0.5/1. Those three are rounded to 0, 0.5 or 1 (halves up).
"""

import math
import threading
from typing import Any

from pydantic import Field

from biarena.agents import AgentEnv
from biarena.agents.text2sql import Text2SQL
from biarena.errors import FormatError
from biarena.judges.base import Judgement, JudgeReplyError, JudgeScorer, ScorerContext, TraceEntry
from biarena.judges.judge_prompts import failed, prompt_texts, render, rubric_data, step_text, table_columns, user
from biarena.judges.sentences import split_sentences
from biarena.llm import Model
from biarena.options import Options
from biarena.records import Answer, Question
from biarena.scoring.score_info import ScoreInfo

VERDICTS = ("True", "Partially True", "False")
MATCHES = frozenset({"True", "Partially True"})
"""Verdicts that mean the sentence can be (fully or partly) inferred from the weak expert's answers."""
CONFLICTS = ("none", "partial", "total")
HALVES = [0, 0.5, 1]
PROMPTS = ("questions", "answer", "paraphrase", "inference", "answerability", "relevance", "presentation")
INFERENCE_SCHEMA = {
    "type": "object",
    "properties": {"result": {"type": "string", "enum": list(VERDICTS)}},
    "required": ["result"],
}
ANSWER_SCHEMA = {
    "type": "object",
    "properties": {"answer": {"type": "string", "maxLength": 400}},
    "required": ["answer"],
}
PRESENTATION_SCHEMA = {
    "type": "object",
    "properties": {aspect: {"type": "integer", "enum": [1, 2, 3]} for aspect in ("clarity", "coherence", "narrative")},
    "required": ["clarity", "coherence", "narrative"],
}


def questions_schema(least: int, most: int) -> dict[str, Any]:
    """A list of `least`..`most` questions."""
    return {
        "type": "object",
        "properties": {
            "questions": {
                "type": "array",
                "items": {"type": "string", "minLength": 3, "maxLength": 300},
                "minItems": least,
                "maxItems": most,
            }
        },
        "required": ["questions"],
    }


def conflict_schema(fc: str, fic: str, reason: bool = False) -> dict[str, Any]:
    """The scores of the correct and the incorrect insights (0, 0.5 or 1) and the degree of their conflict."""
    properties: dict[str, Any] = {
        fc: {"type": "number", "enum": HALVES},
        fic: {"type": "number", "enum": HALVES},
        "conflict": {"type": "string", "enum": list(CONFLICTS)},
    }
    if reason:
        properties["reason"] = {"type": "string", "maxLength": 300}
    return {"type": "object", "properties": properties, "required": list(properties)}


def round_half(value: float) -> float:
    """The nearest of 0, 0.5 and 1 (halves round up)."""
    return min(1.0, max(0.0, math.floor(value * 2 + 0.5 + 1e-9) / 2))


def penalized(fc: float, fic: float, penalty: float) -> float:
    """BI-Bench's conflict-penalized score `fc x (1 - penalty x fic)`, rounded to 0, 0.5 or 1."""
    return round_half(fc * (1 - penalty * fic))


def presentation_score(clarity: int, coherence: int, narrative: int, weights: dict[str, float]) -> float:
    """Presentation from 1/2/3 ratings (read as 0/0.5/1), weighted and rounded to 0, 0.5 or 1."""
    ratings = {"clarity": clarity, "coherence": coherence, "narrative": narrative}
    return round_half(sum(weights[k] * (ratings[k] - 1) / 2 for k in ratings))


def _numbers(given: object, keys: tuple[str, ...], where: str) -> dict[str, float]:
    """A mapping of exactly `keys` to numbers between 0 and 1, else a one-line FormatError."""
    if not isinstance(given, dict) or set(given) != set(keys):
        raise FormatError(f"{where} must give {', '.join(keys)}")
    out = {}
    for key, value in given.items():
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
            raise FormatError(f"{where}: {key} must be a number from 0 to 1")
        out[key] = float(value)
    return out


def consensus(verdicts: list[str]) -> bool:
    """True when most runs found the sentence inferable (True or Partially True)."""
    return sum(v in MATCHES for v in verdicts) * 2 > len(verdicts)


def _settled(verdicts: list[str], most: int) -> bool:
    matches = sum(v in MATCHES for v in verdicts)
    return matches * 2 > most or (len(verdicts) - matches) * 2 > most


class BiBenchOptions(Options):
    """How the weak experts test each sentence, and how much of the answer is read."""

    retests: int = Field(2, ge=0)
    """Extra times the weak expert answers a sentence's question when its first try fails."""
    penalty: float | None = Field(None, ge=0.0, le=1.0)
    """The penalty for a total conflict; unset takes the rubric's (0.9)."""
    max_questions: int = Field(3, ge=1)
    """Questions the judge asks of each sentence."""
    max_sentences: int | None = Field(None, ge=1)
    """Sentences of the answer tested (unset: all)."""
    max_tokens: int = Field(256, ge=16)
    """Tokens each judge reply may take."""
    sample_rows: int = Field(2, ge=0)
    """Rows of each table the weak expert sees."""


class BiBenchJudge(JudgeScorer):
    """Factual correctness, answerability, relevance and presentation, without a reference answer."""

    name = "bibench"
    version = "1"
    infos = tuple(
        ScoreInfo(
            f"bibench.{key}",
            label,
            what,
            needs=frozenset({"model", "database"}),
            headline=True,
            kind="judge",
        )
        for key, label, what in (
            ("factual_correctness", "factual", "share of the answer's sentences the weak expert's answers bear out"),
            ("answerability", "answerability", "how far the correct insights answer the question, less conflicts"),
            ("relevance", "relevance", "how far the correct insights bear on the question, less conflicts"),
            ("presentation", "presentation", "clarity, coherence and narrative of the answer, weighted"),
        )
    )
    needs_model = True
    default_rubric = "bibench.yaml"

    Options = BiBenchOptions
    options: BiBenchOptions

    def __init__(self, options: BiBenchOptions | None = None, **values: Any) -> None:
        super().__init__(options, **values)
        self._experts: dict[int, Text2SQL] = {}
        self._lock = threading.Lock()

    def check_rubric(self, data: dict[str, Any], source: str) -> None:
        """A one-line FormatError when a rubric lacks a prompt, a conflict's penalty or a presentation weight."""
        prompt_texts(data, PROMPTS, source)
        self._penalties(data, source)
        self._weights(data, source)

    def applies(self, question: Question) -> bool:
        """Every question: nothing but the database is needed."""
        return True

    def expert(self, model: Model) -> Text2SQL:
        """The weak expert: biarena's text2sql agent with the judge's model."""
        with self._lock:
            if id(model) not in self._experts:
                self._experts[id(model)] = Text2SQL(model, sample_rows=self.options.sample_rows)
            return self._experts[id(model)]

    def judge(self, question: Question, answer: Answer, context: ScorerContext) -> Judgement:
        """Check each sentence with the weak expert, then score answerability, relevance and presentation."""
        rubric = rubric_data(context, self.default_rubric, self.name)
        prompts = prompt_texts(rubric, PROMPTS)
        penalties = self._penalties(rubric)
        weights = self._weights(rubric)
        text = (answer.text or "").strip()
        if not text:
            return Judgement(dict.fromkeys(self.produces, 0.0), {"sentences": []}, "the answer has no text")
        if context.model is None:
            return failed("this judge needs a model (--judge-model)", self.produces, [])
        sentences = split_sentences(text, question.language)
        if self.options.max_sentences is not None:
            sentences = sentences[: self.options.max_sentences]
        trace: list[TraceEntry] = []
        sub: dict[str, Any] = {"sentences": []}
        try:
            checker = _FactChecker(self, question, context, prompts, trace)
            for sentence in sentences:
                sub["sentences"].append(checker.check(sentence))
            correct = [s["text"] for s in sub["sentences"] if s["correct"]]
            incorrect = [s["text"] for s in sub["sentences"] if not s["correct"]]
            fc = len(correct) / len(sentences) if sentences else 0.0
            values = {
                "question": question.text,
                "schema": table_columns(context, question),
                "correct": " ".join(correct) or "(none)",
                "incorrect": " ".join(incorrect) or "(none)",
            }
            sub["answerability"] = self._penalized(
                "answerability", ("ans_fc", "ans_fic"), prompts, values, correct, incorrect, penalties, context, trace
            )
            sub["relevance"] = self._penalized(
                "relevance", ("rel_fc", "rel_fic"), prompts, values, correct, incorrect, penalties, context, trace
            )
            ratings = context.ask(
                trace,
                "presentation",
                user(render(prompts["presentation"], "presentation", question=question.text, answer=text)),
                PRESENTATION_SCHEMA,
                max_tokens=64,
            )
        except JudgeReplyError as error:
            return failed(str(error), self.produces, trace, {**sub, "failed": True})
        presentation = presentation_score(ratings["clarity"], ratings["coherence"], ratings["narrative"], weights)
        sub["presentation"] = {**ratings, "weighted": presentation}
        sub["fc_sentences"] = len(correct)
        sub["sentence_count"] = len(sentences)
        scores = {
            "bibench.factual_correctness": round(fc, 6),
            "bibench.answerability": sub["answerability"]["score"],
            "bibench.relevance": sub["relevance"]["score"],
            "bibench.presentation": presentation,
        }
        rationale = f"{len(correct)} of {len(sentences)} sentences factually correct"
        return Judgement(scores, sub, rationale, trace)

    def _penalties(self, rubric: dict[str, Any], source: str = "the bibench rubric") -> dict[str, float]:
        given = rubric.get("penalties") or {"none": 0.1, "partial": 0.5, "total": 0.9}
        out = _numbers(given, CONFLICTS, f"{source}: `penalties`")
        if self.options.penalty is not None:
            out["total"] = self.options.penalty
        return out

    @staticmethod
    def _weights(rubric: dict[str, Any], source: str = "the bibench rubric") -> dict[str, float]:
        given = rubric.get("presentation_weights") or {"clarity": 0.4, "coherence": 0.3, "narrative": 0.3}
        return _numbers(given, ("clarity", "coherence", "narrative"), f"{source}: `presentation_weights`")

    def _penalized(
        self,
        aspect: str,
        keys: tuple[str, str],
        prompts: dict[str, str],
        values: dict[str, str],
        correct: list[str],
        incorrect: list[str],
        penalties: dict[str, float],
        context: ScorerContext,
        trace: list[TraceEntry],
    ) -> dict[str, Any]:
        fc_key, fic_key = keys
        if not correct:
            # no factually correct insight answers anything: the score is 0 whatever the rest
            return {fc_key: 0, fic_key: None, "conflict": None, "penalty": None, "score": 0.0}
        reply = context.ask(
            trace,
            aspect,
            user(render(prompts[aspect], aspect, **values)),
            conflict_schema(fc_key, fic_key, reason=aspect == "relevance"),
            max_tokens=160,
        )
        fc = float(reply[fc_key])
        fic = float(reply[fic_key]) if incorrect else 0.0  # no incorrect insights: nothing to conflict with
        penalty = penalties[reply["conflict"]]
        return {
            fc_key: fc,
            fic_key: fic,
            "conflict": reply["conflict"],
            "penalty": penalty,
            "score": penalized(fc, fic, penalty),
            **({"reason": reply["reason"]} if "reason" in reply else {}),
        }


class _FactChecker:
    """Factual correctness of one answer's sentences (one per `check`), with the weak expert's answers reused."""

    def __init__(
        self,
        judge: BiBenchJudge,
        question: Question,
        context: ScorerContext,
        prompts: dict[str, str],
        trace: list[TraceEntry],
    ) -> None:
        self.judge = judge
        self.question = question
        self.context = context
        self.prompts = prompts
        self.trace = trace
        self.schema = table_columns(context, question)
        self.env = AgentEnv(benchmark=context.scoring.benchmark, databases=context.scoring.databases)
        self.answers: dict[str, str] = {}
        self.count = 0

    def check(self, sentence: str) -> dict[str, Any]:
        """Questions -> weak expert -> inference; paraphrase and retest on a mismatch; the majority decides."""
        self.count += 1
        where = f"sentence {self.count}"
        prompt = render(self.prompts["questions"], "questions", schema=self.schema, fact=sentence)
        asked = self.context.ask(
            self.trace,
            f"questions / {where}",
            user(prompt),
            questions_schema(1, self.judge.options.max_questions),
            max_tokens=self.judge.options.max_tokens,
        )["questions"]
        history = [[str(q).strip()] for q in asked]
        runs = [self._run(sentence, [h[-1] for h in history], where)]
        most = 1 + self.judge.options.retests
        retest = runs[0]["verdict"] not in MATCHES
        while retest and len(runs) < most and not _settled([r["verdict"] for r in runs], most):
            listing = "\n".join(f"{i + 1}. " + " | ".join(h) for i, h in enumerate(history))
            prompt = render(self.prompts["paraphrase"], "paraphrase", fact=sentence, questions=listing)
            fresh = self.context.ask(
                self.trace,
                f"paraphrase {len(runs)} / {where}",
                user(prompt),
                questions_schema(len(history), len(history)),
                max_tokens=self.judge.options.max_tokens,
            )["questions"]
            for h, q in zip(history, fresh, strict=True):
                h.append(str(q).strip())
            runs.append(self._run(sentence, [h[-1] for h in history], where))
        verdicts = [r["verdict"] for r in runs]
        return {"text": sentence, "runs": runs, "correct": consensus(verdicts)}

    def _run(self, sentence: str, questions: list[str], where: str) -> dict[str, Any]:
        answers = [self._expert_answer(q, where) for q in questions]
        evidence = "\n".join(f"Q: {q}\nA: {a}" for q, a in zip(questions, answers, strict=True))
        prompt = render(self.prompts["inference"], "inference", fact=sentence, evidence=evidence)
        verdict = self.context.ask(self.trace, f"inference / {where}", user(prompt), INFERENCE_SCHEMA, max_tokens=24)
        return {"questions": questions, "answers": answers, "verdict": verdict["result"]}

    def _expert_answer(self, asked: str, where: str) -> str:
        if asked in self.answers:
            return self.answers[asked]
        base = self.question
        sub = Question(
            id=f"{base.id}#bibench-{len(self.answers) + 1}",
            text=asked,
            database=base.database,
            language=base.language,
            now=base.now,
        )
        model = self.context.model
        assert model is not None
        found = self.judge.expert(model).answer(sub, self.env)
        usage = found.usage
        step = next((s for s in reversed(found.steps) if s.ok), found.steps[-1] if found.steps else None)
        shown = f"{step.sql}\n{step_text(step)}" if step is not None else (found.error or "no SQL")
        self.trace.append(
            TraceEntry(
                role=f"weak expert / {where}",
                messages=user(asked),
                reply=shown,
                parsed={"sql": step.sql if step else None, "ok": bool(step and step.ok)},
                error=found.error,
                prompt_tokens=usage.prompt_tokens,
                completion_tokens=usage.completion_tokens,
                cached=usage.calls == 0 and usage.cache_hits > 0,
            )
        )
        if found.error and found.error_stage and found.error.startswith(f"{found.error_stage} failed:"):
            raise JudgeReplyError(f"weak expert: {found.error}")  # the model failed, not the question
        if step is None or not step.ok:
            reply = f"(no answer: {found.error or (step.error if step else 'no SQL')})"
        else:
            anchor = self.env.benchmark.anchor_for(sub)
            prompt = render(
                self.prompts["answer"],
                "answer",
                question=asked,
                sql=step.sql,
                result=step_text(step),
                now=anchor.strftime("%Y-%m-%d %H:%M:%S") if anchor else None,
            )
            reply = str(
                self.context.ask(self.trace, f"expert answer / {where}", user(prompt), ANSWER_SCHEMA, max_tokens=160)[
                    "answer"
                ]
            ).strip()
        self.answers[asked] = reply
        return reply
