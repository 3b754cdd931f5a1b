"""The verifier's sampling tests: calibrated false-alarm rates, the build's budget, and breaks they catch."""

import numpy as np
import pytest

from biarena.synth.sampling import (
    BUILD_FALSE_ALARM,
    CHECK_ALPHA,
    EVENT_ALPHA,
    EVENT_CHECKS,
    OTHER_CHECKS,
    rate_ratio_pvalue,
    share_pvalue,
    shares_pvalue,
    tolerant_share_pvalue,
)


def test_the_budget_adds_up_to_one_false_alarm_in_a_thousand_builds() -> None:
    assert BUILD_FALSE_ALARM == 1e-3
    assert pytest.approx(BUILD_FALSE_ALARM) == EVENT_ALPHA * EVENT_CHECKS + CHECK_ALPHA * OTHER_CHECKS


def test_few_rows_are_noise_not_a_broken_event() -> None:
    # seed 3 at scale 0.2: 10 returned orders in the window where the weeks before, at their rate, give 1.4 (x7.0
    # against a planted x2.0) rests on one returned order before it
    assert rate_ratio_pvalue(10, 1, 1.4, 1.0, 2.0) > 0.05


def test_an_event_that_did_not_happen_is_caught_when_counts_allow() -> None:
    # planted x3 on 100 rows a month: the window holds 100, as the 300 of the three months before predict
    assert rate_ratio_pvalue(100, 300, 1.0, 3.0, 3.0) < EVENT_ALPHA
    assert rate_ratio_pvalue(300, 300, 1.0, 3.0, 3.0) > 0.05


def alarm_rate(pvalues: dict[tuple[int, ...], float], draws: np.ndarray, level: float) -> float:
    """The share of draws (one per row) whose p-value, looked up by the draw's counts, is below `level`."""
    return float(np.mean([pvalues[tuple(row)] < level for row in draws.tolist()]))


@pytest.mark.parametrize(("during_rate", "ratio"), [(2.0, 2.0), (20.0, 0.5), (50.0, 1.5)])
def test_the_rate_ratio_test_holds_its_false_alarm_rate(during_rate: float, ratio: float) -> None:
    rng = np.random.default_rng(0)
    draws = np.stack([rng.poisson(during_rate * ratio, 4000), rng.poisson(during_rate * 3, 4000)], axis=1)
    pvalues = {(d, b): rate_ratio_pvalue(d, b, 1.0, 3.0, ratio) for d, b in set(map(tuple, draws.tolist()))}
    # at most its 5%, with room for the 4000 draws' own noise (its sd is 0.35 points)
    assert alarm_rate(pvalues, draws, 0.05) <= 0.06


def test_the_share_test_holds_its_false_alarm_rate() -> None:
    draws = np.random.default_rng(1).binomial(40, 0.3, (4000, 1))
    pvalues = {(c,): share_pvalue(c, 40, 0.3) for c in set(draws[:, 0].tolist())}
    assert alarm_rate(pvalues, draws, 0.05) <= 0.06


def test_shares_are_tested_per_category_with_bonferroni() -> None:
    pvalue, worst = shares_pvalue([30, 50, 20], [0.3, 0.5, 0.2])
    assert pvalue == 1.0
    pvalue, worst = shares_pvalue([300, 500, 400], [0.3, 0.5, 0.2])
    assert worst == 2 and pvalue < CHECK_ALPHA
    # rounding a small table's exact shares is not a broken share: 1 of 7 is 14% for a planned 10%
    assert shares_pvalue([1, 2, 4], [0.1, 0.3, 0.6])[0] > 0.05


def test_a_monthly_share_within_the_tolerance_passes_at_any_count() -> None:
    assert tolerant_share_pvalue(1_050_000, 10_000_000, 0.1, 0.1) == 1.0  # 5% over: within the 10% allowed
    assert tolerant_share_pvalue(1_150_000, 10_000_000, 0.1, 0.1) < CHECK_ALPHA  # 15% over
    assert tolerant_share_pvalue(15, 100, 0.1, 0.1) > 0.05  # 50% over, on 15 rows: noise
    assert tolerant_share_pvalue(0, 0, 0.1, 0.1) == 1.0


def test_a_share_that_is_a_floor_is_tested_on_one_side() -> None:
    assert share_pvalue(95, 100, 0.85, "less") > 0.5
    assert share_pvalue(600, 1000, 0.85, "less") < CHECK_ALPHA
