"""Style control: the Bradley-Terry fit with answer length and Markdown structure as covariates."""

import random

import pytest

from biarena.stats.style_control import fit_style_controlled
from biarena.votes.leaderboard import Contender, build_leaderboard
from biarena.votes.settings import LeaderboardSettings
from biarena.votes.style import STYLE_FEATURES, style_features
from biarena.votes.vote import Vote


def test_style_features_count_words_and_markdown() -> None:
    text = "# Title\n\nSome **bold** words here.\n\n- one\n- two\n1. three"
    words, headers, bold, items = style_features(text)
    assert headers == 1 and bold == 1 and items == 3 and words >= 8
    assert style_features(None) == (0.0, 0.0, 0.0, 0.0)


def _votes(rng: random.Random) -> list[tuple[str, str, str, tuple, tuple]]:
    """`verbose` wins only by being long: half its answers are long, and a long answer wins 90% of its votes;
    `plain` and `verbose` are otherwise equal, and `weak` loses most of its votes whatever its length."""
    games = []
    for _ in range(600):
        a, b = rng.sample(["plain", "verbose", "weak"], 2)
        long_a = a == "verbose" and rng.random() < 0.8
        long_b = b == "verbose" and rng.random() < 0.8
        fa = (400.0 if long_a else 150.0, 0.0, 0.0, 0.0)
        fb = (400.0 if long_b else 150.0, 0.0, 0.0, 0.0)
        if "weak" in (a, b):
            p_a = 0.85 if b == "weak" else 0.15
        else:
            p_a = 0.9 if long_a and not long_b else (0.1 if long_b and not long_a else 0.5)
        games.append((a, b, "a" if rng.random() < p_a else "b", fa, fb))
    return games


def test_style_control_removes_a_lead_that_length_alone_gives() -> None:
    games = _votes(random.Random(0))
    fit = fit_style_controlled(games, features=STYLE_FEATURES, bootstrap=50, seed=0)
    assert fit.coefficients["length"] > 0.5  # longer answers win
    assert abs(fit.strength["verbose"] - fit.strength["plain"]) < 0.35
    assert fit.strength["weak"] < fit.strength["plain"] - 1
    assert fit.low["weak"] <= fit.strength["weak"] <= fit.high["weak"]
    from biarena.stats.bradley_terry import fit_bradley_terry

    raw = fit_bradley_terry([(a, b, w) for a, b, w, *_ in games], bootstrap=0)
    assert raw.strength["verbose"] - raw.strength["plain"] > 0.35  # without style control, length is a lead


def test_the_leaderboard_shows_both_rankings() -> None:
    games = _votes(random.Random(1))
    votes = [
        Vote(i, "judge", "b", f"q{i}", a, b, {"a": "left", "b": "right"}[w], "", "", None, None)
        for i, (a, b, w, _, _) in enumerate(games)
    ]
    features = {v.id: (g[3], g[4]) for v, g in zip(votes, games, strict=True)}
    contenders = [Contender(name, None) for name in ("plain", "verbose", "weak")]
    board = build_leaderboard(votes, contenders, LeaderboardSettings(bootstrap=20), style=lambda v: features[v.id])
    assert board.rows[0].name == "verbose" and board.style_control is not None
    assert board.style_control.systems[-1] == "weak" and board.style_control.votes == len(votes)
    assert board.style_control.coefficients["length"] > 0
    assert build_leaderboard(votes, contenders, LeaderboardSettings(bootstrap=0)).style_control is None
    with pytest.raises(Exception, match="at least one vote"):
        fit_style_controlled([], features=STYLE_FEATURES)
