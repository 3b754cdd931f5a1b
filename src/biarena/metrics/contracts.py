"""ResultContract: what "the same result" means, declared as data, with the named presets of biarena and its peers.

A contract says how rows are counted (set, bag, list), when row order matters, how predicted columns are paired
with the gold's, how numbers and NULLs compare, what two empty results are, and whether DISTINCT is taken out of
both queries before they run. `biarena` (the default) is the rule execution accuracy has always used; the others
reproduce the evaluators a published figure was made with, so a reader can say which definition a number used.
"""

from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import AfterValidator

from biarena.errors import NotFoundError
from biarena.options import Shown
from biarena.scoring.contract_names import contract_named

Rows = Literal["set", "bag"]
"""Rows compared as a set (duplicates ignored) or as a bag (each row counted), when order does not matter."""
Order = Literal["never", "outer_order_by", "any_order_by", "flag_or_outer_order_by"]
"""When row order matters: never; when the gold's outermost statement orders; when the gold's text holds
`order by` anywhere (Spider); when the question says so (its evidence `ignore_order`), else as `outer_order_by`."""
Columns = Literal["position", "name", "permutation", "gold_subset"]
"""How predicted columns pair with gold ones: by position; by name; by any one-to-one permutation that makes the
rows equal; or each gold column found among the predicted ones by its values, extra predicted columns ignored
(columns then compare one by one, each sorted on its own when order does not matter)."""
Numbers = Literal["exact", "absolute", "relative", "decimals", "rounding_aware"]
"""Numbers equal exactly; within `tolerance` absolutely or relatively (as `math.isclose`); rounded to `decimals`
places; or biarena's rule: to 6 places, and to fewer when one side carries fewer (a rounded answer)."""
Nulls = Literal["null", "zero"]
"""NULL is a value of its own, or read as 0."""
Empty = Literal["equal", "compare"]
"""Two empty results are equal whatever their columns, or are compared like any others (columns must agree)."""
Distinct = Literal["keep", "remove"]
"""DISTINCT kept, or taken out of both queries (every DISTINCT, as Spider's evaluator does) before they run."""
Score = Literal["match", "soft_f1"]
"""A verdict (1 or 0), or BIRD's Soft-F1, a value in [0, 1]."""


@dataclass(frozen=True)
class ResultContract:
    """One definition of a correct result: a verdict (or Soft-F1) for a predicted result against a gold one."""

    name: str
    description: str
    rows: Rows = "bag"
    order: Order = "outer_order_by"
    columns: Columns = "permutation"
    numbers: Numbers = "exact"
    tolerance: float = 0.0
    """The absolute or relative tolerance (`numbers` absolute or relative)."""
    decimals: int = 6
    """Places numbers are rounded to (`numbers` decimals, and the cap of `rounding_aware`)."""
    nulls: Nulls = "null"
    empty: Empty = "compare"
    distinct: Distinct = "keep"
    score: Score = "match"

    def __post_init__(self) -> None:
        if self.columns == "gold_subset" and self.rows != "bag":
            raise ValueError(f"contract '{self.name}': gold_subset columns compare column by column, as bags")
        if self.score == "soft_f1" and self.columns != "position":
            raise ValueError(f"contract '{self.name}': Soft-F1 pairs values by row, so columns go by position")
        shape = (self.rows, self.columns, self.nulls, self.empty)
        if self.numbers == "rounding_aware" and shape != ("bag", "permutation", "null", "compare"):
            raise ValueError(f"contract '{self.name}': the rounding-aware rule goes with biarena's rows and columns")

    @property
    def binary(self) -> bool:
        """True when the contract gives a verdict (1 or 0) rather than a graded value."""
        return self.score == "match"


BIARENA = ResultContract(
    "biarena",
    "biarena's rule for BI answers: rows as a bag, ordered when the gold's outermost query orders; any "
    "column order; numbers to 6 decimals, or to fewer when one side was rounded",
    numbers="rounding_aware",
)

SPIDER = ResultContract(
    "spider",
    "Spider's test-suite-sql-eval exec match: DISTINCT taken out of both queries; rows as a bag, ordered "
    "when the gold's text holds ORDER BY; any column permutation; values exactly; two empty results equal",
    order="any_order_by",
    empty="equal",
    distinct="remove",
)

SPIDER_KEEP_DISTINCT = ResultContract(
    "spider-keep-distinct",
    "Spider's exec match run with --keep_distinct: as `spider`, DISTINCT kept",
    order="any_order_by",
    empty="equal",
)

BIRD = ResultContract(
    "bird",
    "BIRD's EX: set(predicted rows) == set(gold rows); columns by position; values exactly; order ignored",
    rows="set",
    order="never",
    columns="position",
    empty="equal",
)

BIRD_F1 = ResultContract(
    "bird-f1",
    "BIRD's Soft-F1: duplicate rows dropped, the i-th predicted row against the i-th gold row, values "
    "matched within each row; precision and recall over matched, predicted-only and gold-only values",
    rows="set",
    order="never",
    columns="position",
    empty="equal",
    score="soft_f1",
)

SPIDER2 = ResultContract(
    "spider2",
    "Spider 2.0's compare_pandas_table: each gold column must equal some predicted column (extra predicted "
    "columns ignored); numbers within 0.01; NULL read as 0; each column sorted on its own unless order "
    "matters (the question's ignore_order, else the gold's ORDER BY)",
    order="flag_or_outer_order_by",
    columns="gold_subset",
    numbers="absolute",
    tolerance=1e-2,
    nulls="zero",
)

STRICT = ResultContract(
    "strict",
    "Strict: rows as a bag, ordered when the gold's outermost query orders; columns by position; values "
    "exactly; NULL only equals NULL",
    columns="position",
)

DEFAULT_CONTRACT = "biarena"


def _known(name: str) -> str:
    try:
        contract_named(name)
    except NotFoundError as error:
        raise ValueError(str(error)) from None
    return name


ContractName = Annotated[str, AfterValidator(_known), Shown("contract")]
"""A named contract, as an option's type (a bad name is refused with the list of good ones)."""
