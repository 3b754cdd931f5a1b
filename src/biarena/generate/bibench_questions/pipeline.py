"""BI-Bench's generation pipeline: generate per cell, check answerability, identify tables, verify them, tag."""

import difflib
import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from biarena.db import Database, describe_schema
from biarena.generate.bibench_questions.categories import CATEGORIES
from biarena.generate.bibench_questions.identifiers import named_identifier
from biarena.generate.model_steps import STRING, STRINGS, Say, StepPipeline, object_schema
from biarena.generate.prompt_files import prompts_hash, render
from biarena.generate.workdir import BudgetExhausted, CallBudget, WorkDir
from biarena.llm import Model
from biarena.records import Question

PACKAGE = "biarena.generate.bibench_questions"
PROMPTS = ("system", "generate", "answerability", "tables", "completeness", "domain")
PROMPTS_HASH = prompts_hash(PACKAGE, PROMPTS)
STEPS = ("generation", "distinct", "no_identifiers", "answerability", "table_identification", "table_completeness")
"""The pipeline's steps, in order; pipeline.json counts what each kept, dropped and corrected."""

_GENERATE = object_schema({"questions": {"type": "array", "minItems": 1, "items": object_schema({"question": STRING})}})
_ANSWERABILITY = object_schema(
    {
        "explanation": STRING,
        "missing_columns": STRINGS,
        "missing_tables": STRINGS,
        "verdict": {"type": "string", "enum": ["Answerable", "Not Answerable"]},
    }
)
_TABLES = object_schema({"tables": STRINGS})
_COMPLETENESS = object_schema({"explanation": STRING, "tables": STRINGS})
_DOMAIN = object_schema({"domain": STRING})
_TAG = re.compile(r"</?question>", re.IGNORECASE)


SHOWN_KEPT = 40
"""How many of the questions kept so far (the latest) a generation prompt shows, to be asked for others."""
NEAR = 0.9
"""Word-sequence similarity at or above which two questions count as one (a near duplicate)."""
_WORD = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]|[^\W\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]+")

_FUNCTION_TEXT = (
    "a an the is are was were be been being do does did has have had will would can could should of for in on at to "
    "from with by over across per and or all any each every this that these those our we us it its there what which how"
)
_FUNCTION_WORDS = frozenset(_FUNCTION_TEXT.split())
"""English words that carry no meaning of their own in a question: near duplicates are compared without them."""

_SENTENCE_END = re.compile(r"(?<=[?.!])\s+")
"""Where one sentence of a question ends and the next begins."""


def normalized(text: str) -> str:
    """A question's text for spotting duplicates: lower case, no punctuation, single spaces."""
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def words(norm: str) -> list[str]:
    """A normalized text's words that carry its meaning: English function words (`the`, `was`, `for`) left out;
    each Chinese, Japanese or Korean character counts as one."""
    return [word for word in _WORD.findall(norm) if word not in _FUNCTION_WORDS]


def near_duplicate(first: str, second: str) -> bool:
    """True when two normalized questions say the same in nearly the same words: the same words in another order,
    or at most one word in ten added, dropped or changed (function words such as `is` / `was` do not count)."""
    a, b = words(first), words(second)
    if not a or not b:
        return False
    if sorted(a) == sorted(b):
        return True
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return matcher.real_quick_ratio() >= NEAR and matcher.quick_ratio() >= NEAR and matcher.ratio() >= NEAR


def text_key(text: str) -> str:
    """A short stable key for a question's text (journal entries are keyed by it)."""
    return hashlib.sha256(normalized(text).encode()).hexdigest()[:16]


@dataclass
class PipelineDraft:
    """One generated question on its way through the steps, with everything the checks said about it."""

    id: str
    text: str
    category: str
    complexity: str
    status: str = "pending"
    dropped_at: str | None = None
    reason: str | None = None
    checks: dict[str, Any] = field(default_factory=dict)

    def record(self) -> dict[str, Any]:
        """The draft as a line of checks.jsonl."""
        return {
            "id": self.id,
            "text": self.text,
            "category": self.category,
            "complexity": self.complexity,
            "status": self.status,
            "dropped_at": self.dropped_at,
            "reason": self.reason,
            **self.checks,
        }


@dataclass
class GenerationResult:
    """The questions a generation kept, every draft with its checks, the counts, and whether it finished."""

    questions: list[Question]
    drafts: list[PipelineDraft]
    pipeline: dict[str, Any]
    stopped: str | None = None


