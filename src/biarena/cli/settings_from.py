"""settings_from: a workflow's settings made from a command's parameters, each named as the field it sets."""

import inspect
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

Made = TypeVar("Made")


def settings_from(model: Callable[..., Made], parameters: Mapping[str, Any], **given: Any) -> Made:
    """`model` (a workflow's `Settings`, a config dataclass) from a command's `parameters` and `given` values.

    A command passes its `locals()` (so it binds no field's name to anything but its parameter): every parameter
    named as one of the model's fields goes in as it is, the others (a flag the command reads itself, such as
    `--host`) are left out, and `given` sets or replaces the rest: a parameter named otherwise, a list made from
    repeated options.
    """
    fields = inspect.signature(model).parameters
    taken = {name: value for name, value in parameters.items() if name in fields}
    return model(**(taken | given))
