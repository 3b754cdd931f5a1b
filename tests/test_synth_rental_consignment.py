"""The car rental and luxury consignment verticals hang together through their keys, as an analyst would check
with SQL: a trip's host owns its car, claims pay the damage above the plan's deductible, an item keeps its
consignment's consignor and category, a consignor is paid the sale price less the commission."""

import sqlite3
from pathlib import Path

import pytest

from biarena.synth import generate, verify, vertical_spec


def _database(tmp_path_factory: pytest.TempPathFactory, name: str) -> sqlite3.Connection:
    path = Path(tmp_path_factory.mktemp(name)) / f"{name}.db"
    generate(vertical_spec(name), path, scale=0.05, seed=2)
    assert [c for c in verify(path) if not c.ok] == []
    return sqlite3.connect(path)


@pytest.fixture(scope="module")
def rental(tmp_path_factory: pytest.TempPathFactory) -> sqlite3.Connection:
    return _database(tmp_path_factory, "car_rental")


@pytest.fixture(scope="module")
def consignment(tmp_path_factory: pytest.TempPathFactory) -> sqlite3.Connection:
    return _database(tmp_path_factory, "luxury_consignment")


def count(conn: sqlite3.Connection, sql: str) -> int:
    return conn.execute(sql).fetchone()[0]


@pytest.mark.parametrize(
    "broken",
    [
        # a trip's host owns its car, the car is in the trip's market and was listed before the booking
        "SELECT count(*) FROM trip t JOIN vehicle v USING (vehicle_id) WHERE t.host_id <> v.host_id "
        "OR t.market_id <> v.market_id OR t.booked_at < v.listed_at",
        # airport pickups, and only they, name an airport of the trip's market where pickups are allowed
        "SELECT count(*) FROM trip t LEFT JOIN airport a ON a.airport_id = t.pickup_airport_id "
        "WHERE (t.pickup_type = 'airport') <> (a.airport_id IS NOT NULL) OR a.market_id <> t.market_id "
        "OR a.pickup_allowed <> 1",
        # a market's state is its city's
        "SELECT count(*) FROM market WHERE (city, state) NOT IN (VALUES ('Los Angeles', 'CA'), ('Miami', 'FL'), "
        "('Las Vegas', 'NV'), ('Denver', 'CO'), ('Orlando', 'FL'), ('Phoenix', 'AZ'), ('Atlanta', 'GA'), "
        "('Seattle', 'WA'), ('Dallas', 'TX'), ('Honolulu', 'HI'))",
        # money and ratings follow the trip's own guest and host
        "SELECT count(*) FROM payment p JOIN trip t USING (trip_id) WHERE p.guest_id <> t.guest_id "
        "OR p.market_id <> t.market_id",
        "SELECT count(*) FROM payout p JOIN trip t USING (trip_id) WHERE p.host_id <> t.host_id "
        "OR t.status <> 'completed'",
        "SELECT count(*) FROM host_rating r JOIN trip t USING (trip_id) WHERE r.guest_id <> t.guest_id "
        "OR r.host_id <> t.host_id OR r.vehicle_id <> t.vehicle_id OR r.rated_at < t.booked_at",
        "SELECT count(*) FROM refund r JOIN payment p USING (payment_id) JOIN trip t ON t.trip_id = r.trip_id "
        "WHERE r.trip_id <> p.trip_id OR r.refunded_at < p.paid_on "
        "OR (r.reason = 'host_cancelled') <> (r.host_id IS NOT NULL) OR r.host_id <> t.host_id",
        # claims: only completed trips with protection, paid above the plan's deductible when approved
        "SELECT count(*) FROM insurance_claim c JOIN trip t USING (trip_id) JOIN protection_plan p "
        "ON p.plan_id = c.plan_id WHERE p.name = 'decline' OR t.plan_id <> c.plan_id OR t.status <> 'completed' "
        "OR c.vehicle_id <> t.vehicle_id OR c.deductible <> p.deductible OR abs(c.paid_amount - CASE WHEN "
        "c.status = 'approved' AND c.amount > p.deductible THEN c.amount - p.deductible ELSE 0 END) > 0.01",
        # a ticket about a trip was opened by its guest, after the booking
        "SELECT count(*) FROM support_ticket s JOIN trip t USING (trip_id) WHERE s.user_id <> t.guest_id "
        "OR s.opened_at < t.booked_at",
        "SELECT count(*) FROM delivery d JOIN trip t USING (trip_id) WHERE t.pickup_type <> 'delivery' "
        "OR d.host_id <> t.host_id OR d.handed_over_at < t.starts_at",
    ],
)
def test_car_rental_keys_agree(rental: sqlite3.Connection, broken: str) -> None:
    assert count(rental, broken) == 0


