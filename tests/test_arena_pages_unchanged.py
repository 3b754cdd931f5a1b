"""The arena's pages byte for byte: every route's status, headers and body match the recorded fixture.

A change meant to alter a page (a template, a message, a new automatic score) refreshes the fixture with
`python -m tests.arena_pages`; a change meant to alter none (moving code) must leave this test passing as it is.
"""

import json
from pathlib import Path

from tests.arena_pages import FIXTURE, capture_arena_pages, digests


def test_every_arena_page_is_as_recorded(tmp_path: Path) -> None:
    captured = capture_arena_pages(tmp_path / "arena")
    expected = json.loads(FIXTURE.read_text(encoding="utf-8"))
    seen = digests(captured)
    (tmp_path / "pages.json").write_text(json.dumps(captured, indent=1, ensure_ascii=False), encoding="utf-8")
    assert list(seen) == list(expected), "the steps differ from the fixture's"
    changed = [step for step in expected if seen[step] != expected[step]]
    assert not changed, f"pages differ from the fixture in {changed}; this run's pages: {tmp_path / 'pages.json'}"
