"""Every date agrees with the rows it points to: a check that reads only the data and the names of its columns (not
the spec's time rules), over every built-in vertical, on SQLite and partitioned Parquet; and the spec language's
lifetimes (`follows` and `until` at a time of the row's own, `not_before`) drawn, verified and named when broken."""

import re
import sqlite3
from pathlib import Path

import pytest

from biarena.synth import Spec, generate, verify, vertical_names, vertical_spec
from biarena.synth.reader import Output, open_output

SUITE_SCALE = 0.2
START_WORDS = (
    "joined",
    "hired",
    "opened",
    "launched",
    "created",
    "signup",
    "signed",
    "first_seen",
    "started",
    "starts",
)
"""A parent time column whose name holds one of these is the start of its life: a child's times are on or after it."""
END_WORDS = ("expires", "ends", "ended", "closed")
"""One whose name holds one of these is the end of its validity: a child's times are on or before it."""
EXEMPT = {
    ("luxury_consignment", "buyer.joined_on", "stylist.hired_on"): (
        "a buyer who joined before the stylist was hired is assigned to the stylist later: buyer.stylist_assigned_at "
        "is on or after both, and the check holds for it"
    ),
    ("car_rental", "payment.paid_on", "trip.starts_at"): "a trip is paid when it is booked, before it starts",
    ("car_rental", "refund.refunded_at", "trip.starts_at"): "a cancelled trip is refunded before it would have started",
    ("car_rental", "support_ticket.opened_at", "trip.starts_at"): "guests ask about pickup and billing before a trip",
    ("car_rental", "message.sent_at", "trip.starts_at"): "guests and hosts arrange the pickup before a trip starts",
    ("car_rental", "trip_promo.applied_on", "trip.starts_at"): "a promotion is applied when the trip is booked",
    ("freelancing", "payment.paid_at", "contract.ended_at"): (
        "contracts are paid for after the work ends (final invoices, released escrow)"
    ),
    ("user_analytics", "crm_contact.last_purchase_on", "advertiser.signed_on"): (
        "an advertiser's customer records hold purchases made before it signed with the platform"
    ),
    ("user_analytics", "crm_contact.last_purchase_on", "tracked_user.first_seen"): (
        "an advertiser's customer records hold purchases made before the platform first saw the user"
    ),
}
"""(vertical, child column, parent column) pairs the business allows out of order, each with its reason."""
DATED = re.compile(r"^\d{4}-\d{2}-\d{2}")


def role(column: str) -> str | None:
    """start, end or None, from the words of a column's name (a word begins the name or follows an underscore)."""
    if any(re.search(rf"(^|_){word}", column) for word in START_WORDS):
        return "start"
    if any(re.search(rf"(^|_){word}", column) for word in END_WORDS):
        return "end"
    return None


def time_columns(conn: Output, table: str) -> dict[str, bool]:
    """A table's columns that hold dates or timestamps, read from the data: name -> whether it is a timestamp."""
    if conn.format == "sqlite":
        names = [row[1] for row in conn.query(f'PRAGMA table_info("{table}")')]
    else:
        names = [row[0] for row in conn.query(f'DESCRIBE "{table}"')]
    out = {}
    for name in names:
        sample = [str(v) for (v,) in conn.query(f'SELECT "{name}" FROM "{table}" WHERE "{name}" IS NOT NULL LIMIT 50')]
        if sample and all(DATED.match(v) for v in sample):
            out[name] = any(len(v) > 10 for v in sample)
    return out


def out_of_order(path: Path) -> list[str]:
    """Every (child time, parent start or end) pair through a foreign key with rows out of order; ties allowed."""
    spec = vertical_spec(_vertical(path))
    found = []
    with open_output(path) as conn:
        times = {name: time_columns(conn, name) for name in spec.tables}
        for name, table in spec.tables.items():
            for key, column in table.columns.items():
                if column.kind != "foreign" or not column.ref:
                    continue
                parent, parent_key = column.ref.split(".")
                for bound, bound_stamp in times[parent].items():
                    kind = role(bound)
                    for child, child_stamp in times[name].items() if kind else []:
                        if (spec.name, f"{name}.{child}", f"{parent}.{bound}") in EXEMPT:
                            continue
                        # a timestamp against a timestamp compares moments; against a date, days
                        width = 19 if child_stamp and bound_stamp else 10
                        left = f'substr(CAST(c."{child}" AS VARCHAR), 1, {width})'
                        right = f'substr(CAST(p."{bound}" AS VARCHAR), 1, {width})'
                        broken = f"{left} < {right}" if kind == "start" else f"{left} > {right}"
                        sql = (
                            f'SELECT count(*) FROM "{name}" c JOIN "{parent}" p ON c."{key}" = p."{parent_key}" '
                            f"WHERE {broken}"
                        )
                        count = conn.query(sql)[0][0]
                        if count:
                            found.append(f"{spec.name}: {count} rows {name}.{child} vs {parent}.{bound} ({kind})")
    return found


