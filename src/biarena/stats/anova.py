"""anova_by_group: one-way ANOVA of a score across groups (question types), as CORGI's Finding 3."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from scipy import stats

from biarena.errors import UsageError


@dataclass(frozen=True)
class Anova:
    """A one-way ANOVA: F, its p-value, the degrees of freedom, and each group's size and mean."""

    f: float
    p: float
    df_between: int
    df_within: int
    groups: dict[str, tuple[int, float]]
    """Group -> (values, mean)."""


def anova_by_group(values: Mapping[str, Sequence[float | None]]) -> Anova:
    """One-way ANOVA across groups (scipy.stats.f_oneway); empty values are dropped, groups left empty too."""
    groups = {name: [float(v) for v in vals if v is not None] for name, vals in values.items()}
    groups = {name: vals for name, vals in groups.items() if vals}
    total = sum(len(v) for v in groups.values())
    if len(groups) < 2 or total - len(groups) < 1:
        raise UsageError("ANOVA needs at least two groups with values and more values than groups")
    result = stats.f_oneway(*groups.values())
    return Anova(
        f=float(result.statistic),
        p=float(result.pvalue),
        df_between=len(groups) - 1,
        df_within=total - len(groups),
        groups={name: (len(vals), sum(vals) / len(vals)) for name, vals in groups.items()},
    )
