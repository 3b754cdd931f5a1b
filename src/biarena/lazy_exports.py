"""lazy_exports: a package's public names, each imported from its module on first use (PEP 562)."""

import importlib
from collections.abc import Callable
from typing import Any


def lazy_exports(package: str, exports: dict[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """`__getattr__` and `__dir__` for `package` that import `name` from `package.exports[name]` when first asked.

    Importing one module of a package then costs that module alone, not every sibling the package re-exports
    (statistics, plots and engines stay unloaded until something uses them).
    """

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(f"{package}.{module}"), name)

    def __dir__() -> list[str]:
        return sorted(exports)

    return __getattr__, __dir__