def _vertical(path: Path) -> str:
    return path.name.split("-")[0]


def _build(tmp_path: Path, seed: int, fmt: str) -> list[Path]:
    paths = []
    for name in vertical_names():
        if fmt == "sqlite":
            path = tmp_path / f"{name}-{seed}.sqlite"
            generate(vertical_spec(name), path, scale=SUITE_SCALE, seed=seed)
        else:
            path = tmp_path / f"{name}-{seed}"
            generate(vertical_spec(name), path, scale=SUITE_SCALE, seed=seed, partitions=3, workers=1)
        paths.append(path)
    return paths


CI_RUNS = {(0, "sqlite"), (1, "parquet")}
"""The runs every test run checks; the rest of seeds 0-4 on both outputs are a sweep (`--extended`)."""


@pytest.mark.slow
@pytest.mark.parametrize(
    ("seed", "fmt"),
    [
        (seed, fmt) if (seed, fmt) in CI_RUNS else pytest.param(seed, fmt, marks=pytest.mark.sweep)
        for seed in range(5)
        for fmt in ("sqlite", "parquet")
    ],
)
def test_no_row_is_dated_outside_the_life_of_a_row_it_points_to(seed: int, fmt: str, tmp_path: Path) -> None:
    found = [problem for path in _build(tmp_path, seed, fmt) for problem in out_of_order(path)]
    assert not found, found


def test_the_exempt_pair_is_out_of_order_and_its_assignment_date_is_not(tmp_path: Path) -> None:
    # the exemption is needed (VIP buyers join before their stylist is hired) and the assignment date mends it
    path = tmp_path / "luxury_consignment-0.sqlite"
    generate(vertical_spec("luxury_consignment"), path, scale=SUITE_SCALE, seed=0)
    with sqlite3.connect(path) as conn:
        earlier, late_assignments = conn.execute(
            "SELECT sum(b.joined_on < s.hired_on), sum(b.stylist_assigned_at < s.hired_on OR "
            "substr(b.stylist_assigned_at, 1, 10) < b.joined_on) FROM buyer b JOIN stylist s USING (stylist_id)"
        ).fetchone()
        unassigned = conn.execute(
            "SELECT count(*) FROM buyer WHERE (stylist_id IS NULL) <> (stylist_assigned_at IS NULL)"
        ).fetchone()[0]
    conn.close()
    assert earlier > 0
    assert late_assignments == 0
    assert unassigned == 0


