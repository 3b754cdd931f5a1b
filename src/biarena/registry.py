"""Registry: every extensible kind (agents, scorers, importers, ...) as names mapped to "module:attr" strings.

A registry reads as a read-only mapping of names to the objects they name (`name in AGENTS`, `AGENTS[name]`,
iteration over the names, `.get`), each imported the first time it is asked for, so a registry costs nothing
until used. Other installed packages add entries through the entry-point group of the kind (`biarena.agents`,
...): entry-point name = registry name, value = "module:attr". Entry points are read only when a name is not
built in or the kind is listed, so a start that needs none pays nothing.
"""

import importlib
import warnings
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from biarena.errors import BiarenaError, BiarenaWarning, NotFoundError, did_you_mean

T = TypeVar("T")

BUILT_IN = "biarena"
"""The distribution that provides the built-in entries."""


class UnknownNameError(NotFoundError, KeyError):
    """A name a registry does not hold (a KeyError too, so `Mapping.get` and `in` keep their meaning)."""

    __str__ = Exception.__str__  # one plain line, not KeyError's quoted form


class PluginError(BiarenaError):
    """A plugin's entry is refused (its name clashes) or cannot be loaded (its module fails to import)."""


@dataclass(frozen=True)
class Entry:
    """One registered name: where its object lives ("module:attr") and who provides it."""

    name: str
    target: str
    """"module:attr", imported on first use."""
    package: str = BUILT_IN
    """The distribution providing it: biarena for a built-in, else the plugin's."""
    meta: Mapping[str, Any] = field(default_factory=dict)
    """Facts known without importing it (a scorer's `default`, a command's short help)."""
    entry_point: Any = None
    """The importlib.metadata entry point of a plugin (None for a built-in)."""


def import_target(target: str) -> Any:
    """The object at "module:attr" ("module:a.b" follows attributes), its module imported now."""
    module, _, attribute = target.partition(":")
    found: Any = importlib.import_module(module)
    for part in attribute.split(".") if attribute else []:
        found = getattr(found, part)
    return found


def warn(message: str) -> None:
    """Raise `message`, on one line, as a BiarenaWarning (the CLI shows it as `warning: ...`)."""
    warnings.warn(" ".join(message.split()), BiarenaWarning, stacklevel=2)


