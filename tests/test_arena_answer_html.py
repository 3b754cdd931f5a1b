"""answer_html: answers rendered for people, safely, with names hidden when asked."""

from biarena.records import Answer, Step, SystemSpec
from biarena.report.answer_html import answer_html, redaction_pattern


def answer(**fields: object) -> Answer:
    return Answer(question_id="q1", system=SystemSpec(agent="text2sql", model="openai:gpt-4o"), **fields)


def test_prose_is_markdown_and_raw_html_stays_text() -> None:
    html = answer_html(
        answer(
            text="Revenue **rose** 12%.\n\n- north\n- south\n\n<img src=x onerror=alert(1)> "
            "![chart](http://example.com/x.png) [click](javascript:alert(1))"
        )
    )
    assert "<strong>rose</strong>" in html and "<li>north</li>" in html
    assert "<img" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "http://example.com/x.png" in html and 'src="http://example.com' not in html
    assert 'href="javascript' not in html


def test_sql_is_highlighted_with_inline_styles_and_results_fold() -> None:
    step = Step(sql="SELECT city, sum(amount) FROM sales GROUP BY city", columns=["city", "total"],
                preview=[["<b>Paris</b>", 10.5], [None, 2]], row_count=57, truncated=False)
    html = answer_html(answer(steps=[step], final_sql=step.sql))
    assert '<pre class="sql">' in html and 'style="color' in html and ">SELECT</span>" in html
    assert "<details class=\"preview\"><summary>result: 57 rows, first 2 shown</summary>" in html
    assert "&lt;b&gt;Paris&lt;/b&gt;" in html and "<td>NULL</td>" in html
    assert html.count('<pre class="sql">') == 1  # the final SQL is the step's: shown once


def test_failed_answers_and_step_errors_are_shown() -> None:
    html = answer_html(answer(status="error", error="the system timed out"))
    assert "No answer." in html and "the system timed out" in html
    step = Step(sql="SELECT nope FROM sales", error="no such column: nope", error_kind="error")
    assert "no such column: nope" in answer_html(answer(steps=[step], text="I could not tell."))


def test_redaction_hides_names_with_their_versions_on_whole_words_only() -> None:
    html = answer_html(
        answer(
            text="I am GPT-4o-mini from OpenAI; my-agent says hi. Golden gpts stay.",
            steps=[Step(sql="SELECT 'my-agent' AS gpt", columns=["gpt"], preview=[["OpenAI"]], row_count=1)],
        ),
        redact=["gpt", "openai", "my-agent"],
    )
    assert "GPT" not in html.replace("gpts", "") and "OpenAI" not in html and "my-agent" not in html
    assert "I am [hidden] from [hidden]; [hidden] says hi. Golden gpts stay." in html
    assert redaction_pattern([]) is None
