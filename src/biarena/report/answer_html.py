"""answer_html: one answer rendered for people: prose as Markdown, SQL highlighted, result previews folded."""

import re
from collections.abc import Iterable
from functools import cache

from markdown_it import MarkdownIt
from markupsafe import Markup, escape
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import SqlLexer

from biarena.records import Answer, Step

REDACTED = "[hidden]"
"""What stands in for a name that would tell which system wrote an answer."""

PREVIEW_ROWS = 20


@cache
def _markdown() -> MarkdownIt:
    # raw HTML stays text, and images are off: an answer must not load anything from anywhere
    return MarkdownIt("commonmark", {"html": False}).enable("table").disable("image")


@cache
def _sql_formatter() -> HtmlFormatter:
    # inline styles: the fragment reads the same in the arena and in a report saved to disk
    return HtmlFormatter(noclasses=True, nowrap=True, style="friendly")


def redaction_pattern(terms: Iterable[str]) -> re.Pattern[str] | None:
    """A case-insensitive pattern matching any of `terms` as whole words with any version suffix, or None."""
    words = sorted({t.strip() for t in terms if t and len(t.strip()) >= 2}, key=len, reverse=True)
    if not words:
        return None
    # a name's version suffix goes with it: "gpt-4o-mini" is hidden whole, not as "[hidden]-4o-mini"
    alternatives = "|".join(re.escape(w) for w in words)
    return re.compile(r"(?<![\w])(?:" + alternatives + r")(?:[-.][\w]+)*(?![\w])", re.IGNORECASE)


def _hide(text: str, pattern: re.Pattern[str] | None) -> str:
    return pattern.sub(REDACTED, text) if pattern is not None else text


def _prose(text: str, pattern: re.Pattern[str] | None) -> Markup:
    return Markup(_markdown().render(_hide(text, pattern)))


def _sql(sql: str, pattern: re.Pattern[str] | None) -> Markup:
    code = highlight(_hide(sql, pattern), SqlLexer(), _sql_formatter())
    return Markup('<pre class="sql">') + Markup(code) + Markup("</pre>")


def _cell(value: object, pattern: re.Pattern[str] | None) -> str:
    text = "NULL" if value is None else str(value)
    return _hide(text[:1000], pattern)


def _preview(step: Step, pattern: re.Pattern[str] | None) -> Markup:
    if not step.columns and not step.preview:
        return Markup("")
    rows = step.preview[:PREVIEW_ROWS]
    count = step.row_count if step.row_count is not None else len(step.preview)
    summary = f"result: {count:,} row{'s' if count != 1 else ''}" + (" (cut at the row cap)" if step.truncated else "")
    if len(step.preview) < count:
        summary += f", first {len(rows)} shown"
    head = "".join(f"<th>{escape(_cell(c, pattern))}</th>" for c in step.columns)
    body = "".join("<tr>" + "".join(f"<td>{escape(_cell(v, pattern))}</td>" for v in row) + "</tr>" for row in rows)
    return Markup(
        f'<details class="preview"><summary>{escape(summary)}</summary>'
        f'<table class="preview"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></details>'
    )


def _step(index: int, step: Step, pattern: re.Pattern[str] | None) -> Markup:
    parts = [Markup('<div class="step">'), Markup(f'<div class="step-title">Query {index}')]
    if step.purpose:
        parts.append(Markup(": ") + escape(_hide(step.purpose, pattern)))
    parts.append(Markup("</div>"))
    parts.append(_sql(step.sql, pattern))
    if step.error:
        parts.append(Markup('<div class="error">') + escape(_hide(step.error, pattern)) + Markup("</div>"))
    parts.append(_preview(step, pattern))
    if step.short_answer:
        parts.append(Markup('<div class="short">') + _prose(step.short_answer, pattern) + Markup("</div>"))
    parts.append(Markup("</div>"))
    return Markup("").join(parts)


def _tool_calls(answer: Answer, pattern: re.Pattern[str] | None) -> Markup:
    """The answer's database tool calls, folded: each operation, what it was given, and what came of it."""
    items = []
    for call in answer.tool_calls:
        given = call.arguments.get("table") if call.operation == "describe_table" else None
        text = call.operation + (f" {given}" if isinstance(given, str) else "")
        if call.step is not None:
            text += f" → Query {call.step + 1}"
        if call.rows is not None:
            text += f" ({call.rows} rows)"
        item = Markup("<li>") + escape(_hide(text, pattern))
        if call.error:
            item += Markup(' <span class="error">') + escape(_hide(call.error, pattern)) + Markup("</span>")
        items.append(item + Markup("</li>"))
    count = len(answer.tool_calls)
    summary = f"{count} database tool call{'s' if count != 1 else ''}"
    return (
        Markup(f'<details class="tool-calls"><summary>{summary}</summary><ol>')
        + Markup("").join(items)
        + Markup("</ol></details>")
    )


def answer_html(answer: Answer, *, redact: Iterable[str] | None = None) -> Markup:
    """The answer as an HTML fragment: answer text, plan, every query with its folded result, final SQL.

    `redact` names words (system, model and run names) replaced by "[hidden]" wherever they appear, so a
    blind comparison stays blind. Everything the answer holds is escaped: it is untrusted text.
    """
    pattern = redaction_pattern(redact or ())
    parts: list[Markup] = [Markup('<div class="answer">')]
    if answer.status == "error" and not answer.text and not answer.final_sql:
        parts.append(Markup('<p class="no-answer">No answer.</p>'))
        if answer.error:
            parts.append(Markup('<div class="error">') + escape(_hide(answer.error, pattern)) + Markup("</div>"))
    if answer.text:
        parts.append(Markup('<section class="prose">') + _prose(answer.text, pattern) + Markup("</section>"))
    if answer.plan:
        parts.append(
            Markup('<details class="plan"><summary>plan</summary>')
            + _prose(answer.plan, pattern)
            + Markup("</details>")
        )
    final_shown = False
    for index, step in enumerate(answer.steps, start=1):
        parts.append(_step(index, step, pattern))
        final_shown = final_shown or step.sql == answer.final_sql
    if answer.tool_calls:
        parts.append(_tool_calls(answer, pattern))
    if answer.final_sql and not final_shown:
        parts.append(Markup('<div class="step"><div class="step-title">Final SQL</div>'))
        parts.append(_sql(answer.final_sql, pattern))
        parts.append(Markup("</div>"))
    if answer.status == "ok" and answer.error:
        parts.append(Markup('<div class="error">') + escape(_hide(answer.error, pattern)) + Markup("</div>"))
    parts.append(Markup("</div>"))
    return Markup("").join(parts)


ANSWER_CSS = """
.answer .prose { line-height: 1.5; }
.answer .prose table, .answer table.preview { border-collapse: collapse; margin: .4em 0; }
.answer .prose td, .answer .prose th, .answer table.preview td, .answer table.preview th {
  border: 1px solid #d0d4da; padding: 2px 6px; font-size: .9em; text-align: left; }
.answer pre.sql { background: #f6f8fa; padding: .5em .7em; overflow-x: auto; white-space: pre-wrap;
  border-radius: 4px; margin: .3em 0; }
.answer .step { margin: .6em 0; }
.answer .step-title { font-weight: 600; font-size: .9em; color: #444; }
.answer .error { color: #a11; font-size: .9em; white-space: pre-wrap; }
.answer details summary { cursor: pointer; color: #335; font-size: .9em; }
.answer .no-answer { font-style: italic; color: #666; }
"""
"""Styles for the classes `answer_html` uses; pages that show answers include them once."""