SPEC = """
name: promos
title: Promotions
description: Members redeem promotions at shops; a redemption is within the promotion's and the shop's lifetimes.
start: 2023-01-01
anchor: 2024-01-01 00:00:00
tables:
  shop:
    rows: 5
    scaled: false
    primary_key: shop_id
    columns: {shop_id: {kind: sequence}, opened_on: {kind: date, start: 2023-03-01, end: 2023-09-30}}
  promo:
    rows: 12
    scaled: false
    primary_key: promo_id
    columns:
      promo_id: {kind: sequence}
      launched_on: {kind: date, start: 2022-06-01, end: 2023-10-31}
      expires_on: {kind: date, start: 2023-02-01, end: 2024-06-30}
  member:
    rows: 300
    primary_key: member_id
    columns:
      member_id: {kind: sequence}
      joined_on: {kind: date, start: 2022-01-01, end: 2023-12-31}
      home_shop_id: {kind: foreign, ref: shop.shop_id, follows: opened_on, at: joined_on}
      shop_assigned_at: {kind: after, via: home_shop_id, of: opened_on, not_before: [joined_on], low: 0, high: 48}
  redemption:
    rows: 2000
    primary_key: redemption_id
    columns:
      redemption_id: {kind: sequence}
      member_id: {kind: foreign, ref: member.member_id}
      redeemed_at: {kind: after, via: member_id, of: joined_on, low: 1, high: 2000}
      promo_id: {kind: foreign, ref: promo.promo_id, follows: launched_on, until: expires_on, at: redeemed_at}
  voucher:
    rows: 300
    primary_key: voucher_id
    columns:
      voucher_id: {kind: sequence}
      promo_id: {kind: foreign, ref: promo.promo_id}
      redemption_id: {kind: foreign, ref: redemption.redemption_id, follows: redeemed_at, at: promo_id.expires_on}
  visit:
    rows: 400
    primary_key: visit_id
    columns:
      visit_id: {kind: sequence}
      started_at: {kind: timestamp}
      ended_at: {kind: after, of: started_at, low: 0.05, high: 2}
  scan:
    rows: 1500
    primary_key: scan_id
    columns:
      scan_id: {kind: sequence}
      visit_id: {kind: foreign, ref: visit.visit_id}
      scanned_at: {kind: after, via: visit_id, of: started_at, not_after: [visit_id.ended_at], low: 0, high: 1}
"""


def _spec(**changes: dict) -> Spec:
    import yaml

    data = yaml.safe_load(SPEC)
    for table, columns in changes.items():
        for column, update in columns.items():
            data["tables"][table]["columns"][column].update(update)
    return Spec.model_validate(data)


def test_a_key_chooses_a_parent_alive_at_a_time_of_its_own_row(tmp_path: Path) -> None:
    path = tmp_path / "promos.sqlite"
    generate(_spec(), path, scale=1.0, seed=2)
    checks = {c.name: c for c in verify(path) if c.kind == "timestamp order"}
    assert {"redemption.redeemed_at after promo.launched_on", "redemption.redeemed_at before promo.expires_on"} <= set(
        checks
    )
    assert "member.joined_on after shop.opened_on" in checks
    assert "member.shop_assigned_at after shop.opened_on and joined_on" in checks
    assert all(c.ok for c in checks.values()), [c for c in checks.values() if not c.ok]
    with sqlite3.connect(path) as conn:
        expired, early = conn.execute(
            "SELECT sum(substr(r.redeemed_at, 1, 10) > p.expires_on), sum(substr(r.redeemed_at, 1, 10) < "
            "p.launched_on) FROM redemption r JOIN promo p USING (promo_id)"
        ).fetchone()
        moved = conn.execute(
            "SELECT count(*) FROM member m JOIN shop s ON m.home_shop_id = s.shop_id WHERE m.joined_on < s.opened_on"
        ).fetchone()[0]
        promos = conn.execute("SELECT count(DISTINCT promo_id) FROM redemption").fetchone()[0]
    conn.close()
    assert (expired, early, moved) == (0, 0, 0)
    assert promos > 6  # a redemption picks among the promotions alive then, not always the same one
    assert not [c for c in verify(path) if not c.ok]


def test_partitioned_output_holds_the_rows_of_the_single_file(tmp_path: Path) -> None:
    spec = _spec()
    generate(spec, tmp_path / "one", scale=1.0, seed=4, fmt="parquet")
    generate(spec, tmp_path / "parts", scale=1.0, seed=4, partitions=3, workers=2)
    for table in ("member", "redemption"):
        with open_output(tmp_path / "one") as one, open_output(tmp_path / "parts") as parts:
            assert one.query(f'SELECT * FROM "{table}"') == parts.query(f'SELECT * FROM "{table}"')