class Registry(Mapping[str, T], Generic[T]):
    """Names of one kind -> objects, loaded from "module:attr" on first use; plugins from the entry-point `group`.

    `entries` maps each built-in name to its "module:attr" target, or to (target, meta) where `meta` holds facts
    known without importing it. `load` turns a built-in target into its object (import_target by default).
    """

    def __init__(
        self,
        kind: str,
        entries: Mapping[str, str | tuple[str, Mapping[str, Any]]],
        *,
        group: str | None = None,
        load: Callable[[str], Any] = import_target,
    ) -> None:
        self.kind = kind
        self.group = group
        self._load = load
        self._builtins: dict[str, Entry] = {}
        for name, value in entries.items():
            target, meta = (value, {}) if isinstance(value, str) else value
            self._builtins[name] = Entry(name, target, meta=dict(meta))
        self._plugins: dict[str, Entry] | None = None
        self._loaded: dict[str, Any] = {}
        self._broken: dict[str, str] = {}

    # -- the mapping ---------------------------------------------------------------------------------------------

    def __contains__(self, name: object) -> bool:
        if name in self._builtins:
            return True
        return isinstance(name, str) and name in self.plugins()

    def __getitem__(self, name: str) -> T:
        if name not in self._loaded:
            self._loaded[name] = self._object(self.entry(name))
        return self._loaded[name]

    def __iter__(self) -> Iterator[str]:
        yield from self._builtins
        yield from self.plugins()

    def __len__(self) -> int:
        return len(self._builtins) + len(self.plugins())

    def __setitem__(self, name: str, value: Any) -> None:
        """Register `name` in this process (a program that embeds biarena, a test): `value` is "module:attr" (or
        ("module:attr", meta), as in a registry's source), or the object itself. Packages extend a registry through
        entry points instead."""
        if isinstance(value, str) or (isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], str)):
            target, meta = (value, {}) if isinstance(value, str) else value
            self._builtins[name] = Entry(name, target, meta=dict(meta))
            self._loaded.pop(name, None)
        else:
            self._builtins[name] = Entry(
                name, f"{getattr(value, '__module__', '?')}:{getattr(value, '__qualname__', '?')}"
            )
            self._loaded[name] = value

    def __delitem__(self, name: str) -> None:
        """Forget `name` registered in this process (KeyError when it is not)."""
        del self._builtins[name]
        self._loaded.pop(name, None)

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {list(self._builtins)!r})"

    # -- entries -------------------------------------------------------------------------------------------------

    def builtin_names(self) -> list[str]:
        """The built-in names, in registry order (reads no entry point)."""
        return list(self._builtins)

    def entry(self, name: str) -> Entry:
        """The entry of `name`: a built-in, else a plugin's (UnknownNameError with close names when neither)."""
        found = self._builtins.get(name)
        if found is None:
            found = self.plugins().get(name)
        if found is None:
            known = list(self)
            listing = ", ".join(known) if known else "none"
            raise UnknownNameError(f"unknown {self.kind} '{name}'{did_you_mean(name, known)} (known: {listing})")
        return found

    def meta(self, name: str, key: str, default: Any = None) -> Any:
        """A fact about `name`: its entry's `meta[key]` when declared there (no import), else the attribute `key`
        of its object (a plugin declares facts on its class)."""
        entry = self.entry(name)
        if key in entry.meta:
            return entry.meta[key]
        return getattr(self[name], key, default)

    def options(self, name: str) -> Any:
        """The options model (pydantic) `name` takes: its object's `Options`, or the object when it is a model
        itself; None when it takes none."""
        made = self[name]
        if isinstance(made, type) and hasattr(made, "model_fields"):
            return made
        return getattr(made, "Options", None)

    def loaded(self) -> dict[str, T]:
        """Every name's object, in order; a plugin that fails to load is reported in one line and left out."""
        found: dict[str, T] = {}
        for name in self:
            try:
                found[name] = self[name]
            except PluginError as error:
                if name not in self._broken:
                    self._broken[name] = str(error)
                    warn(str(error))
        return found

    def package(self, name: str) -> str:
        """The distribution providing `name` (biarena for a built-in)."""
        return self.entry(name).package

    # -- plugins -------------------------------------------------------------------------------------------------

    def plugins(self) -> dict[str, Entry]:
        """The entries other installed packages add through the entry-point group (read once, on first need).

        A plugin name that is also a built-in's, or two plugins' of one name, is a PluginError naming both."""
        if self._plugins is None:
            found: dict[str, Entry] = {}  # filled aside, then published whole: threads never see half of it
            if self.group is not None:
                from importlib.metadata import entry_points

                for point in entry_points(group=self.group):
                    package = _distribution(point)
                    if point.name in self._builtins:
                        raise PluginError(
                            f"{self.kind} '{point.name}' of package '{package}' clashes with the built-in "
                            f"{self.kind} of package '{BUILT_IN}': rename it in the '{self.group}' entry points"
                        )
                    if point.name in found:
                        other = found[point.name].package
                        if other == package:  # one distribution seen twice on the path: the first one wins
                            continue
                        raise PluginError(
                            f"{self.kind} '{point.name}' is given by both package '{other}' and package "
                            f"'{package}' (entry-point group '{self.group}'): uninstall or rename one"
                        )
                    found[point.name] = Entry(point.name, point.value, package, entry_point=point)
            self._plugins = found
        return self._plugins

    def _object(self, entry: Entry) -> Any:
        if entry.entry_point is None:
            return self._load(entry.target)
        try:
            return entry.entry_point.load()
        except Exception as error:  # a broken plugin: reported in one line, never a traceback
            why = " ".join(f"{type(error).__name__}: {error}".split())
            raise PluginError(
                f"{self.kind} '{entry.name}' of package '{entry.package}' cannot be loaded from "
                f"'{entry.target}' ({why})"
            ) from None


def _distribution(point: Any) -> str:
    """The name of the distribution that declares the entry point `point` ("?" when unknown)."""
    dist = getattr(point, "dist", None)
    return str(getattr(dist, "name", None) or "?")
