"""Reading a model's reply: the SQL queries it wrote (each with its stated purpose) and the plan before them."""

import re
from dataclasses import dataclass

import sqlglot
from sqlglot.errors import SqlglotError
from sqlglot.tokens import TokenType

from biarena.db.dialect import dialects


@dataclass(frozen=True)
class WrittenQuery:
    """One query as the model wrote it: the statement text and what the model said it is for."""

    sql: str
    purpose: str | None = None


_FENCE_OPEN = re.compile(r"^[ \t]*(`{3,}|~{3,})(.*)$")
_SQL_START = re.compile(
    r"^\s*(?:--[^\n]*\n\s*|/\*.*?\*/\s*)*\(?\s*(SELECT|WITH|INSERT|UPDATE|DELETE|CREATE|DROP|ALTER|PRAGMA|EXPLAIN|"
    r"VALUES|SHOW|DESCRIBE|REPLACE|MERGE|TRUNCATE|ATTACH|DETACH|GRANT|TABLE)\b",
    re.I | re.S,
)
# Fence tags of SQL engines biarena has no dialect for (a name holding "sql" is SQL already).
_OTHER_SQL_ENGINES = {
    "bigquery", "clickhouse", "databricks", "hive", "mariadb", "oracle", "presto", "redshift", "snowflake", "spark",
    "trino",
}  # fmt: skip
# "Query 1: ...", "**Query 2**: ...", "### Query 3 - ...", "1. **SQL Query 4** – ...", "SQL 5) ..."
_QUERY_HEADER = re.compile(
    r"^[ \t]*(?:#+[ \t]*)?(?:[-*][ \t]+|\d+[.)][ \t]+)?(?:\*\*|__)?[ \t]*(?:sql[ \t]+)?(?:query|sql)[ \t]*#?[ \t]*\d+"
    r"[ \t]*(?:\*\*|__)?[ \t]*(?:[:.)\-–—]|\*\*|$)[ \t]*(?:\*\*|__)?(.*)$",
    re.I | re.M,
)
# "Plan: ...", "**Plan**:", "**Plan:**", "## Plan", "Plan" alone on its line; not "Planning ..." or "Plan the ..."
_PLAN_HEADER = re.compile(
    r"^[ \t]*(?:#+[ \t]*)?(?:\*\*|__)?[ \t]*(?:interaction[ \t]+)?plan\b[ \t]*(?:\*\*|__)?[ \t]*"
    r"(?:[:：\-–—][ \t]*(?:\*\*|__)?[ \t]*(.*)|$)$",
    re.I | re.M,
)
_INTRODUCTION = re.compile(r"^\W*(?:here|below|the following)\b.{0,40}\b(?:query|queries|sql|statement)\W*$", re.I)
_BARE_START = re.compile(r"^[ \t]*(?:\d+[.)][ \t]+|[-*][ \t]+)?((?:SELECT|WITH)\b.*)$", re.I | re.M)
_SENTENCE = re.compile(r"^[ \t]*([A-Z][a-z]+)(?:[ \t]+\S+){2,}")
_SQL_PUNCTUATION = re.compile(r"[,=()<>*'\"|]")
_SQL_WORDS = {k.upper() for k in sqlglot.tokens.Tokenizer.KEYWORDS if k.isalpha()} | {
    "SELECT", "FROM", "WHERE", "GROUP", "ORDER", "HAVING", "LIMIT", "JOIN", "LEFT", "RIGHT", "INNER", "OUTER",
    "CROSS", "FULL", "ON", "AND", "OR", "NOT", "UNION", "EXCEPT", "INTERSECT", "CASE", "WHEN", "THEN", "ELSE",
    "END", "AS", "WITH", "OFFSET", "WINDOW", "QUALIFY", "USING", "OVER", "PARTITION", "BY", "IN", "IS",
}  # fmt: skip


@dataclass(frozen=True)
class _Block:
    tag: str
    body: str
    start: int
    end: int


def _is_sql_tag(tag: str) -> bool:
    tag = tag.lower()
    return "sql" in tag or tag in _OTHER_SQL_ENGINES or tag in {found.name for found in dialects()}