def test_verification_names_the_pair_out_of_order(tmp_path: Path) -> None:
    path = tmp_path / "promos.sqlite"
    generate(_spec(), path, scale=1.0, seed=0)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE promo SET expires_on = '2023-01-15'")
    conn.close()
    failed = {c.name: c.detail for c in verify(path) if not c.ok}
    assert "redemption.redeemed_at before promo.expires_on" in failed
    assert failed["redemption.redeemed_at before promo.expires_on"].endswith("rows break it")


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"redemption": {"promo_id": {"at": "nowhere"}}}, "'at' must name another time column"),
        ({"redemption": {"promo_id": {"until": "promo_id"}}}, "promo.promo_id is no time column"),
        ({"redemption": {"member_id": {"at": "redeemed_at"}}}, "give 'follows' or 'until'"),
        ({"member": {"joined_on": {"not_before": ["home_shop_id.opened_on"]}}}, "belongs to an after column"),
        ({"member": {"shop_assigned_at": {"not_before": ["home_shop_id.nothing"]}}}, "is not reachable"),
    ],
)
def test_a_lifetime_that_cannot_hold_is_refused_in_one_line(changes: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        _spec(**changes)


def test_a_cause_row_without_its_key_gets_a_parent_alive_at_its_date(tmp_path: Path) -> None:
    # the three planted launches name their date and note; each gets a product launched by then
    path = tmp_path / "personalized_product.sqlite"
    generate(vertical_spec("personalized_product"), path, scale=SUITE_SCALE, seed=0)
    with sqlite3.connect(path) as conn:
        rows = conn.execute(
            "SELECT l.product_id, l.launch_date >= p.launched_on FROM product_launch l "
            "LEFT JOIN product p USING (product_id) WHERE l.launch_date IN ('2024-06-10', '2024-09-01', '2024-03-01')"
        ).fetchall()
    conn.close()
    assert len(rows) == 3
    assert all(product is not None and alive for product, alive in rows)


def test_a_row_no_parent_is_alive_at_moves_into_the_nearest_lifetime(tmp_path: Path) -> None:
    # every shop opens after every member joined: members move to their shop's opening day
    spec = _spec(member={"joined_on": {"start": "2022-01-01", "end": "2022-12-31"}})
    path = tmp_path / "moved.sqlite"
    generate(spec, path, scale=1.0, seed=1)
    with sqlite3.connect(path) as conn:
        early = conn.execute(
            "SELECT count(*) FROM member m JOIN shop s ON m.home_shop_id = s.shop_id WHERE m.joined_on < s.opened_on"
        ).fetchone()[0]
    conn.close()
    assert early == 0


def test_an_event_within_a_visit_lies_within_it(tmp_path: Path) -> None:
    # scans are drawn up to an hour after their visit started, and visits may end sooner
    path = tmp_path / "promos.sqlite"
    generate(_spec(), path, scale=1.0, seed=3)
    checks = {c.name: c for c in verify(path)}
    assert checks["scan.scanned_at before visit.ended_at"].ok
    with sqlite3.connect(path) as conn:
        after_end, before_start, squeezed = conn.execute(
            "SELECT sum(s.scanned_at > v.ended_at), sum(s.scanned_at < v.started_at), "
            "sum(strftime('%s', v.ended_at) - strftime('%s', v.started_at) < 3600) "
            "FROM scan s JOIN visit v USING (visit_id)"
        ).fetchone()
    conn.close()
    assert (after_end, before_start) == (0, 0)
    assert squeezed > 0  # the bound mattered: many scans belong to visits shorter than the lag


def test_a_key_chosen_at_a_time_through_another_key_draws_that_key_again_where_none_is_alive(tmp_path: Path) -> None:
    # promotions expiring in 2021 have no redemption yet: their vouchers go to other promotions
    path = tmp_path / "promos.sqlite"
    generate(_spec(promo={"expires_on": {"start": "2021-01-01"}}), path, scale=1.0, seed=5)
    checks = {c.name: c for c in verify(path) if c.kind == "timestamp order"}
    assert checks["voucher.promo_id.expires_on after redemption.redeemed_at"].ok
    with sqlite3.connect(path) as conn:
        stranded, early_promos, used = conn.execute(
            "SELECT (SELECT count(*) FROM voucher v JOIN promo p USING (promo_id) JOIN redemption r "
            "USING (redemption_id) WHERE substr(r.redeemed_at, 1, 10) > p.expires_on), "
            "(SELECT count(*) FROM promo WHERE expires_on < (SELECT min(substr(redeemed_at, 1, 10)) FROM redemption)), "
            "(SELECT count(*) FROM voucher v JOIN promo p USING (promo_id) WHERE p.expires_on < "
            "(SELECT min(substr(redeemed_at, 1, 10)) FROM redemption))"
        ).fetchone()
    conn.close()
    assert early_promos > 0 and used == 0
    assert stranded == 0
