"""load_yaml: the one way biarena parses YAML, with aliases bounded so a few lines cannot expand to gigabytes."""

from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from biarena.errors import FormatError

ALIAS_EXPANSION_LIMIT = 1_000_000
"""How many nodes and characters aliases may add to a document when each is written out in full.

Every alias is a copy of what its anchor names, so nine nested levels of ten aliases each are a billion copies in
a few hundred bytes; a file's shared defaults expand by a few thousand."""


_SafeLoader: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's parser where PyYAML was built with it (its wheels are), which reads a file several times faster than the
pure-Python one, with the same safe constructor and resolver."""


class _TextTimestamps(_SafeLoader):  # type: ignore[misc,valid-type]
    """A safe loader that leaves dates and times as text, so the model validating them names the field."""


_TextTimestamps.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def load_yaml(text: str, where: str, *, timestamps: bool = True, limit: int = ALIAS_EXPANSION_LIMIT) -> Any:
    """Parse one YAML document safely; FormatError (naming `where` and the line) when it is not valid YAML or when its
    aliases would add more than `limit` nodes and characters (`timestamps=False`: dates stay text)."""
    try:
        # the pure-Python reader checks the characters here, libyaml's as it parses
        loader = (_SafeLoader if timestamps else _TextTimestamps)(text)
    except yaml.reader.ReaderError as error:
        raise FormatError(f"{where}: invalid YAML: {error.reason} (character {error.position})") from None
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_expansion(node, where, limit)
        return loader.construct_document(node)
    except yaml.reader.ReaderError as error:
        raise FormatError(f"{where}: invalid YAML: {error.reason} (character {error.position})") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = f" line {mark.line + 1}" if mark else ""
        problem = getattr(error, "problem", None) or " ".join(str(error).split())
        raise FormatError(f"{where}{line}: invalid YAML: {problem}") from None
    except RecursionError:
        raise FormatError(f"{where}: invalid YAML: nested too deeply") from None
    except ValueError as error:  # a date like 2023-13-45, or an integer beyond 4300 digits
        raise FormatError(f"{where}: invalid YAML value: {str(error).split(':')[0]}") from None
    finally:
        loader.dispose()


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        return node.value
    if isinstance(node, MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _weight(node: Node) -> int:
    return 1 + (len(node.value) if isinstance(node, ScalarNode) else 0)


def expanded_size(root: Node) -> tuple[int, int]:
    """(size written out with every alias expanded, size as written): nodes plus scalar characters.

    Each distinct node is visited once (an alias is the node its anchor names), so a bomb is measured without being
    expanded; ValueError when a node holds an alias to itself."""
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if children_done:
            open_nodes.discard(key)
            sizes[key] = _weight(node) + sum(sizes[id(child)] for child in _children(node))
            continue
        if key in sizes:
            continue
        if key in open_nodes:
            raise ValueError("an alias refers to a node that contains it")
        open_nodes.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node) if id(child) not in sizes)
    written = 0
    seen: set[int] = set()
    walk = [root]
    while walk:
        node = walk.pop()
        if id(node) not in seen:
            seen.add(id(node))
            written += _weight(node)
            walk.extend(_children(node))
    return sizes[id(root)], written


def _check_expansion(root: Node, where: str, limit: int) -> None:
    try:
        expanded, written = expanded_size(root)
    except ValueError as error:
        raise FormatError(f"{where}: invalid YAML: {error}") from None
    if expanded - written > limit:
        raise FormatError(
            f"{where}: YAML aliases expand the document by more than {limit:,} nodes and characters "
            f"({expanded:,} in all); write the repeated parts out"
        )
