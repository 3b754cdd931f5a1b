"""template_environment, number: the arena's Jinja2 templates and the score filter they print numbers with."""

from pathlib import Path

import jinja2
from markupsafe import Markup

from biarena.report.answer_html import ANSWER_CSS

TEMPLATES = Path(__file__).parent / "templates"


def template_environment() -> jinja2.Environment:
    """The arena's templates, every value escaped: names of systems, runs and users are anyone's text."""
    # Explicit: Starlette's own loader escapes by file name (.html, .htm, .xml), and these are .html.j2.
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True)
    env.globals["answer_css"] = Markup(ANSWER_CSS)  # our own stylesheet, not anyone's input
    env.filters["num"] = number
    return env


def number(value: float | None, digits: int = 2) -> str:
    """A score as the leaderboard prints it: fixed decimals, never "-0.00", a dash for none."""
    return "–" if value is None else f"{round(value, digits) + 0.0:.{digits}f}"
