"""Old spellings of options that now go through `-O NAME=VALUE`, still accepted (hidden) so documented commands work.

A command made with `legacy_flags(...)` rewrites each old flag into the hidden `--legacy-flag NAME=VALUE` before
click reads the arguments, so the command gets them apart from its `-O` pairs and reads them the same way.
"""

from collections.abc import Mapping
from typing import Any

import typer
from typer.core import TyperCommand, TyperOption

from biarena.errors import UsageError

LEGACY = typer.Option(None, "--legacy-flag", hidden=True, help="An old flag as NAME=VALUE (internal).")
"""The hidden option old flags are rewritten into; a command that takes old flags declares it."""


def legacy_flags(flags: Mapping[str, str], switches: Mapping[str, str] | None = None) -> type[TyperCommand]:
    """A command class that accepts the old `flags` (flag -> option name; each takes a value) and `switches`
    (flag -> option name, on when given, or flag -> `NAME=VALUE`; no value) as hidden spellings of `-O NAME=VALUE`."""
    takes_value = dict(flags)
    on_off = dict(switches or {})

    class LegacyFlags(TyperCommand):
        def parse_args(self, ctx: typer.Context, args: list[str]) -> list[str]:
            """Rewrite old flags, then parse as usual."""
            return super().parse_args(ctx, self.rewrite(args))

        def rewrite(self, args: list[str]) -> list[str]:
            """The arguments with each old flag as `--legacy-flag NAME=VALUE` (a value of another option is left)."""
            own = {
                name
                for param in self.params
                if isinstance(param, TyperOption) and not param.is_flag and not param.count
                for name in param.opts
            }
            out: list[str] = []
            index = 0
            while index < len(args):
                arg = args[index]
                flag, equals, value = arg.partition("=")
                if arg == "--":
                    out += args[index:]
                    break
                if flag in on_off and not equals:
                    # a switch names the option it turns on, or gives the NAME=VALUE it stands for
                    setting = on_off[flag]
                    out += ["--legacy-flag", setting if "=" in setting else f"{setting}=true"]
                elif flag in takes_value:
                    if not equals:
                        if index + 1 >= len(args):
                            raise UsageError(f"{flag} needs a value")
                        index += 1
                        value = args[index]
                    out += ["--legacy-flag", f"{takes_value[flag]}={value}"]
                else:
                    out.append(arg)
                    if arg in own and index + 1 < len(args):
                        index += 1
                        out.append(args[index])
                index += 1
            return out

    return LegacyFlags


def legacy_command(function: Any, name: str, command_class: type[TyperCommand]) -> TyperCommand:
    """`function` as a single click command of class `command_class` (for the COMMANDS table)."""
    single = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    single.command(name, cls=command_class)(function)
    command = typer.main.get_command(single)
    assert isinstance(command, TyperCommand)
    return command
