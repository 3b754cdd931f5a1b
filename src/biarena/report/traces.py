"""trace_lines: one answer's judgements as text: each judge's scores, then every request it made and the reply."""

from pathlib import Path
from typing import Any

from biarena.errors import NotFoundError, did_you_mean
from biarena.records import TraceEntry
from biarena.runner import RunStore
from biarena.scoring.infos import is_judge


def _indent(text: str, prefix: str = "    ") -> list[str]:
    return [prefix + line for line in (text or "").splitlines()] or [prefix]


def _entry_lines(number: int, entry: TraceEntry) -> list[str]:
    tokens = f"{entry.prompt_tokens} prompt + {entry.completion_tokens} completion tokens"
    how = "from the cache" if entry.cached else tokens
    lines = [f"  call {number}: {entry.role} ({how})"]
    for message in entry.messages:
        lines.append(f"   [{message.get('role')}]")
        lines += _indent(str(message.get("content", "")))
    for index, rejected in enumerate(entry.rejected, start=1):
        lines.append(f"   [reply {index}, rejected by the schema and asked again]")
        lines += _indent(rejected)
    lines.append("   [reply]")
    lines += _indent(entry.reply or "(empty)")
    if entry.error:
        lines.append(f"   error: {entry.error}")
    return lines


def _score_lines(scores: list[Any]) -> list[str]:
    lines = [f"  {s.name} = {'none' if s.value is None else f'{s.value:.4g}'}" for s in scores]
    headline = next((s for s in scores if s.name == s.scorer), scores[0] if scores else None)
    metrics = headline.sub_scores.get("sub_metrics") if headline is not None else None
    if isinstance(metrics, dict):
        for key, part in metrics.items():
            if isinstance(part, dict):
                reason = f" — {part['reason']}" if part.get("reason") else ""
                lines.append(f"    {key} ({part.get('dimension', '')}): {part.get('score')}{reason}")
    return lines


def trace_lines(paths: list[Path], question_id: str) -> list[str]:
    """Every judgement stored for `question_id` in the runs (the results of judges, of scorers that called a model,
    and of any scorer that failed), of every try: scores, then each model call's request and reply."""
    lines: list[str] = []
    for path in paths:
        with RunStore(path) as store:
            ids = [q.id for q in store.questions()]
            if question_id not in ids:
                hint = did_you_mean(question_id, ids)
                raise NotFoundError(f"{path}: no question '{question_id}'{hint}")
            judgements = [
                (try_number, r)
                for try_number in sorted({0, *store.tries()})
                for r in store.at_try(try_number).results(question_id)
                if r.applies and (r.trace or r.failed or is_judge(r.scorer))
            ]
        if len(paths) > 1:
            lines.append(f"== {path}")
        if not judgements:
            lines.append(f"{question_id}: no judgement stored (judge it with biarena score {path} --judge NAME)")
            continue
        for try_number, record in judgements:
            made = [f"{record.scorer} v{record.scorer_version}"]
            made += [f"rubric {record.rubric_hash}"] if record.rubric_hash else []
            made += [f"model {record.model}"] if record.model else []
            tried = f" · try {try_number}" if try_number else ""
            lines.append(f"{question_id}{tried} · {' · '.join(made)} · {record.created_at.isoformat()}")
            if record.failed:
                lines.append(f"  FAILED: {record.failed}")
            lines += _score_lines(sorted(record.scores, key=lambda s: s.name))
            if not record.trace:
                lines.append("  (no model call)")
            for number, entry in enumerate(record.trace, start=1):
                lines += _entry_lines(number, entry)
    return lines