def _fenced_blocks(text: str) -> list[_Block]:
    """Every fenced code block, including an unclosed last one (a reply cut at its token limit)."""
    blocks: list[_Block] = []
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    i = 0
    while i < len(lines):
        match = _FENCE_OPEN.match(lines[i].rstrip("\r\n"))
        if not match:
            i += 1
            continue
        fence, rest = match.group(1), match.group(2)
        start = offsets[i]
        if fence in rest:  # a block on one line: ```sql SELECT 1```
            inner = rest[: rest.index(fence)]
            tag, body = _split_info(inner)
            blocks.append(_Block(tag, body, start, offsets[i + 1]))
            i += 1
            continue
        tag, first = _split_info(rest)
        body_lines = [first + "\n"] if first.strip() else []
        j = i + 1
        while j < len(lines):
            line = lines[j].rstrip("\r\n")
            if line.strip().startswith(fence[0] * 3) and not line.strip().strip(fence[0]):
                break
            if _FENCE_OPEN.match(line) and re.fullmatch(r"[`~]{3,}[\w+.-]+", line.strip()):
                j -= 1  # a new block opens before this one was closed: this one ends here
                break
            if line.rstrip().endswith(fence) and line.strip() != fence:  # "FROM t```"
                body_lines.append(line.rstrip()[: -len(fence)])
                break
            body_lines.append(lines[j])
            j += 1
        blocks.append(_Block(tag, "".join(body_lines), start, offsets[min(j + 1, len(lines))]))
        i = j + 1
    return blocks


def _split_info(info: str) -> tuple[str, str]:
    """Split a fence's info string into its language tag and any statement written on the same line."""
    info = info.strip()
    if not info:
        return "", ""
    if _SQL_START.match(info):
        return "", info
    head, _, rest = info.partition(" ")
    return head.strip("{}."), rest.strip()


def _clean(sql: str) -> str:
    return sql.strip().rstrip(";").strip()


def _statements(body: str) -> list[str]:
    """Split SQL text into its statements at top-level semicolons (string literals respected). It is kept whole
    unless every piece starts like a statement (quoting the tokenizer does not know may hide a semicolon), except
    for a remark after the last semicolon ("SELECT 1; this counts them"), which is dropped."""
    whole = [_clean(body)] if _clean(body) else []
    try:
        tokens = sqlglot.tokenize(body)
    except (SqlglotError, ValueError):
        return whole
    pieces, start = [], 0
    for token in tokens:
        if token.token_type == TokenType.SEMICOLON:
            pieces.append(body[start : token.start])
            start = token.end + 1
    pieces.append(body[start:])
    statements = [s for s in (_clean(p) for p in pieces) if s and not _only_comments(s)]
    if all(_SQL_START.match(s) for s in statements):
        return statements
    *head, last = statements
    if head and all(_SQL_START.match(s) for s in head) and not re.search(r"[`'\"]", last):
        return head
    return whole


def _only_comments(sql: str) -> bool:
    stripped = re.sub(r"--[^\n]*|/\*.*?\*/", "", sql, flags=re.S)
    return not stripped.strip()


def _purpose(between: str) -> str | None:
    """What the text just before a query says it is for: its "Query N: ..." header, else a line ending in ":"."""
    headers = list(_QUERY_HEADER.finditer(between))
    if headers:
        return _tidy(headers[-1].group(1)) or None
    lines = [line.strip() for line in between.splitlines() if line.strip()]
    # Without a header, only a line that introduces the query ("Total sales per city:") states its purpose.
    if not lines or not lines[-1].rstrip("*_").endswith(":") or _PLAN_HEADER.match(lines[-1]):
        return None
    if _INTRODUCTION.match(lines[-1]):
        return None
    return _tidy(re.sub(r"^(?:\d+[.)]|[-*])\s+", "", lines[-1])) or None


def _tidy(text: str) -> str:
    text = text.strip().strip("*_#").strip()
    text = re.sub(r"^\[(.*)\]$", r"\1", text)
    return text.rstrip(":").strip()


