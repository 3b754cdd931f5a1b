"""clean_user_name and name_skeletons: the arena's user names, checked for hidden characters and look-alikes."""

import unicodedata

import disarm

from biarena.errors import UsageError

MAX_NAME = 80

NAME_KEY_VERSION = f"disarm-skeleton-{disarm.KEY_SCHEMA_VERSION}"
"""Names the skeleton rules in force: stored keys made under other rules are made again when a store opens."""

# Unicode's default-ignorable code points outside the format (Cf) category, and the blank braille pattern: they
# render as nothing, so a name holding one reads the same as a name without it. The Cf ones (zero-width joiners,
# bidi overrides, ...) are refused by category.
_IGNORABLE = frozenset(
    [0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180B, 0x180C, 0x180D, 0x180F, 0x3164, 0xFFA0, 0x2800,
     *range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0)]
)
# Control, format, surrogate, private-use and unassigned characters, and line or paragraph separators.
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def clean_user_name(name: str) -> str:
    """The name as stored (outer spaces removed); UsageError when it is empty, too long or holds hidden characters.

    Hidden means invisible or control characters (zero-width joiners and spaces, bidi overrides, fillers,
    variation selectors) and any space but the ordinary one: each would let two names that read alike differ.
    """
    name = name.strip()
    if not name or len(name) > MAX_NAME:
        raise UsageError(f"a user name is 1 to {MAX_NAME} characters")
    for position, char in enumerate(name, start=1):
        category = unicodedata.category(char)
        if category in _HIDDEN_CATEGORIES or ord(char) in _IGNORABLE or (category == "Zs" and char != " "):
            raise UsageError(
                f"a user name may not hold invisible or control characters: {_describe(char)} at character "
                f"{position}"
            )
    if not any(skeleton for skeleton in name_skeletons(name)):
        raise UsageError("a user name needs at least one visible letter or digit")
    return name


def name_skeletons(name: str) -> tuple[str, str]:
    """The keys two names that read alike share: the TR39 skeleton of the name as written and case-folded.

    The skeleton (disarm's `skeleton_key`) strips hidden characters, applies NFKC (full-width letters become
    ASCII), maps look-alikes to one prototype (Cyrillic а and Greek α to a, capital I and digit 1 to l) and
    folds case. The name as written catches a capital I standing for an l; its case fold catches ALICE
    standing for alice, which the first key keeps apart because the capital I there becomes l.
    """
    return (
        disarm.skeleton_key(name, digit_policy="tr39"),
        disarm.skeleton_key(name.casefold(), digit_policy="tr39"),
    )


def _describe(char: str) -> str:
    return f"U+{ord(char):04X} {unicodedata.name(char, 'unnamed character')}"
