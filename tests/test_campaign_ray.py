"""The Ray engine on a local Ray instance (loopback, 2 CPUs, a small object store), started once for the module:
the same campaign as the local engine's, and a server's connection limit held by the cluster's actor."""

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from biarena.campaign import run_campaign
from tests.campaign_helpers import DIE_MARK, canonical, make_campaign_plan, most_at_once

ray = pytest.importorskip("ray")

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def ray_instance(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A Ray instance whose workers import this checkout (the tests' Python systems among it); yields the file whose
    absence makes `dies_once` kill its worker."""
    before = os.environ.get("PYTHONPATH")
    paths = [str(ROOT / "src"), str(ROOT), before or ""]
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in paths if p)
    mark = tmp_path_factory.mktemp("ray") / "died"
    os.environ[DIE_MARK] = str(mark)
    try:
        ray.init(
            num_cpus=2,
            object_store_memory=100 * 1024 * 1024,
            include_dashboard=False,
            configure_logging=False,
            log_to_driver=False,
        )
        yield mark
    finally:
        ray.shutdown()
        os.environ.pop(DIE_MARK, None)
        if before is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = before


def test_a_campaign_on_ray_equals_the_serial_one(tmp_path: Path, ray_instance: Path) -> None:
    plan = make_campaign_plan(tmp_path, questions=3)
    serial = run_campaign(plan, tmp_path / "serial")
    on_ray = run_campaign(plan, tmp_path / "ray", engine="ray", workers=2)
    assert serial.now == on_ray.now == 8
    assert canonical(tmp_path / "ray") == canonical(tmp_path / "serial")
    again = run_campaign(plan, tmp_path / "ray", engine="ray")
    assert (again.now, again.before) == (0, 8)


def test_a_servers_connection_limit_holds_across_ray_workers(tmp_path: Path, ray_instance: Path) -> None:
    make_campaign_plan(tmp_path, questions=2)
    summary, requests, most = most_at_once(tmp_path, seeds="", engine="ray", workers=2)
    assert summary.now == 2 and requests >= 4
    assert most == 1


def test_a_ray_worker_killed_under_its_task_has_the_task_run_again(tmp_path: Path, ray_instance: Path) -> None:
    plan = make_campaign_plan(tmp_path, questions=2, systems=("dies_once",))
    summary = run_campaign(plan, tmp_path / "out", engine="ray")
    assert ray_instance.exists() and summary.now == 4
    lines = (tmp_path / "out" / "results.csv").read_text().splitlines()
    assert len(lines) == 1 + 2 * 2 * 4 and not any(",error," in line for line in lines)
