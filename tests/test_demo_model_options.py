"""`biarena demo` takes a model as `run` does: `-M NAME=VALUE` options and named models from `--models FILE`."""

from pathlib import Path

from tests.test_cli_output import cli, ok


def test_the_demo_runs_a_named_model_with_options(tmp_path: Path) -> None:
    models = tmp_path / "models.yaml"
    models.write_text("scripted:\n  model: mock\n  temperature: 0.2\n", encoding="utf-8")
    done = ok(
        cli(
            "demo",
            "--model",
            "scripted",
            "--models",
            models,
            "-M",
            "cache=false",
            "--agents",
            "text2sql",
            "-o",
            tmp_path / "demo",
        )
    )
    assert (tmp_path / "demo" / "report.html").is_file()
    assert "agent text2sql" in done.stdout + done.stderr


def test_a_model_option_the_model_does_not_take_is_one_line_and_exit_2(tmp_path: Path) -> None:
    done = cli("demo", "--model", "mock", "-M", "colour=red", "--agents", "text2sql", "-o", tmp_path / "demo")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("error: ") and "does not take option 'colour'" in last and "draft" in last
    assert not (tmp_path / "demo" / "text2sql.run").exists()
