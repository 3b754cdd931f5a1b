"""capture_run_outputs: what `show`, `report` and `export` print and write for three fixed scored runs, as digests.

The runs are kept as files (`tests/fixtures/outputs_runs/`): the arena's three (gold, a mock-model text2sql agent, a
chatty system over HTTP) on a four-question shop, scored. Each command runs in-process, as its entry point runs it,
on copies of them; only the temporary folder and the time a report says it was generated are normalized.

`python -m tests.run_outputs` rewrites the fixture `tests/fixtures/run_outputs.json` from the current code.
"""

import hashlib
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from biarena.report.run_data import RunData
from tests.cli_in_process import cli

FIXTURE = Path(__file__).parent / "fixtures" / "run_outputs.json"
RUNS = Path(__file__).parent / "fixtures" / "outputs_runs"
NAMES = ("gold", "coder", "chatty")
_GENERATED = re.compile(r"generated \d{4}-\d\d-\d\d \d\d:\d\d UTC")


def _normalize(text: str, root: Path) -> str:
    return _GENERATED.sub("generated <time> UTC", text.replace(str(root), "<root>"))


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _commands(runs: list[Path], out: Path) -> dict[str, tuple[list[str | Path], Path | None]]:
    """Each step: the command's arguments and the file it writes (None: what it prints is the output)."""
    gold, coder, _chatty = runs
    question = RunData.read(coder).answers[0].question_id
    steps: dict[str, tuple[list[str | Path], Path | None]] = {}
    for fmt in ("table", "json", "csv", "md"):
        steps[f"show --format {fmt}"] = (["show", *runs, "--format", fmt], None)
    steps["show --usage, labels"] = (["show", gold, coder, "--usage", "--label", "G", "--label", "C"], None)
    steps["show --trace"] = (["show", coder, "--trace", question], None)
    for fmt in ("html", "md", "csv"):
        target = out / f"report.{fmt}"
        steps[f"report --format {fmt}"] = (["report", *runs, "-o", target, "--title", "Shop"], target)
    for fmt in ("jsonl", "csv"):
        target = out / f"export.{fmt}"
        steps[f"export {fmt}"] = (["export", *runs, "-o", target], target)
    nested = out / "nested.jsonl"
    steps["export --nested --rows 3"] = (["export", *runs, "--nested", "--rows", "3", "-o", nested], nested)
    return steps


def capture_run_outputs(root: Path) -> dict[str, dict[str, Any]]:
    """Copy the three runs into `root` and record each command's exit code and output, normalized, by step."""
    (root / "runs").mkdir(parents=True)
    runs = [Path(shutil.copy(RUNS / f"{name}.run", root / "runs" / f"{name}.run")) for name in NAMES]
    out = root / "out"
    out.mkdir()
    captured: dict[str, dict[str, Any]] = {}
    for step, (args, written) in _commands(runs, out).items():
        result = cli(*args)
        text = written.read_text(encoding="utf-8") if written is not None and written.exists() else result.stdout
        captured[step] = {
            "code": result.returncode,
            "output": _normalize(text, root),
            "stderr": _normalize(result.stderr, root),
        }
    return captured


def digests(capture: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each step as the fixture keeps it: exit code, sizes and digests of the output and of what went to stderr."""
    return {
        step: {
            "code": seen["code"],
            "output_bytes": len(seen["output"].encode("utf-8")),
            "output_sha256": _sha256(seen["output"].encode("utf-8")),
            "stderr_sha256": _sha256(seen["stderr"].encode("utf-8")),
        }
        for step, seen in capture.items()
    }


def main() -> None:
    """Rewrite the fixture from the current code (`--show STEP` prints one step's normalized output instead)."""
    with tempfile.TemporaryDirectory() as folder:
        capture = capture_run_outputs(Path(folder))
    if len(sys.argv) > 2 and sys.argv[1] == "--show":
        print(capture[sys.argv[2]]["output"])
        return
    FIXTURE.write_text(json.dumps(digests(capture), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {FIXTURE} ({len(capture)} steps)")


if __name__ == "__main__":
    main()
