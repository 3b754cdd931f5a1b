"""The Registry: names to "module:attr" loaded on first use, plugins read from entry points only when needed, an
unknown name answered with the close ones, and each entry's options model."""

import subprocess
import sys
import tomllib
from importlib.metadata import EntryPoint
from pathlib import Path
from types import SimpleNamespace

import pytest

from biarena.errors import BiarenaWarning, NotFoundError
from biarena.registry import PluginError, Registry, UnknownNameError

ROOT = Path(__file__).resolve().parents[1]

MODULE = '''
from biarena.options import Options


class WidgetOptions(Options):
    """What a widget takes."""

    size: int = 3
    """How big."""


class Widget:
    """A widget."""

    Options = WidgetOptions
    shiny = True
'''


@pytest.fixture
def widgets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Registry:
    """A registry of two widgets in a module not imported yet, and no plugins."""
    (tmp_path / "widget_module.py").write_text(MODULE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "widget_module", raising=False)
    return Registry(
        "widget",
        {"small": "widget_module:Widget", "large": ("widget_module:Widget", {"shiny": False})},
        group="biarena.test-widgets",
    )


def fake_points(monkeypatch: pytest.MonkeyPatch, points: list[EntryPoint]) -> list[str]:
    """Make `entry_points(group=...)` give `points`; the groups asked for are listed as they are asked."""
    asked: list[str] = []

    def entry_points(group: str) -> list[EntryPoint]:
        asked.append(group)
        return [p for p in points if p.group == group]

    monkeypatch.setattr("importlib.metadata.entry_points", entry_points)
    return asked


def point(name: str, value: str, group: str, package: str) -> EntryPoint:
    """An entry point of the distribution `package`."""
    made = EntryPoint(name, value, group)
    return made._for(SimpleNamespace(name=package))  # type: ignore[attr-defined]


def test_an_entry_is_imported_when_first_used_not_before(widgets: Registry, monkeypatch: pytest.MonkeyPatch) -> None:
    asked = fake_points(monkeypatch, [])
    assert "small" in widgets and "widget_module" not in sys.modules
    assert widgets.builtin_names() == ["small", "large"] and asked == []  # a built-in name reads no entry point
    made = widgets["small"]
    assert made.__name__ == "Widget" and "widget_module" in sys.modules
    assert widgets["large"] is made and widgets.get("small") is made
    assert widgets.options("small").model_fields["size"].default == 3
    assert widgets.meta("small", "shiny") is True and widgets.meta("large", "shiny") is False  # the entry's wins
    assert widgets.package("small") == "biarena"


def test_an_unknown_name_is_one_line_with_the_close_ones(widgets: Registry, monkeypatch: pytest.MonkeyPatch) -> None:
    asked = fake_points(monkeypatch, [])
    with pytest.raises(UnknownNameError) as raised:
        widgets["smal"]
    assert str(raised.value) == "unknown widget 'smal'; did you mean 'small'? (known: small, large)"
    assert isinstance(raised.value, NotFoundError) and isinstance(raised.value, KeyError)
    assert widgets.get("smal") is None and "smal" not in widgets
    assert asked == ["biarena.test-widgets"]  # an unknown name reads the plugins, once


def test_plugins_are_read_from_entry_points_when_listed(widgets: Registry, monkeypatch: pytest.MonkeyPatch) -> None:
    group = "biarena.test-widgets"
    asked = fake_points(monkeypatch, [point("huge", "widget_module:Widget", group, "acme-widgets")])
    assert list(widgets) == ["small", "large", "huge"] and len(widgets) == 3
    assert widgets.package("huge") == "acme-widgets" and widgets["huge"] is widgets["small"]
    assert widgets.meta("huge", "shiny") is True  # a plugin declares its facts on its object
    assert asked == [group]


def test_a_clash_with_a_builtin_names_both_packages(widgets: Registry, monkeypatch: pytest.MonkeyPatch) -> None:
    group = "biarena.test-widgets"
    fake_points(monkeypatch, [point("small", "elsewhere:Widget", group, "acme-widgets")])
    assert widgets["small"].__name__ == "Widget"  # the built-in, found without reading the plugins
    with pytest.raises(
        PluginError,
        match="widget 'small' of package 'acme-widgets' clashes with the built-in widget of package 'biarena'",
    ):
        list(widgets)
    two = [point("huge", "a:W", group, "acme-widgets"), point("huge", "b:W", group, "other-widgets")]
    fake_points(monkeypatch, two)
    with pytest.raises(PluginError, match="given by both package 'acme-widgets' and package 'other-widgets'"):
        widgets.plugins()


def test_a_plugin_that_fails_to_load_is_one_warning_when_listed(
    widgets: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_points(monkeypatch, [point("broken", "no_such_module:Widget", "biarena.test-widgets", "acme-widgets")])
    with pytest.warns(BiarenaWarning) as raised:
        assert list(widgets.loaded()) == ["small", "large"]
    assert [f"{w.message.prefix}{w.message}" for w in raised] == [  # type: ignore[union-attr]
        "warning: widget 'broken' of package 'acme-widgets' cannot be loaded from 'no_such_module:Widget' "
        "(ModuleNotFoundError: No module named 'no_such_module')"
    ]
    with pytest.raises(PluginError, match="widget 'broken' of package 'acme-widgets' cannot be loaded"):
        widgets["broken"]


def test_a_name_registered_in_process_is_used_and_forgotten(widgets: Registry) -> None:
    widgets["tiny"] = "widget_module:Widget"
    assert widgets["tiny"].__name__ == "Widget" and "tiny" in widgets.builtin_names()
    del widgets["tiny"]
    assert "tiny" not in widgets.builtin_names()


def test_the_built_in_verticals_are_the_spec_files() -> None:
    from biarena.synth import VERTICALS

    folder = ROOT / "src" / "biarena" / "synth" / "verticals"
    assert VERTICALS.builtin_names() == sorted(path.stem for path in folder.glob("*.yaml"))
    assert all(Path(VERTICALS[name]).is_file() for name in VERTICALS.builtin_names())


def test_the_version_and_help_read_no_entry_point_and_load_no_registered_module() -> None:
    code = (
        "import importlib.metadata, sys\n"
        "asked = []\n"
        "real = importlib.metadata.entry_points\n"
        "importlib.metadata.entry_points = lambda **kw: asked.append(kw) or real(**kw)\n"
        "from biarena.cli import app\n"
        "for args in (['--version'], ['--help']):\n"
        "    try:\n"
        "        app(args)\n"
        "    except SystemExit:\n"
        "        pass\n"
        "heavy = ('biarena.agents', 'biarena.scoring.registry', 'biarena.benchmarks')\n"
        "loaded = [m for m in heavy if m in sys.modules]\n"
        "print(asked, loaded, file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stderr.strip() == "[] []"


def test_every_package_is_in_the_layers_contract_and_on_the_development_page() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    layers = next(c for c in config["contracts"] if c["name"] == "Packages import only the layers below them")
    named = {part.strip() for layer in layers["layers"] for part in layer.replace(":", "|").split("|")}
    package = ROOT / "src" / "biarena"
    present = {
        f"biarena.{path.stem if path.is_file() else path.name}"
        for path in package.iterdir()
        if (path.suffix == ".py" and path.stem not in ("__init__", "__main__")) or (path / "__init__.py").is_file()
    }
    assert present == named
    page = (ROOT / "docs" / "development.md").read_text(encoding="utf-8")
    assert all(f"`{name.removeprefix('biarena.')}`" in page for name in named)