class QuestionPipeline(StepPipeline):
    """Runs BI-Bench's steps for one database; each finished step is journaled in the work directory."""

    def __init__(
        self,
        db: Database,
        database: str,
        work: WorkDir,
        *,
        model: Model,
        checker: Model,
        sample_rows: int = 2,
        max_calls: int | None = None,
        say: Say | None = None,
    ) -> None:
        super().__init__(work, model, CallBudget([model, checker], max_calls), STEPS, say)
        self.db = db
        self.database = database
        self.checker = checker
        self.tables = db.tables()
        self.columns = {t: db.sample_rows(t, 1).columns for t in self.tables}
        self.system = render(PACKAGE, "system", schema=describe_schema(db, sample_rows=sample_rows))
        self.warnings: list[str] = []
        if model.spec == checker.spec:
            self.warnings.append(
                f"the checker is the generating model ({model.spec}): answerability and table completeness are not "
                "checked by a different model"
            )

    def domain(self) -> str | None:
        """The database's business domain, as the model names it (None when its reply is unusable)."""
        answer = self.ask(f"domain/{self.database}", self.model, self.system, render(PACKAGE, "domain"), _DOMAIN, 40)
        text = " ".join(str((answer.get("reply") or {}).get("domain", "")).split())[:60]
        return text or None

    def run(self, cells: list[tuple[str, str]], per_cell: int, domain: str | None = None) -> GenerationResult:
        """Generate `per_cell` questions for each (category, complexity) cell and check each one."""
        drafts: list[PipelineDraft] = []
        stopped = None
        seen: dict[str, str] = {}
        per_cell_counts: dict[str, dict[str, int]] = {}
        try:
            for category, complexity in cells:
                cell = f"{category}/{complexity}"
                per_cell_counts[cell] = {"asked": per_cell, "generated": 0, "kept": 0}
                # The model sees what the benchmark already holds, so it asks something else instead of repeating it.
                avoid = [d.text for d in drafts if d.status == "kept"][-SHOWN_KEPT:]
                self.say(f"{cell}: generating {per_cell} question{'s' if per_cell != 1 else ''}")
                texts = self._generate(category, complexity, per_cell, avoid)
                per_cell_counts[cell]["generated"] = len(texts)
                if texts:
                    self.say(f"{cell}: {len(texts)} of {per_cell} generated, checking them")
                for index, text in enumerate(texts):
                    draft = PipelineDraft(f"{self.database}/{cell}/{index:02d}", text, category, complexity)
                    drafts.append(draft)
                    self._check(draft, seen)
                    if draft.status == "kept":
                        per_cell_counts[cell]["kept"] += 1
                        self.say(f"  kept {draft.id}: {draft.text}")
                    else:
                        self.say(f"  dropped {draft.id} at {draft.dropped_at}: {draft.reason}")
        except BudgetExhausted as error:
            stopped = str(error)
        questions = [self._question(d, domain) for d in drafts if d.status == "kept"]
        duplicates = self.counts["distinct"].reasons.get("duplicate", 0)
        pipeline = {
            "steps": self.step_counts(),
            "cells": per_cell_counts,
            "generated": len(drafts),
            "kept": len(questions),
            "duplicates_by_normalized_text": duplicates,
            "near_duplicates": self.counts["distinct"].reasons.get("near duplicate", 0),
            "warnings": self.warnings,
        }
        return GenerationResult(questions, drafts, pipeline, stopped)

    def _generate(self, category: str, complexity: str, count: int, avoid: list[str]) -> list[str]:
        spec = CATEGORIES[category]
        level = spec.levels[complexity]
        prompt = render(
            PACKAGE,
            "generate",
            count=count,
            category=category,
            complexity=complexity,
            definition=spec.definition,
            level=level.meaning,
            example=level.example,
            avoid=avoid,
        )
        key = f"generate/{category}/{complexity}/{count}/{text_key(' | '.join(avoid))}"
        answer = self.ask(key, self.model, self.system, prompt, _GENERATE, 150 * count + 100)
        step = self.counts["generation"]
        step.received += count
        if "error" in answer:
            step.invalid_replies += 1
            step.drop("the generating model's reply was not valid JSON")
            self.say(f"{category}/{complexity}: no questions: {answer['error']}")
            return []
        texts = [
            " ".join(_TAG.sub(" ", str(item.get("question", ""))).split()) for item in answer["reply"]["questions"]
        ]
        texts = [t for t in texts if t][:count]
        step.kept += len(texts)
        return texts

    def _check(self, draft: PipelineDraft, seen: dict[str, str]) -> None:
        for step in STEPS[1:]:
            self.counts[step].received += 1
            reason = getattr(self, f"_{step}")(draft, seen)
            if reason is not None:
                draft.status, draft.dropped_at, draft.reason = "dropped", step, reason
                self.counts[step].drop(_short(reason))
                return
            self.counts[step].kept += 1
        draft.status = "kept"

    def _distinct(self, draft: PipelineDraft, seen: dict[str, str]) -> str | None:
        norm = normalized(draft.text)
        if norm in seen:
            return f"duplicate of {seen[norm]}"
        near = next((other for other in seen if near_duplicate(norm, other)), None)
        if near is not None:
            return f"near duplicate of {seen[near]}"
        sentences = [sentence for sentence in map(normalized, _SENTENCE_END.split(draft.text)) if sentence]
        if len(set(sentences)) < len(sentences):
            return "repeats itself"
        seen[norm] = draft.id
        return None

    def _no_identifiers(self, draft: PipelineDraft, _seen: dict[str, str]) -> str | None:
        table = named_identifier(draft.text, self.tables)
        if table:
            return f"names table '{table}'"
        column = named_identifier(draft.text, [c for cols in self.columns.values() for c in cols])
        return f"names column '{column}'" if column else None

    def _answerability(self, draft: PipelineDraft, _seen: dict[str, str]) -> str | None:
        prompt = render(PACKAGE, "answerability", question=draft.text)
        key = f"answerability/{text_key(draft.text)}"
        answer = self.ask(key, self.checker, self.system, prompt, _ANSWERABILITY, 300)
        if "error" in answer:
            self.counts["answerability"].invalid_replies += 1
            draft.checks["answerability"] = {"error": answer["error"]}
            return f"the checker gave no valid verdict: {answer['error']}"
        reply = answer["reply"]
        draft.checks["answerability"] = {
            "answerability": reply["verdict"],
            "reasoning": reply["explanation"],
            "missing_tables": reply["missing_tables"],
            "missing_columns": reply["missing_columns"],
        }
        if reply["verdict"] != "Answerable":
            missing = [*reply["missing_tables"], *reply["missing_columns"]]
            extra = f" (missing: {', '.join(missing)})" if missing else ""
            return f"not answerable: {reply['explanation']}{extra}"
        return None

    def _known(self, names: list[Any]) -> tuple[list[str], list[str]]:
        """Names that are tables of the schema (matched case-insensitively, in schema spelling), and the others."""
        by_lower = {t.lower(): t for t in self.tables}
        known, unknown = [], []
        for name in names:
            text = str(name).strip().strip('"`[]')
            table = by_lower.get(text.lower()) or by_lower.get(text.rsplit(".", 1)[-1].lower())
            if table and table not in known:
                known.append(table)
            elif not table:
                unknown.append(text)
        return known, unknown

    def _table_identification(self, draft: PipelineDraft, _seen: dict[str, str]) -> str | None:
        prompt = render(PACKAGE, "tables", question=draft.text)
        answer = self.ask(f"tables/{text_key(draft.text)}", self.model, self.system, prompt, _TABLES, 150)
        if "error" in answer:
            self.counts["table_identification"].invalid_replies += 1
            draft.checks["tables_identified"] = {"tables": [], "error": answer["error"]}
            return None  # the completeness check names the set instead
        known, unknown = self._known(answer["reply"]["tables"])
        draft.checks["tables_identified"] = {"tables": known, **({"not_in_schema": unknown} if unknown else {})}
        return None

    def _table_completeness(self, draft: PipelineDraft, _seen: dict[str, str]) -> str | None:
        identified = draft.checks["tables_identified"]["tables"]
        prompt = render(PACKAGE, "completeness", question=draft.text, tables=", ".join(identified) or "(none)")
        key = f"completeness/{text_key(draft.text)}/{text_key(','.join(identified))}"
        answer = self.ask(key, self.checker, self.system, prompt, _COMPLETENESS, 300)
        if "error" in answer:
            self.counts["table_completeness"].invalid_replies += 1
            verified, explanation, unknown = identified, None, []
            draft.checks["tables_verified"] = {"tables": identified, "error": answer["error"]}
        else:
            verified, unknown = self._known(answer["reply"]["tables"])
            explanation = answer["reply"]["explanation"]
            draft.checks["tables_verified"] = {
                "tables": verified,
                "explanation": explanation,
                **({"not_in_schema": unknown} if unknown else {}),
            }
        if not verified:
            return "no table of the schema was identified for it"
        corrected = set(verified) != set(identified)
        draft.checks["tables_corrected"] = corrected
        if corrected:
            self.counts["table_completeness"].corrected += 1
        draft.checks["tables"] = verified
        return None

    def _question(self, draft: PipelineDraft, domain: str | None) -> Question:
        return Question(
            id=draft.id,
            text=draft.text,
            database=self.database,
            labels=[f"bibench:{draft.category}/{draft.complexity}"],
            tables=draft.checks.get("tables", []),
            domain=domain,
            complexity=draft.complexity,
        )


def _short(reason: str) -> str:
    """The kind of a drop reason, for counting (the reason itself stays with the draft)."""
    if reason.startswith("duplicate"):
        return "duplicate"
    if reason.startswith("near duplicate"):
        return "near duplicate"
    return re.sub(r" '[^']*'", "", reason.split(":", 1)[0])
