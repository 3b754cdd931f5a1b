"""Grade drafted template questions against a hand-written answer key of the database's columns.

`python -m tests.draft_quality --key KEY.yaml --db DB [--bench DIR]` parses each question's gold SQL (sqlglot, the
database's dialect), resolves every column to its table through aliases, joins and subqueries, and flags three
faults: a key column aggregated (SUM/AVG/MIN/MAX over it; COUNT(*) and COUNT(DISTINCT key) are fine), a contact or
personal column grouped or filtered by, an audit or birth column used as time. It reports, beside the share of
questions free of them, the questions per main fact, the measures and dimensions used and the names that collide
in the roles; and the same for a trivial rule: the current draft without its `...id` metrics and dimensions and its
phone, fax, e-mail and address columns.

A key file (tests/fixtures/draft_keys/*.yaml) names, per table, `keys`, `contact` and `audit` columns, the main
`facts`, and optionally plausible `measures` and `dimensions` (as `table.column`).
"""

import argparse
import re
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.optimizer.scope import Scope, traverse_scope

VALUE_AGGREGATES = (exp.Sum, exp.Avg, exp.Min, exp.Max, exp.Stddev, exp.Variance, exp.Median, exp.Quantile)
"""Aggregates whose argument is a quantity: a key inside one is a fault (COUNT is not among them)."""
TRIVIAL_DROP = re.compile(r"(id$|phone|fax|e-?mail|address)", re.I)
"""What the trivial rule drops from a draft: columns ending in `id` and contact columns."""
_TIME_FUNCTION = re.compile(r"date|time|trunc|strf|extract|year|month|week|day|hour|quarter|epoch", re.I)
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")
FAULTS = ("key_aggregated", "contact_grouped", "audit_as_time")


@dataclass(frozen=True)
class AnswerKey:
    """What a person who read the schema says about its columns (names compared case-insensitively)."""

    database: str
    keys: frozenset[tuple[str, str]]
    contact: frozenset[tuple[str, str]]
    audit: frozenset[tuple[str, str]]
    facts: tuple[str, ...]
    measures: frozenset[tuple[str, str]] = frozenset()
    dimensions: frozenset[tuple[str, str]] = frozenset()


def _pair(text: str) -> tuple[str, str]:
    table, _, column = text.rpartition(".")
    return table.lower(), column.lower()


def load_key(path: str | Path) -> AnswerKey:
    """Read an answer key YAML file."""
    from biarena.yaml_load import load_yaml

    data = load_yaml(Path(path).read_text(encoding="utf-8"), str(path))
    kinds: dict[str, set[tuple[str, str]]] = {"keys": set(), "contact": set(), "audit": set()}
    for table, roles in (data.get("tables") or {}).items():
        for kind, found in kinds.items():
            found.update((table.lower(), c.lower()) for c in (roles or {}).get(kind) or [])
    return AnswerKey(
        database=data["database"],
        keys=frozenset(kinds["keys"]),
        contact=frozenset(kinds["contact"]),
        audit=frozenset(kinds["audit"]),
        facts=tuple(data.get("facts") or []),
        measures=frozenset(_pair(m) for m in data.get("measures") or []),
        dimensions=frozenset(_pair(d) for d in data.get("dimensions") or []),
    )


@dataclass
class QuestionGrade:
    """One question's faults and what it reads."""

    text: str
    sql: str
    faults: dict[str, list[str]] = field(default_factory=dict)
    from_tables: set[str] = field(default_factory=set)
    measures: set[tuple[str, str]] = field(default_factory=set)
    dimensions: set[tuple[str, str]] = field(default_factory=set)

    @property
    def clean(self) -> bool:
        """True when no fault was found."""
        return not any(self.faults.values())


class ColumnResolver:
    """Finds the base table of each column of a statement, through aliases, joins, subqueries and CTEs."""

    def __init__(self, columns: dict[str, set[str]]) -> None:
        self.columns = {t.lower(): {c.lower() for c in cs} for t, cs in columns.items()}

    def resolve(self, column: exp.Column, scope: Scope, depth: int = 0) -> set[tuple[str, str]]:
        """The (table, column) pairs, lower-cased, that a column reference reads."""
        name = column.name.lower()
        if depth > 8:
            return set()
        if column.table:
            sources = {k: v for k, v in scope.sources.items() if k.lower() == column.table.lower()}
        else:
            sources = dict(scope.sources)
        found: set[tuple[str, str]] = set()
        for source in sources.values():
            if isinstance(source, exp.Table):
                table = source.name.lower()
                if name in self.columns.get(table, set()) or (column.table and table not in self.columns):
                    found.add((table, name))
            elif isinstance(source, Scope):
                found |= self._through(source, name, depth)
        return found

    def _through(self, inner: Scope, name: str, depth: int) -> set[tuple[str, str]]:
        select = inner.expression
        found: set[tuple[str, str]] = set()
        selects = select.selects if isinstance(select, exp.Select) else []
        for projection in selects:
            if projection.alias_or_name.lower() != name and not isinstance(projection, exp.Star):
                continue
            for col in projection.find_all(exp.Column):
                found |= self.resolve(col, inner, depth + 1)
        return found