@pytest.mark.parametrize(
    "broken",
    [
        # catalog order fixes the category ids the planted causes name
        "SELECT count(*) FROM category WHERE name <> CASE category_id WHEN 1 THEN 'handbags' WHEN 2 THEN "
        "'jewelry' WHEN 3 THEN 'watches' WHEN 4 THEN 'clothing' WHEN 5 THEN 'shoes' ELSE 'art' END",
        "SELECT count(*) FROM brand b JOIN category c USING (category_id) WHERE b.name = 'Rolex' "
        "AND c.name <> 'watches'",
        # an item keeps its consignment's consignor and category, and its subcategory is of that category
        "SELECT count(*) FROM item i JOIN consignment c USING (consignment_id) JOIN category k "
        "ON k.category_id = i.category_id JOIN subcategory s ON s.subcategory_id = i.subcategory_id "
        "WHERE i.consignor_id <> c.consignor_id OR k.name <> c.category OR s.category_id <> i.category_id",
        # listings show the item's catalog facts and follow its arrival; only authentic items are listed
        "SELECT count(*) FROM listing l JOIN item i USING (item_id) WHERE l.consignor_id <> i.consignor_id "
        "OR l.brand_id <> i.brand_id OR l.category_id <> i.category_id OR l.grade_id <> i.grade_id "
        "OR l.listed_at < i.received_at OR i.authentication_result <> 'authentic'",
        # a sale is of the listed item, its category drives the commission; the consignor gets the rest
        "SELECT count(*) FROM sale s JOIN listing l USING (listing_id) JOIN category k "
        "ON k.category_id = s.category_id WHERE s.item_id <> l.item_id OR s.consignor_id <> l.consignor_id "
        "OR s.category <> k.name OR s.sold_at < l.listed_at",
        "SELECT count(*) FROM consignor_payout p JOIN sale s USING (sale_id) WHERE p.consignor_id <> s.consignor_id "
        "OR abs(p.amount - (s.sale_price - s.commission)) > 0.01",
        # stylists assist store sales only, hired before the sale; VIP buyers, and only they, have one
        "SELECT count(*) FROM sale s LEFT JOIN stylist t USING (stylist_id) WHERE (s.channel = 'store') "
        "<> (s.stylist_id IS NOT NULL) OR s.sold_at < t.hired_on",
        "SELECT count(*) FROM buyer WHERE (segment = 'vip') <> (stylist_id IS NOT NULL)",
        # promotions target their campaign's category and apply only to sales in it
        "SELECT count(*) FROM sale_promotion sp JOIN promotion p USING (promotion_id) JOIN sale s "
        "ON s.sale_id = sp.sale_id JOIN marketing_campaign m ON m.campaign_id = p.campaign_id "
        "WHERE s.category_id <> p.category_id OR p.category_id <> m.category_id OR p.starts_at < m.launched_on",
        # authenticators work after the item arrived
        "SELECT count(*) FROM authentication a JOIN item i USING (item_id) WHERE a.done_at < i.received_at",
    ],
)
def test_luxury_consignment_keys_agree(consignment: sqlite3.Connection, broken: str) -> None:
    assert count(consignment, broken) == 0


def test_specialists_take_most_of_their_category(consignment: sqlite3.Connection) -> None:
    specialist = "JOIN authenticator t USING (authenticator_id)"
    share = f"SELECT avg(a.category_id = t.category_id) FROM authentication a {specialist}"
    brands = "SELECT avg(i.category_id = b.category_id) FROM item i JOIN brand b USING (brand_id)"
    assert count(consignment, "SELECT count(*) FROM authentication") > 1000
    assert consignment.execute(share).fetchone()[0] > 0.85
    assert consignment.execute(brands).fetchone()[0] > 0.7
