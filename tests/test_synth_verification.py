"""The built-in verticals verify at the CORGI suite's scale for many seeds, within the false-alarm budget, and the
verifier still catches a planted event that did not happen and a child dated before its parent at that scale."""

import sqlite3
from pathlib import Path

import pytest
import yaml

from biarena.synth import Spec, generate, verify, vertical_names, vertical_spec
from biarena.synth.sampling import BUILD_FALSE_ALARM, EVENT_CHECKS, OTHER_CHECKS

SUITE_SCALE = 0.2
EVENTS = ("planted event", "propagated event")


CI_SEEDS = (0, 3)
"""Seeds every test run checks (3 once failed a ratio test); the rest of 0-19 are a sweep (`--extended`)."""


@pytest.mark.slow
@pytest.mark.parametrize(
    "seed", [s if s in CI_SEEDS else pytest.param(s, marks=pytest.mark.sweep) for s in range(20)]
)
def test_every_vertical_verifies_at_the_suite_scale(seed: int, tmp_path: Path) -> None:
    # what `suite corgi --scale 0.2 --seed N` generates and verifies before it writes questions
    checks = []
    for name in vertical_names():
        path = tmp_path / f"{name}.sqlite"
        generate(vertical_spec(name), path, scale=SUITE_SCALE, seed=seed)
        checks += [(name, check) for check in verify(path)]
    failed = [f"{name}: {c.kind} '{c.name}': {c.detail}" for name, c in checks if not c.ok]
    assert not failed, failed
    sampled = [c for _, c in checks if c.alpha is not None]
    assert sum(c.alpha or 0 for c in sampled) <= BUILD_FALSE_ALARM
    assert sum(c.kind in EVENTS for c in sampled) <= EVENT_CHECKS
    assert sum(c.kind not in EVENTS for c in sampled) <= OTHER_CHECKS


def without_events(spec: Spec, names: set[str]) -> Spec:
    """The spec with these planted events' factors set to 1: their causes are recorded, nothing happens."""
    planted = [p.model_copy(update={"factor": 1.0}) if p.name in names else p for p in spec.planted]
    return spec.model_copy(update={"planted": planted})


def restore_spec(path: Path, spec: Spec) -> None:
    """Make the database claim it was generated from `spec`, as a broken generator's output would."""
    with sqlite3.connect(path) as conn:
        record = yaml.safe_dump(spec.model_dump(mode="json"), sort_keys=False)
        conn.execute("UPDATE _biarena_synth SET value = ? WHERE key = 'spec'", (record,))
    conn.close()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("vertical", "event", "caught"),
    [
        ("app_store", "referral_installs_go_viral", ["referral_installs_go_viral"]),  # planted x3.0
        ("car_rental", "airport_pickups_drop", ["airport_pickups_drop"]),  # x0.5
        (
            "luxury_consignment",
            "handbag_consignment_surge",
            ["handbag_consignment_surge", "handbag_consignment_surge -> authentication"],  # x2.4, and x1.4 on it
        ),
        ("user_analytics", "ios_conversions_drop", ["ios_conversions_drop"]),  # x0.4
    ],
)
def test_an_event_that_did_not_happen_is_caught_at_the_suite_scale(
    vertical: str, event: str, caught: list[str], tmp_path: Path
) -> None:
    spec = vertical_spec(vertical)
    path = tmp_path / "broken.sqlite"
    generate(without_events(spec, {event}), path, scale=SUITE_SCALE, seed=0)
    restore_spec(path, spec)
    failed = {c.name for c in verify(path) if not c.ok}
    assert set(caught) <= failed
    assert all(name.split(" -> ")[0] == event for name in failed), failed


@pytest.mark.slow
def test_a_child_dated_before_its_parent_is_caught_at_the_suite_scale(tmp_path: Path) -> None:
    spec = vertical_spec("personalized_product")
    path = tmp_path / "p.sqlite"
    generate(spec, path, scale=SUITE_SCALE, seed=0)
    child, key, column = next(
        (name, key, column)
        for name, table in spec.tables.items()
        for key, column in table.columns.items()
        if column.follows and table.stamp
    )
    stamp = spec.tables[child].stamp
    with sqlite3.connect(path) as conn:
        conn.execute(f'UPDATE "{child}" SET "{stamp}" = \'2000-01-01 00:00:00\' WHERE rowid = 1')
    conn.close()
    parent = str(column.ref).split(".")[0]
    failed = {(c.kind, c.name) for c in verify(path) if not c.ok}
    assert ("timestamp order", f"{child}.{stamp} after {parent}.{column.follows}") in failed, (key, failed)
