"""Agreement, ANOVA, Hotelling's T^2 and the bootstrap against worked examples and independent reference calls."""

import math

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.multivariate import test_mvmean as one_sample_hotelling

from biarena.errors import UsageError
from biarena.stats import (
    agreed_subset_accuracy,
    agreement,
    anova_by_group,
    hotelling_paired,
    kappa,
    mean_interval,
    paired_bootstrap,
)

FIRST = [1, 2, 3, 4, 5, 3]
SECOND = [1, 2, 4, 4, 5, 2]


def test_agreement_matches_a_worked_example() -> None:
    result = agreement(FIRST, SECOND)
    assert result.n == 6 and result.exact == pytest.approx(4 / 6)
    # Observed agreement 4/6; chance agreement from the marginals (1*1 + 1*2 + 2*0 + 1*2 + 1*1) / 36 = 6/36.
    assert result.kappa == pytest.approx((4 / 6 - 6 / 36) / (1 - 6 / 36))
    r = np.corrcoef(FIRST, SECOND)[0, 1]
    t = r * math.sqrt(4 / (1 - r * r))
    assert result.pearson_r == pytest.approx(r)
    assert result.pearson_p == pytest.approx(2 * stats.t.sf(abs(t), 4))


def test_weighted_kappa_for_ordinal_scores() -> None:
    # Linear weights over categories 1..5 (positions 0..4, w = 1 - |i - j| / 4): observed 23/24 weighted agreement.
    x, y = np.array(FIRST), np.array(SECOND)
    observed = np.mean(1 - np.abs(x - y) / 4)
    levels = [1, 2, 3, 4, 5]
    px = np.array([np.mean(x == v) for v in levels])
    py = np.array([np.mean(y == v) for v in levels])
    expected = sum(px[i] * py[j] * (1 - abs(i - j) / 4) for i in range(5) for j in range(5))
    assert kappa(FIRST, SECOND, weights="linear") == pytest.approx((observed - expected) / (1 - expected))
    with pytest.raises(UsageError, match="weights"):
        kappa(FIRST, SECOND, weights="cubic")


def test_agreement_skips_missing_items_and_handles_constant_raters() -> None:
    result = agreement([1, None, 3, 3], [1, 2, None, 3])
    assert result.n == 2 and result.exact == 1.0 and result.kappa == pytest.approx(1.0)
    constant = agreement([2, 2, 2], [2, 2, 2])
    assert constant.kappa == 1.0 and math.isnan(constant.pearson_r)
    with pytest.raises(UsageError, match="different numbers"):
        agreement([1, 2], [1, 2, 3])


def test_agreed_subset_accuracy_counts_only_items_the_annotators_agree_on() -> None:
    # Annotators agree on items 0, 1 and 3; the system matches them on 0 and 3.
    accuracy, n = agreed_subset_accuracy([5, 2, 1, 4], [5, 3, 2, 4], [5, 3, 1, 4])
    assert (accuracy, n) == (pytest.approx(2 / 3), 3)


def test_anova_matches_the_sums_of_squares_by_hand() -> None:
    result = anova_by_group({"type2": [1, 2, 3], "type3": [2, 3, 4, 5], "empty": [None]})
    # Grand mean 20/7; between = 3 (2 - 20/7)^2 + 4 (3.5 - 20/7)^2 = 27/7 on 1 df; within = 2 + 5 = 7 on 5 df.
    assert result.f == pytest.approx((27 / 7) / (7 / 5))
    assert result.p == pytest.approx(stats.f.sf(135 / 49, 1, 5))
    assert (result.df_between, result.df_within) == (1, 5)
    assert result.groups == {"type2": (3, 2.0), "type3": (4, 3.5)}
    with pytest.raises(UsageError, match="two groups"):
        anova_by_group({"only": [1, 2]})


def test_hotelling_matches_statsmodels_and_the_paired_t_test() -> None:
    rng = np.random.default_rng(0)
    first = rng.normal(3, 1, size=(40, 4))
    second = first + rng.normal([0.4, 0.0, -0.3, 0.1], 1, size=(40, 4))
    result = hotelling_paired(first, second)
    reference = one_sample_hotelling(first - second, np.zeros(4))
    assert result.t2 == pytest.approx(float(reference.t2))
    assert result.f == pytest.approx(float(reference.statistic))
    assert result.p == pytest.approx(float(reference.pvalue))
    assert (result.df_num, result.df_den) == (4, 36)
    # With one dimension, T^2 is the square of the paired t statistic.
    one = hotelling_paired(first[:, :1], second[:, :1])
    paired = stats.ttest_rel(first[:, 0], second[:, 0])
    assert one.t2 == pytest.approx(paired.statistic**2) and one.p == pytest.approx(paired.pvalue)


def test_hotelling_f_transform_reproduces_corgi_figures() -> None:
    # CORGI 4.4: T^2 = 160.51 with 6 and 83 degrees of freedom (89 answers) gives F = 25.23.
    rng = np.random.default_rng(1)
    first = rng.normal(size=(89, 6))
    second = first - rng.normal(0.5, 1, size=(89, 6))
    result = hotelling_paired(first, second)
    assert (result.df_num, result.df_den) == (6, 83)
    assert result.f / result.t2 == pytest.approx(83 / (6 * 88))
    assert pytest.approx(25.23, abs=0.01) == 83 / (6 * 88) * 160.51


def test_hotelling_refuses_what_it_cannot_test() -> None:
    with pytest.raises(UsageError, match="more answers than dimensions"):
        hotelling_paired(np.ones((3, 3)), np.zeros((3, 3)))
    with pytest.raises(UsageError, match="same answers"):
        hotelling_paired(np.ones((5, 2)), np.ones((5, 3)))
    x = np.random.default_rng(2).normal(size=(10, 2))
    with pytest.raises(UsageError, match="collinear"):
        hotelling_paired(x, x - 1)


def test_mean_interval_agrees_with_the_t_interval_on_normal_data() -> None:
    values = np.random.default_rng(3).normal(2.0, 1.0, size=400)
    interval = mean_interval(list(values), resamples=4000)
    low, high = stats.t.interval(0.95, len(values) - 1, loc=values.mean(), scale=stats.sem(values))
    assert interval.estimate == pytest.approx(values.mean())
    assert interval.low == pytest.approx(low, abs=0.02) and interval.high == pytest.approx(high, abs=0.02)
    assert mean_interval([0.5]).low is None
    constant = mean_interval([1.0, 1.0, None, 1.0])
    assert (constant.estimate, constant.low, constant.high, constant.n) == (1.0, 1.0, 1.0, 3)


def test_paired_bootstrap_of_two_systems_on_the_same_questions() -> None:
    rng = np.random.default_rng(4)
    base = rng.random(300)
    better = base + rng.normal(0.1, 0.1, size=300)
    result = paired_bootstrap(list(better), list(base))
    d = better - base
    low, high = stats.t.interval(0.95, len(d) - 1, loc=d.mean(), scale=stats.sem(d))
    assert result.difference == pytest.approx(d.mean())
    assert result.low == pytest.approx(low, abs=0.005) and result.high == pytest.approx(high, abs=0.005)
    assert result.p < 0.001 and result.n == 300
    same = paired_bootstrap(list(base), list(base + rng.normal(0, 0.1, size=300)))
    assert same.low < 0 < same.high and same.p > 0.05
    skipped = paired_bootstrap([1.0, None, 0.0, 1.0], [0.0, 1.0, None, 0.0])
    assert skipped.n == 2 and skipped.difference == 1.0
    with pytest.raises(UsageError, match="same items"):
        paired_bootstrap([1.0], [1.0, 2.0])