def _ancestors(node: exp.Expression, stop: exp.Expression) -> Iterator[exp.Expression]:
    parent = node.parent
    while parent is not None and parent is not stop:
        yield parent
        parent = parent.parent


def _under_predicate(node: exp.Expression, stop: exp.Expression) -> exp.Expression | None:
    for parent in _ancestors(node, stop):
        if isinstance(parent, exp.Predicate):
            return parent
    return None


def _is_join_equality(predicate: exp.Expression) -> bool:
    return isinstance(predicate, exp.EQ) and all(
        isinstance(s, exp.Column) for s in (predicate.this, predicate.expression)
    )


def _is_time_function(function: exp.Func) -> bool:
    return bool(_TIME_FUNCTION.search(type(function).__name__) or _TIME_FUNCTION.search(function.sql_name()))


def _in_time_function(node: exp.Expression, stop: exp.Expression) -> bool:
    for parent in _ancestors(node, stop):
        if isinstance(parent, exp.Cast) and parent.to.is_type(*exp.DataType.TEMPORAL_TYPES):
            return True
        if isinstance(parent, exp.Func) and not isinstance(parent, exp.AggFunc) and _is_time_function(parent):
            return True
    return False


def _compared_to_date(predicate: exp.Expression) -> bool:
    return any(
        isinstance(lit, exp.Literal) and lit.is_string and _ISO_DATE.match(lit.this)
        for lit in predicate.find_all(exp.Literal)
    )


def _clause(node: exp.Expression) -> str | None:
    """The clause of the enclosing SELECT the node sits in: where, group, having, order, join, select."""
    child, parent = node, node.parent
    while parent is not None:
        if isinstance(parent, exp.Select):
            for key in ("where", "group", "having", "order", "joins"):
                value = parent.args.get(key)
                if value is child or (isinstance(value, list) and child in value):
                    return key
            return "select"
        child, parent = parent, parent.parent
    return None


def grade_sql(sql: str, dialect: str, key: AnswerKey, resolver: ColumnResolver, text: str = "") -> QuestionGrade:
    """The faults of one gold query, the tables in its FROM clauses and the measures and dimensions it uses."""
    grade = QuestionGrade(text=text, sql=sql, faults={f: [] for f in FAULTS})
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except sqlglot.errors.ParseError as error:
        grade.faults["unparsed"] = [str(error).splitlines()[0]]
        return grade
    for scope in traverse_scope(tree):
        select = scope.expression
        # sqlglot names the FROM clause `from_` (recent releases) or `from`
        source = select.args.get("from_") or select.args.get("from") if isinstance(select, exp.Select) else None
        if source is not None:
            main = source.this
            if isinstance(main, exp.Table):
                grade.from_tables.add(main.name.lower())
        for column in scope.columns:
            pairs = resolver.resolve(column, scope)
            _grade_column(column, pairs, select, key, grade)
    return grade


def _grade_column(
    column: exp.Column, pairs: set[tuple[str, str]], select: exp.Expression, key: AnswerKey, grade: QuestionGrade
) -> None:
    predicate = _under_predicate(column, select)
    aggregate = next((p for p in _ancestors(column, select) if isinstance(p, exp.AggFunc)), None)
    clause = _clause(column)
    timed = _in_time_function(column, select) or (predicate is not None and _compared_to_date(predicate))
    for pair in pairs:
        shown = ".".join(pair)
        valued = isinstance(aggregate, VALUE_AGGREGATES) and (
            predicate is None or not any(p is aggregate for p in _ancestors(predicate, select))
        )
        if valued:
            grade.measures.add(pair)
            if pair in key.keys:
                grade.faults["key_aggregated"].append(f"{type(aggregate).__name__.upper()}({shown})")
        grouped = clause == "group" or any(isinstance(p, exp.Window) for p in _ancestors(column, select))
        filtered = predicate is not None and not _is_join_equality(predicate)
        if (grouped or filtered) and not timed:
            grade.dimensions.add(pair)
            if pair in key.contact:
                grade.faults["contact_grouped"].append(f"{'GROUP BY' if grouped else 'filter on'} {shown}")
        if pair in key.audit and (timed or grouped or filtered or clause == "order"):
            grade.faults["audit_as_time"].append(f"{shown} as time")


