"""SQLite clock reads found and anchored in a statement's text, token by token, without parsing it."""

import re
from datetime import datetime

from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import SqlglotError
from sqlglot.tokens import Token, TokenType

from biarena.db.clock_guard import SQLITE_DATE_RESULTS, SQLITE_TIME_VALUE_POSITIONS
from biarena.db.clock_names import CLOCK_FUNCTIONS, SQLITE_NOW_WHEN_EMPTY, SQLITE_TIME_FUNCTIONS

_CLOCK_WORD_SET = CLOCK_FUNCTIONS | {"localtimestamp"}
# Any clock word, and any of SQLite's time functions (a column or a computed string may hand one 'now' as it runs).
# Text without either cannot read the clock, so it needs no rewriting; a match (even in a string or a comment) only
# means "look".
_CLOCK_TEXT = re.compile(r"\b(?:" + "|".join(sorted(_CLOCK_WORD_SET | SQLITE_TIME_FUNCTIONS)) + r")\b", re.IGNORECASE)


def may_read_clock(sql: str) -> bool:
    """False only when SQLite `sql` surely does not read the current time (no clock word, no time function)."""
    return _CLOCK_TEXT.search(sql) is not None


_KEYWORD_KINDS = {
    TokenType.CURRENT_TIMESTAMP: "timestamp",
    TokenType.CURRENT_DATE: "date",
    TokenType.CURRENT_TIME: "time",
}
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")
_NOT_NAMES = frozenset({TokenType.STRING, TokenType.NUMBER, TokenType.NULL, TokenType.TRUE, TokenType.FALSE})
_PLAIN = _NOT_NAMES | frozenset(_KEYWORD_KINDS)  # values read as they are written (the keywords are anchored apart)
_SQLITE = Dialect.get_or_raise("sqlite")


class _Unsure(Exception):
    """A time value the tokens alone cannot judge: the statement goes to the parser."""


def _is_name(token: Token) -> bool:
    if token.token_type in (TokenType.VAR, TokenType.IDENTIFIER):
        return True
    return (
        token.token_type not in _NOT_NAMES
        and token.token_type not in _KEYWORD_KINDS
        and bool(_NAME.fullmatch(token.text))
    )


def _is_column(span: list[Token]) -> bool:
    """`x`, `t.x` or `s.t.x`: names joined by dots."""
    return len(span) % 2 == 1 and all(
        _is_name(token) if i % 2 == 0 else token.token_type == TokenType.DOT for i, token in enumerate(span)
    )


def _is_date_call(span: list[Token]) -> bool:
    """`date(...)` and the like, whole: a call whose result is never 'now' (its arguments are looked at apart)."""
    if len(span) < 3 or span[0].text.lower() not in SQLITE_DATE_RESULTS or span[1].token_type != TokenType.L_PAREN:
        return False
    depth = 0
    for i, token in enumerate(span[1:], start=1):
        depth += {TokenType.L_PAREN: 1, TokenType.R_PAREN: -1}.get(token.token_type, 0)
        if depth == 0:
            return i == len(span) - 1
    return False