def _is_query_block(block: _Block) -> bool:
    return _is_sql_tag(block.tag) or bool(_SQL_START.match(block.body))


def _parses(sql: str) -> bool:
    try:
        sqlglot.parse_one(sql)
    except (SqlglotError, ValueError):
        return False
    return True


def _is_prose(line: str) -> bool:
    """A sentence after a statement ("This query counts ..."), not a continuation of it."""
    match = _SENTENCE.match(line)
    if not match or match.group(1).upper() in _SQL_WORDS:
        return False
    return line.rstrip().endswith((".", "!", "?", ":")) or not _SQL_PUNCTUATION.search(line)


def _bare_queries(text: str) -> list[WrittenQuery]:
    """Statements written without a code fence: from a line starting SELECT or WITH to a semicolon, a blank
    line, the next header or the first sentence of prose."""
    queries: list[WrittenQuery] = []
    lines = text.splitlines()
    i, consumed_to = 0, 0
    while i < len(lines):
        match = _BARE_START.match(lines[i])
        header = _QUERY_HEADER.match(lines[i])
        if header and _SQL_START.match(header.group(1) or ""):
            match = re.match(r"(.*)", header.group(1))
        elif header and re.match(r"\[\s*(?:SELECT|WITH)\b.*\]\s*;?\s*$", header.group(1) or "", re.I):
            # "Query 1: [SELECT ...]": the statement written inside the placeholder's brackets
            match = re.match(r"\[\s*(.*?)\s*\]\s*;?\s*$", header.group(1))
        if not match:
            i += 1
            continue
        first = match.group(1)
        keyword = first.split(None, 1)[0]
        taken = [first]
        j = i + 1
        while not taken[-1].rstrip().endswith(";") and j < len(lines):
            line = lines[j]
            if not line.strip() or _QUERY_HEADER.match(line) or _FENCE_OPEN.match(line) or _is_prose(line):
                break
            if _BARE_START.match(line) and not line[:1].isspace() and _parses("\n".join(taken)):
                break  # the next statement, written without a semicolon between
            taken.append(line)
            j += 1
        pieces = _statements("\n".join(taken))
        # Lowercase "select the top city ..." in prose is a sentence unless it parses as SQL.
        if pieces and (keyword.isupper() or _parses(pieces[0])):
            purpose = _purpose("\n".join(lines[consumed_to:i]))
            queries += [WrittenQuery(sql=sql, purpose=purpose) for sql in pieces]
            consumed_to = j
        i = j
    return queries


def written_queries(text: str) -> list[WrittenQuery]:
    """Every query in a reply, in order: fenced blocks of any language tag (an unclosed last one too), else
    bare statements; each with the purpose written before it."""
    blocks = [b for b in _fenced_blocks(text) if _is_query_block(b)]
    if not blocks:
        return _bare_queries(text)
    queries: list[WrittenQuery] = []
    previous_end = 0
    for block in blocks:
        purpose = _purpose(text[previous_end : block.start])
        statements = _statements(block.body)
        if not statements and block.body.strip():
            statements = [_clean(block.body)]
        queries += [WrittenQuery(sql=sql, purpose=purpose) for sql in statements]
        previous_end = block.end
    return queries


def written_plan(text: str) -> str | None:
    """The plan a model wrote before its queries ("Plan: ...", "**Plan**:", "## Plan"), else its opening prose."""
    stops = [m.start() for m in _QUERY_HEADER.finditer(text)]
    stops += [b.start for b in _fenced_blocks(text)]
    stops += [m.start() for m in _BARE_START.finditer(text) if m.group(1).split(None, 1)[0].isupper()]
    header = _PLAN_HEADER.search(text)
    if header and (not stops or header.start() < min(stops)):
        begin = header.start(1) if header.group(1) is not None else header.end()
    else:
        begin = 0
    later = [s for s in stops if s >= begin]
    end = min(later) if later else len(text)
    plan = text[begin:end].strip().strip("-*_#").strip()
    return plan or None
