"""The business database simulator: generation, determinism, verification of every rule."""

import hashlib
import sqlite3
from pathlib import Path

import pytest

from biarena.errors import FormatError
from biarena.synth import generate, load_spec, verify, vertical_names, vertical_spec
from tests.test_cli import assert_user_error, biarena


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("name", vertical_names())
def test_every_vertical_generates_at_scale_0_1_and_verifies(name: str, tmp_path: Path) -> None:
    spec = vertical_spec(name)
    counts = generate(spec, tmp_path / f"{name}.db", scale=0.1, seed=0)
    assert set(counts) == set(spec.tables) and all(n > 0 for n in counts.values())
    checks = verify(tmp_path / f"{name}.db")
    kinds = {c.kind for c in checks}
    assert {"foreign key", "segments", "seasonality", "rule", "planted event"} <= kinds
    assert [c for c in checks if not c.ok] == []


def test_same_seed_same_bytes(tmp_path: Path) -> None:
    spec = vertical_spec(vertical_names()[0])
    generate(spec, tmp_path / "a.db", scale=0.2, seed=7)
    generate(spec, tmp_path / "b.db", scale=0.2, seed=7)
    generate(spec, tmp_path / "c.db", scale=0.2, seed=8)
    assert digest(tmp_path / "a.db") == digest(tmp_path / "b.db")
    assert digest(tmp_path / "a.db") != digest(tmp_path / "c.db")


def test_segment_shares_and_planted_cause(tmp_path: Path) -> None:
    spec = vertical_spec("personalized_product")
    path = tmp_path / "p.db"
    generate(spec, path, scale=1.0, seed=0)
    conn = sqlite3.connect(path)
    shares = dict(
        conn.execute(
            "SELECT segment, avg(1.0) * count(*) / (SELECT count(*) FROM customer) FROM customer GROUP BY segment"
        ).fetchall()
    )
    assert shares["trial"] == pytest.approx(0.35, abs=0.02) and shares["vip"] == pytest.approx(0.04, abs=0.02)
    low = conn.execute("SELECT count(*), sum(consultation_offered) FROM assessment WHERE score < 3.0").fetchone()
    assert low[0] > 0 and low[0] == low[1]
    assert conn.execute("SELECT note FROM product_launch WHERE launch_id = 100").fetchone()[0].startswith("in-app")


def test_broken_rule_is_reported_by_name(tmp_path: Path) -> None:
    text = (Path(__file__).resolve().parents[1] / "src/biarena/synth/verticals/personalized_product.yaml").read_text()
    broken = tmp_path / "broken.yaml"
    broken.write_text(text.replace('when: "score < 3.0"', 'when: "scor < 3.0"'), encoding="utf-8")
    with pytest.raises(FormatError, match="rule 'low_score_triggers_consultation'"):
        generate(load_spec(broken), tmp_path / "x.db", scale=0.05)
    assert_user_error(
        biarena("synth", "make", broken, "--scale", "0.05", "-o", tmp_path / "y.db"), "low_score_triggers_consultation"
    )


def test_verify_catches_tampering(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    assert biarena("synth", "make", "personalized_product", "--scale", "0.1", "-o", path).returncode == 0
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("UPDATE assessment SET consultation_offered = 0 WHERE score < 3.0")
        conn.execute("DELETE FROM city WHERE city_id = 1")
    conn.close()
    result = biarena("synth", "verify", path)
    assert result.returncode == 1
    assert "FAILED rule 'low_score_triggers_consultation'" in result.stderr
    assert "FAILED foreign key 'customer.city_id -> city.city_id'" in result.stderr
