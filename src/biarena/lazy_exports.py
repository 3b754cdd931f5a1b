"""lazy_exports: a package's public names, each imported from its module on first use (PEP 562)."""

import importlib
import sys
import types
from collections.abc import Callable, Mapping
from typing import Any


class _LazyPackage(types.ModuleType):
    """A package whose exported names win over its submodules of the same name (`metrics.result_similarity` is the
    function, as an eager `from .result_similarity import result_similarity` made it, even once the module loaded)."""

    _exported: frozenset[str] = frozenset()

    def __setattr__(self, name: str, value: Any) -> None:
        # The import system binds each loaded submodule on its package; an export of that name keeps its place.
        if isinstance(value, types.ModuleType) and name in type(self)._exported:
            return
        super().__setattr__(name, value)


def lazy_exports(
    package: str, modules: Mapping[str, str | tuple[str, ...]], *, shadows: frozenset[str] = frozenset()
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """`__getattr__` and `__dir__` for `package` that import each name from its module when first asked.

    `modules` maps each module (below `package`) to the name or names the package exports from it. Importing one
    module of a package then costs that module alone, not every sibling the package re-exports (statistics, plots
    and engines stay unloaded until something uses them). An exported name that is also a submodule's (its own
    source, or one in `shadows`) stays the exported object once that submodule loads.
    """
    exports = {
        name: source for source, names in modules.items() for name in ((names,) if isinstance(names, str) else names)
    }
    module = sys.modules[package]
    shadowed = frozenset(name for name, source in exports.items() if name == source or name in shadows)
    if shadowed:
        module.__class__ = type("LazyPackage", (_LazyPackage,), {"_exported": shadowed})

    def __getattr__(name: str) -> Any:
        source = exports.get(name)
        if source is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(f"{package}.{source}"), name)

    def __dir__() -> list[str]:
        return sorted(exports)

    return __getattr__, __dir__
