"""The pieces descriptive (type 1) questions are made of: a draft carrying its gold SQL, and the SQL shapes they
share (a percentage, descending order, the last days before the anchor)."""

from sqlglot import exp

from biarena.generate import sql_builder as sb
from biarena.generate.corgi_suite.common import (
    DIALECT,
    SuiteDraft,
    sql,
    stamp_ref,
)
from biarena.synth.spec import Spec


def gold_draft(text: str, query: exp.Expression, tables: list[str], form: str) -> SuiteDraft:
    """A descriptive draft: its gold SQL rides in `reference` until the question is made."""
    return SuiteDraft(text, sql(query), tables, form, {}, ["corgi:vertical-template"])


def percent_of(node: exp.Expression, whole: exp.Expression, digits: int = 1) -> exp.Expression:
    """ROUND(100.0 * node / whole, digits)."""
    return sb.rounded(sb.percent(node, whole), digits, DIALECT)


def descending(node: exp.Expression) -> exp.Ordered:
    """node DESC."""
    return exp.Ordered(this=node, desc=True)


def last_days(stamp: str, spec: Spec, days: int) -> exp.Expression:
    """The last `days` days before the spec's anchor."""
    return sb.last_days(stamp_ref(stamp), days, spec.anchor, DIALECT)