@dataclass
class Report:
    """The grades of one benchmark's questions against an answer key."""

    label: str
    grades: list[QuestionGrade]
    facts: tuple[str, ...]
    collisions: dict[str, list[str]]
    key: AnswerKey

    @property
    def clean_share(self) -> float:
        """Share of questions free of the three faults (0 without questions)."""
        return sum(g.clean for g in self.grades) / len(self.grades) if self.grades else 0.0

    def per_fact(self) -> dict[str, int]:
        """Questions whose FROM holds each main fact."""
        return {f: sum(f.lower() in g.from_tables for g in self.grades) for f in self.facts}

    def measures(self) -> set[tuple[str, str]]:
        """Distinct (table, column) aggregated as quantities."""
        return set().union(*(g.measures for g in self.grades)) if self.grades else set()

    def dimensions(self) -> set[tuple[str, str]]:
        """Distinct (table, column) grouped or filtered by (time excluded)."""
        return set().union(*(g.dimensions for g in self.grades)) if self.grades else set()

    def fault_counts(self) -> Counter[str]:
        """Questions with each fault."""
        return Counter(f for g in self.grades for f, found in g.faults.items() if found)

    def examples(self, count: int = 5) -> list[QuestionGrade]:
        """A few questions spread over the benchmark, faulty ones first."""
        faulty = [g for g in self.grades if not g.clean]
        clean = [g for g in self.grades if g.clean]
        picked = faulty[:: max(1, len(faulty) // 3)][:3] if faulty else []
        return (picked + clean[:: max(1, len(clean) // count)])[:count]


def roles_collisions(roles: dict[str, Any]) -> dict[str, list[str]]:
    """English names given to two or more different columns in a roles mapping."""
    named: dict[str, set[str]] = {}
    for fact in roles.get("facts") or []:
        for metric in fact.get("metrics") or []:
            # a metric may be a column, an expression or the row count
            what = metric.get("column") or metric.get("expression") or ("rows" if metric.get("rows") else "?")
            where = f"{metric.get('table') or fact['table']}.{what}"
            named.setdefault(metric["names"]["en"].strip().lower(), set()).add(where.lower())
        for dim in fact.get("dimensions") or []:
            where = f"{dim.get('table') or fact['table']}.{dim['column']}"
            named.setdefault(dim["names"]["en"].strip().lower(), set()).add(where.lower())
    return {name: sorted(places) for name, places in named.items() if len(places) > 1}


def trivial_roles(roles: dict[str, Any]) -> dict[str, Any]:
    """The draft without metrics and dimensions on columns ending in `id` or holding phone, fax, e-mail, address."""
    facts = []
    for fact in roles.get("facts") or []:
        kept = dict(fact)
        kept["metrics"] = [m for m in fact.get("metrics") or [] if not TRIVIAL_DROP.search(m.get("column") or "")]
        kept["dimensions"] = [d for d in fact.get("dimensions") or [] if not TRIVIAL_DROP.search(d["column"])]
        if kept["metrics"]:
            facts.append(kept)
    return {**roles, "facts": facts}


def schema_columns(location: str) -> tuple[dict[str, set[str]], str]:
    """Columns of every table and view of the database, and its sqlglot dialect."""
    from biarena.db import open_database

    with open_database(location) as db:
        columns = {t: set(db.sample_rows(t, 0).columns) for t in db.tables()}
        return columns, db.dialect


def drafted_roles_text(location: str) -> str:
    """The current drafter's roles file for the database, as `biarena generate roles` writes it."""
    from biarena.generate.execute_roles import execute_roles
    from biarena.generate.generate_settings import RolesSettings

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "roles.yaml"
        execute_roles(RolesSettings(database=location, out=out))
        return out.read_text(encoding="utf-8")


def generate_benchmark(location: str, out: Path, roles: Path | None = None) -> Path:
    """Template questions over the database (drafted roles unless `roles` is given), written at `out`."""
    from biarena.generate.execute_templates import execute_templates
    from biarena.generate.generate_settings import TemplatesSettings

    return execute_templates(TemplatesSettings(database=location, out=out, roles=roles))


def grade_benchmark(bench: Path, location: str, key: AnswerKey, roles: dict[str, Any], label: str) -> Report:
    """Grade every question of a benchmark directory."""
    from biarena.benchmarks import load_benchmark

    columns, dialect = schema_columns(location)
    resolver = ColumnResolver(columns)
    benchmark = load_benchmark(bench, check_files=False)
    grades = [grade_sql(q.gold_sql[0], dialect, key, resolver, q.text) for q in benchmark.questions if q.gold_sql]
    return Report(label, grades, key.facts, roles_collisions(roles), key)


def evaluate(location: str, key: AnswerKey, bench: Path | None = None, work: Path | None = None) -> list[Report]:
    """The draft's grades (of `bench`, else of questions generated from the draft) and the trivial rule's."""
    from biarena.yaml_load import load_yaml

    with tempfile.TemporaryDirectory() as tmp:
        root = work or Path(tmp)
        draft_text = drafted_roles_text(location)
        draft = load_yaml(draft_text, "drafted roles")
        stored = bench / "roles.yaml" if bench else None
        roles = load_yaml(stored.read_text(encoding="utf-8"), str(stored)) if stored and stored.is_file() else draft
        first = bench or generate_benchmark(location, root / "draft")
        reports = [grade_benchmark(first, location, key, roles, "draft")]
        trivial = trivial_roles(draft)
        path = root / "trivial_roles.yaml"
        import yaml

        path.write_text(yaml.safe_dump(trivial, allow_unicode=True, sort_keys=False), encoding="utf-8")
        try:
            trivial_bench = generate_benchmark(location, root / "trivial", roles=path)
            reports.append(grade_benchmark(trivial_bench, location, key, trivial, "trivial rule"))
        except Exception as error:
            reports.append(Report(f"trivial rule (failed: {str(error).splitlines()[0][:60]})", [], key.facts, {}, key))
        return reports


def format_reports(title: str, reports: list[Report]) -> str:
    """A compact table of the reports side by side, then example questions."""
    width = 28
    head = f"{title:<{width}}" + "".join(f"{r.label[:22]:>24}" for r in reports)
    lines = [head, "-" * len(head)]

    def row(name: str, values: list[str]) -> None:
        lines.append(f"{name:<{width}}" + "".join(f"{v:>24}" for v in values))

    row("questions", [str(len(r.grades)) for r in reports])
    row("free of faults", [f"{r.clean_share:.0%}" for r in reports])
    for fault in FAULTS:
        row(f"  {fault}", [str(r.fault_counts()[fault]) for r in reports])
    for fact in reports[0].facts:
        row(f"  from {fact}", [str(r.per_fact()[fact]) for r in reports])
    row("measures / dimensions", [f"{len(r.measures())} / {len(r.dimensions())}" for r in reports])
    row("name collisions", [str(len(r.collisions)) for r in reports])
    for report in reports:
        for name, places in report.collisions.items():
            lines.append(f"  [{report.label}] '{name}': {', '.join(places)}")
        lines.append(f"  [{report.label}] examples:")
        for grade in report.examples():
            found = "; ".join(x for f in FAULTS for x in grade.faults.get(f, []))
            lines.append(f"    - {grade.text}" + (f"   <-- {found}" if found else ""))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Command line: grade a benchmark (or the default draft's questions) against a key."""
    parser = argparse.ArgumentParser(prog="python -m tests.draft_quality", description=__doc__.splitlines()[0])
    parser.add_argument("--key", required=True, help="answer key YAML")
    parser.add_argument("--db", required=True, help="database file or server URL")
    parser.add_argument("--bench", type=Path, help="benchmark directory (default: generate from the draft)")
    parser.add_argument("--title", help="table title (default: the key's database and the engine)")
    args = parser.parse_args(argv)
    if not Path(args.key).is_file():
        print(f"answer key not found: {args.key}", file=sys.stderr)
        return 2
    if "://" not in args.db and not Path(args.db).is_file():
        print(f"database not found: {args.db}", file=sys.stderr)
        return 2
    key = load_key(args.key)
    reports = evaluate(args.db, key, args.bench)
    engine = args.db.split("://")[0] if "://" in args.db else Path(args.db).suffix.lstrip(".")
    print(format_reports(args.title or f"{key.database} ({engine})", reports))
    return 0


if __name__ == "__main__":
    sys.exit(main())