class _Anchoring:
    """The edits that anchor one statement's clock reads, found token by token."""

    def __init__(self, sql: str, tokens: list[Token], now: datetime) -> None:
        self.sql = sql
        self.tokens = tokens
        self.stamp = {
            "timestamp": now.strftime("'%Y-%m-%d %H:%M:%S'"),
            "date": now.strftime("'%Y-%m-%d'"),
            "time": now.strftime("'%H:%M:%S'"),
        }
        self.edits: list[tuple[int, int, str]] = []  # (start, end exclusive, new text)
        self.loose_now: set[int] = set()  # 'now' tokens not (yet) seen as a whole time value

    def close_argument(self, frame: list, end: int) -> None:
        """Anchor the argument of a call that ends before token `end` (frame: the time function, which argument,
        the argument's first token); _Unsure when it is a time value the tokens cannot judge."""
        name, index, start = frame
        tokens, stamp = self.tokens, self.stamp["timestamp"]
        span = tokens[start:end]
        if name == "strftime" and index == 0 and span and tokens[end].token_type == TokenType.R_PAREN:
            self.edits.append((span[-1].end + 1, span[-1].end + 1, ", " + stamp))  # strftime(format)
        if name is None or index not in SQLITE_TIME_VALUE_POSITIONS[name]:
            return
        if not span:
            if index == 0 and name in SQLITE_NOW_WHEN_EMPTY and tokens[end].token_type == TokenType.R_PAREN:
                opening = tokens[start - 1].end + 1
                self.edits.append((opening, opening, stamp))  # date()
            return
        first, last = span[0], span[-1]
        if len(span) == 1 and first.token_type in (TokenType.STRING, TokenType.IDENTIFIER):
            self.loose_now.discard(start)
            if first.text.lower() == "now" or (first.token_type == TokenType.IDENTIFIER and _is_now(first)):
                self.edits.append((first.start, first.end + 1, stamp))
                return
        if (len(span) == 1 and first.token_type in _PLAIN) or _is_date_call(span):
            return
        if not _is_column(span):
            raise _Unsure
        column = self.sql[first.start : last.end + 1]
        self.edits.append(
            (
                first.start,
                last.end + 1,
                f"CASE WHEN unicode({column}) IN (78, 110) AND CAST({column} AS TEXT) LIKE 'now' "
                f"THEN {stamp} ELSE {column} END",
            )
        )

    def anchored(self) -> str:
        """The statement with every edit made."""
        sql = self.sql
        for start, end, text in sorted(self.edits, reverse=True):
            sql = sql[:start] + text + sql[end:]
        return sql


def anchor_sqlite_text(sql: str, now: datetime) -> str | None:
    """SQLite `sql` with its clock reads replaced by `now`, by its tokens alone (no parse), or None when unsure.

    Handles what SQLite itself reads the clock with: `CURRENT_TIMESTAMP`, `CURRENT_DATE`, `CURRENT_TIME`, a time
    function's time value `'now'` (or `"now"`), such a function called without one, and a column as its time value
    (read as the anchor when it holds 'now', see clock_guard). Everything else is left exactly as written. Any other
    sign of the clock (a `now()` call, a `'now'` anywhere else, a computed time value, a clock word used as a name)
    returns None: the caller then parses and rewrites the statement (anchor_clock), as it does for every other dialect.
    """
    try:
        tokens = _SQLITE.tokenize(sql)
    except (SqlglotError, ValueError):
        return None
    found = _Anchoring(sql, tokens, now)
    # Per open parenthesis: [the time function it calls or None, which argument, the argument's first token].
    frames: list[list] = []
    try:
        for i, token in enumerate(tokens):
            kind = token.token_type
            following = tokens[i + 1].token_type if i + 1 < len(tokens) else None
            if kind == TokenType.L_PAREN:
                before = tokens[i - 1] if i else None
                called = before.text.lower() if before is not None and before.token_type != TokenType.STRING else ""
                frames.append([called if called in SQLITE_TIME_FUNCTIONS else None, 0, i + 1])
            elif kind == TokenType.COMMA and frames:
                found.close_argument(frames[-1], i)
                frames[-1][1] += 1
                frames[-1][2] = i + 1
            elif kind == TokenType.R_PAREN:
                if frames:
                    found.close_argument(frames.pop(), i)
            elif kind in _KEYWORD_KINDS:
                if following == TokenType.L_PAREN:
                    return None
                found.edits.append((token.start, token.end + 1, found.stamp[_KEYWORD_KINDS[kind]]))
            elif kind in (TokenType.STRING, TokenType.IDENTIFIER):
                if _is_now(token):
                    found.loose_now.add(i)
            elif token.text.lower() in _CLOCK_WORD_SET:
                return None
    except _Unsure:
        return None
    return None if found.loose_now else found.anchored()


def _is_now(token: Token) -> bool:
    return token.text.strip().lower() == "now"
