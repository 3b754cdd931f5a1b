"""Sign-in in-process: failed sign-ins held back per client and per token prefix; one-use sign-in forms."""

import asyncio
import logging
import sqlite3
from collections.abc import Awaitable, Callable
from datetime import timedelta
from pathlib import Path

import pytest

from biarena.arena import store as store_module
from biarena.arena.app import create_app
from biarena.arena.client_address import client_address, trusted_networks
from biarena.arena.config import ArenaConfig
from biarena.arena.sign_in_limit import SignInLimit
from tests.arena_helpers import ArenaFixture, arena_client, csrf_of, error_message, invite, make_arena_runs, sign_in
from tests.conftest import make_sales_db
from tests.run_helpers import cli, one_line_error

WINDOW = 600


@pytest.fixture(scope="module")
def arena_runs(tmp_path_factory: pytest.TempPathFactory) -> ArenaFixture:
    root = tmp_path_factory.mktemp("arena")
    return make_arena_runs(root, make_sales_db(root / "sales.sqlite"), 3)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Callable[[float], None]:
    """Moves the arena store's clock forward by some seconds."""
    offset = [timedelta(0)]
    real = store_module._now
    monkeypatch.setattr(store_module, "_now", lambda: real() + offset[0])

    def advance(seconds: float) -> None:
        offset[0] += timedelta(seconds=seconds)

    return advance


def config(arena_runs: ArenaFixture, tmp_path: Path, **settings: object) -> ArenaConfig:
    settings.setdefault("bootstrap", 20)
    settings.setdefault("sign_in_failures", 3)
    settings.setdefault("sign_in_window", WINDOW)
    return ArenaConfig(db=tmp_path / "arena.sqlite", runs=arena_runs.runs, **settings)  # type: ignore[arg-type]


def run(body: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(body())


def wrong(number: int) -> str:
    """A wrong token whose first six characters differ from every other's."""
    return f"{number:03d}wrong-token-{'x' * 20}"


def from_address(address: str) -> dict[str, str]:
    return {"x-forwarded-for": address}


def refusals(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "biarena.arena" and r.levelno == logging.WARNING]


def failure_rows(db: Path) -> list[tuple[str, int]]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT key, failures FROM sign_in_failures ORDER BY id").fetchall()


def test_a_client_is_held_back_after_its_failures_even_with_a_good_token(
    arena_runs: ArenaFixture, tmp_path: Path, clock: Callable[[float], None], caplog: pytest.LogCaptureFixture
) -> None:
    cfg = config(arena_runs, tmp_path)
    token = invite(cfg.db, "ann")
    caplog.set_level(logging.WARNING, logger="biarena.arena")

    async def body() -> None:
        async with arena_client(cfg) as http:
            for number in range(3):
                response = await sign_in(http, wrong(number))
                assert response.status_code == 401 and "unknown invite token" in error_message(response)
                assert "retry-after" not in response.headers
            held = await sign_in(http, wrong(3))
            assert held.status_code == 429
            assert 1 <= int(held.headers["retry-after"]) <= WINDOW
            message = error_message(held)
            assert message.startswith("too many failed sign-ins from your address; try again in 10 minutes (after ")
            assert message.endswith(" UTC)")
            good = await sign_in(http, token)
            assert good.status_code == 429 and "too many failed sign-ins" in error_message(good)
            assert "biarena_session" not in http.cookies
            clock(WINDOW + 1)
            later = await sign_in(http, token)
            assert later.status_code == 303 and later.headers["location"] == "/compare"

    run(body)
    logged = refusals(caplog)
    assert len(logged) == 2
    for line in logged:
        assert "sign-in refused for client 127.0.0.1: 3 failed sign-ins from this client" in line
        assert token not in line and token[:6] not in line
        assert not any(wrong(n)[:6] in line for n in range(4))


def test_a_good_sign_in_clears_the_clients_count(arena_runs: ArenaFixture, tmp_path: Path) -> None:
    cfg = config(arena_runs, tmp_path)
    token = invite(cfg.db, "ann")

    async def body() -> None:
        async with arena_client(cfg) as http:
            assert [(await sign_in(http, wrong(n))).status_code for n in range(2)] == [401, 401]
            assert (await sign_in(http, token)).status_code == 303
            # Without the reset this client would be at 3 failures and the next attempt held back.
            assert [(await sign_in(http, wrong(n))).status_code for n in range(2, 5)] == [401, 401, 401]
            assert (await sign_in(http, wrong(5))).status_code == 429

    run(body)


def test_one_token_prefix_is_held_back_across_addresses(
    arena_runs: ArenaFixture, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cfg = config(arena_runs, tmp_path, trusted_proxies=("127.0.0.1",))
    token, other = invite(cfg.db, "ann"), invite(cfg.db, "bob")
    caplog.set_level(logging.WARNING, logger="biarena.arena")

    async def body() -> None:
        async with arena_client(cfg) as http:
            for number in range(3):
                guess = token[:6] + f"guess-{number}"
                response = await sign_in(http, guess, from_address(f"203.0.113.{number}"))
                assert response.status_code == 401
            held = await sign_in(http, token[:6] + "guess-3", from_address("203.0.113.9"))
            assert held.status_code == 429 and int(held.headers["retry-after"]) >= 1
            assert "too many failed sign-ins with this invite token; try again in" in error_message(held)
            assert (await sign_in(http, token, from_address("203.0.113.10"))).status_code == 429
            assert (await sign_in(http, wrong(0), from_address("203.0.113.11"))).status_code == 401
            assert (await sign_in(http, other, from_address("203.0.113.12"))).status_code == 303

    run(body)
    logged = refusals(caplog)
    assert len(logged) == 2
    assert "client 203.0.113.9: 3 failed sign-ins with this token's first characters" in logged[0]
    assert "client 203.0.113.10:" in logged[1]
    assert all(token[:6] not in line for line in logged)


def test_forwarded_for_is_ignored_unless_the_proxy_is_trusted(
    arena_runs: ArenaFixture, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cfg = config(arena_runs, tmp_path)
    caplog.set_level(logging.WARNING, logger="biarena.arena")

    async def body() -> None:
        async with arena_client(cfg) as http:
            statuses = [(await sign_in(http, wrong(n), from_address(f"198.51.100.{n}"))).status_code for n in range(4)]
            assert statuses == [401, 401, 401, 429]

    run(body)
    assert "client 127.0.0.1:" in refusals(caplog)[0]


def test_good_sign_ins_from_one_address_are_never_held_back(arena_runs: ArenaFixture, tmp_path: Path) -> None:
    cfg = config(arena_runs, tmp_path, sign_in_failures=2)
    tokens = [invite(cfg.db, f"annotator {n}") for n in range(12)]
    app = create_app(cfg)

    async def one(token: str) -> int:
        async with arena_client(app) as http:
            return (await sign_in(http, token)).status_code

    async def body() -> None:
        assert await asyncio.gather(*(one(token) for token in tokens)) == [303] * len(tokens)
        assert failure_rows(cfg.db) == []

    run(body)


def test_guesses_sent_together_cannot_pass_the_limit_together(arena_runs: ArenaFixture, tmp_path: Path) -> None:
    cfg = config(arena_runs, tmp_path, sign_in_failures=5)
    app = create_app(cfg)

    async def body() -> None:
        clients = [arena_client(app) for _ in range(20)]
        forms = [await http.get("/login") for http in clients]
        responses = await asyncio.gather(
            *(
                http.post("/login", data={"token": wrong(n), "csrf": csrf_of(form.text)})
                for n, (http, form) in enumerate(zip(clients, forms, strict=True))
            )
        )
        for http in clients:
            await http.aclose()
        statuses = sorted(r.status_code for r in responses)
        assert statuses == [401] * 5 + [429] * 15

    run(body)


def test_failure_counts_expire_with_their_window(
    arena_runs: ArenaFixture, tmp_path: Path, clock: Callable[[float], None]
) -> None:
    cfg = config(arena_runs, tmp_path)

    async def body() -> None:
        async with arena_client(cfg) as http:
            for number in range(2):
                await sign_in(http, wrong(number))
            rows = failure_rows(cfg.db)
            assert len(rows) == 3 and rows[0] == ("client:127.0.0.1", 2)  # the client and two token prefixes
            assert all(wrong(n)[:6] not in key for key, _ in rows for n in range(2))
            clock(WINDOW + 1)
            await sign_in(http, wrong(2))
            (client, client_count), (prefix, prefix_count) = failure_rows(cfg.db)
            assert (client, client_count, prefix_count) == ("client:127.0.0.1", 1, 1) and prefix.startswith("token:")

    run(body)


def test_a_sign_in_form_works_once(arena_runs: ArenaFixture, tmp_path: Path) -> None:
    cfg = config(arena_runs, tmp_path)
    token = invite(cfg.db, "ann")

    async def body() -> None:
        async with arena_client(cfg) as http:
            form = await http.get("/login")
            pair = {"cookie": http.cookies["biarena_login"], "csrf": csrf_of(form.text)}
            failed = await http.post("/login", data={"token": wrong(0), "csrf": pair["csrf"]})
            assert failed.status_code == 401
            again = await http.post("/login", data={"token": token, "csrf": pair["csrf"]})
            assert again.status_code == 403 and "security token" in error_message(again)

            form = await http.get("/login")
            pair = {"cookie": http.cookies["biarena_login"], "csrf": csrf_of(form.text)}
            signed = await http.post("/login", data={"token": token, "csrf": pair["csrf"]})
            assert signed.status_code == 303
        async with arena_client(cfg) as http:
            http.cookies.set("biarena_login", pair["cookie"])
            replayed = await http.post("/login", data={"token": token, "csrf": pair["csrf"]})
            assert replayed.status_code == 403 and "biarena_session" not in http.cookies

    run(body)


def test_a_sign_in_form_the_server_never_issued_is_refused(arena_runs: ArenaFixture, tmp_path: Path) -> None:
    cfg = config(arena_runs, tmp_path)
    attacker = invite(cfg.db, "mallory")

    async def body() -> None:
        async with arena_client(cfg) as http:
            # Login CSRF: another site's page posts the attacker's token with a cookie and field it chose.
            for name in ("biarena_login", "biarena_login_csrf"):
                http.cookies.clear()
                http.cookies.set(name, "chosen-by-the-attacker")
                forged = await http.post("/login", data={"token": attacker, "csrf": "chosen-by-the-attacker"})
                assert forged.status_code == 403 and "security token" in error_message(forged)
                assert "biarena_session" not in http.cookies
            # Two forms the server did issue, but the field of one with the cookie of the other.
            http.cookies.clear()
            first = csrf_of((await http.get("/login")).text)
            await http.get("/login")
            mixed = await http.post("/login", data={"token": attacker, "csrf": first})
            assert mixed.status_code == 403
            # A form of this site posted from another: the browser says so.
            form = await http.get("/login")
            cross = await http.post(
                "/login", data={"token": attacker, "csrf": csrf_of(form.text)}, headers={"sec-fetch-site": "cross-site"}
            )
            assert cross.status_code == 403 and "biarena_session" not in http.cookies
            # The same form from this site's own page signs in.
            form = await http.get("/login")
            own = await http.post(
                "/login", data={"token": attacker, "csrf": csrf_of(form.text)},
                headers={"sec-fetch-site": "same-origin"},
            )
            assert own.status_code == 303 and "biarena_session" in http.cookies

    run(body)


def test_an_expired_sign_in_form_is_refused_and_cleaned_up(
    arena_runs: ArenaFixture, tmp_path: Path, clock: Callable[[float], None]
) -> None:
    cfg = config(arena_runs, tmp_path, login_form_seconds=60)
    token = invite(cfg.db, "ann")

    def forms() -> int:
        with sqlite3.connect(cfg.db) as conn:
            return conn.execute("SELECT count(*) FROM login_forms").fetchone()[0]

    async def body() -> None:
        async with arena_client(cfg) as http:
            for _ in range(3):
                form = await http.get("/login")
            assert forms() == 3
            clock(61)
            late = await http.post("/login", data={"token": token, "csrf": csrf_of(form.text)})
            assert late.status_code == 403 and "out of date" in error_message(late)
            assert forms() == 2  # the one used; the two left are dropped by the next form
            assert (await sign_in(http, token)).status_code == 303
            assert forms() == 0

    run(body)


def test_the_sign_in_form_cookie_and_what_the_store_keeps(arena_runs: ArenaFixture, tmp_path: Path) -> None:
    cfg = config(arena_runs, tmp_path)

    async def body() -> None:
        async with arena_client(cfg) as http:
            form = await http.get("/login")
            cookie = form.headers["set-cookie"].lower()
            assert cookie.startswith("biarena_login=")
            assert "httponly" in cookie and "samesite=strict" in cookie and "max-age=3600" in cookie
            form_id, csrf = http.cookies["biarena_login"], csrf_of(form.text)
            with sqlite3.connect(cfg.db) as conn:
                stored = conn.execute("SELECT id_hash, csrf_hash, expires_at FROM login_forms").fetchall()
            assert len(stored) == 1 and form_id not in stored[0] and csrf not in stored[0]
            assert form_id not in cfg.db.read_bytes().decode("latin-1") + _wal(cfg.db)
            assert csrf not in cfg.db.read_bytes().decode("latin-1") + _wal(cfg.db)

    run(body)


def _wal(db: Path) -> str:
    wal = db.with_name(db.name + "-wal")
    return wal.read_bytes().decode("latin-1") if wal.exists() else ""


def test_the_one_error_shape_for_refused_sign_ins(arena_runs: ArenaFixture, tmp_path: Path) -> None:
    cfg = config(arena_runs, tmp_path, sign_in_failures=1)

    async def body() -> None:
        async with arena_client(cfg) as http:
            shapes = []
            for response in (
                await http.post("/login", data={"token": "x", "csrf": "y"}),
                await sign_in(http, wrong(0)),
                await sign_in(http, wrong(1)),
            ):
                assert response.headers["content-type"].startswith("text/html")
                shapes.append((response.status_code, error_message(response).split(";")[0]))
            assert shapes == [
                (403, "the form's security token is missing or out of date"),
                (401, "unknown invite token"),
                (429, "too many failed sign-ins from your address"),
            ]

    run(body)



def test_the_client_behind_trusted_proxies_and_its_key() -> None:
    proxies = trusted_networks(["10.0.0.0/8", "127.0.0.1"])
    assert client_address("203.0.113.5", ["198.51.100.1"], ()) == "203.0.113.5"  # no trusted proxy: ignored
    assert client_address("203.0.113.5", ["198.51.100.1"], proxies) == "203.0.113.5"  # peer not trusted
    assert client_address("127.0.0.1", ["198.51.100.1"], proxies) == "198.51.100.1"
    # The client can write anything left of what the proxies appended: the nearest untrusted hop counts.
    assert client_address("127.0.0.1", ["1.2.3.4, 198.51.100.1", "10.1.2.3"], proxies) == "198.51.100.1"
    assert client_address("127.0.0.1", ["10.1.2.3"], proxies) == "10.1.2.3"
    assert client_address("127.0.0.1", ["not-an-address"], proxies) == "127.0.0.1"
    assert client_address(None, [], ()) == "unknown"
    limit = SignInLimit()
    assert limit.keys("2001:db8:1:2:aaaa::1", "")[0][1] == "client:2001:db8:1:2::/64"
    assert limit.keys("2001:db8:1:2:bbbb::9", "")[0][1] == "client:2001:db8:1:2::/64"
    assert limit.keys("::ffff:192.0.2.7", "")[0][1] == "client:192.0.2.7"
    (_, client), (kind, prefix) = limit.keys("192.0.2.7", "abcdefGHIJKL")
    assert client == "client:192.0.2.7" and kind == "token" and "abcdef" not in prefix
    assert limit.keys("192.0.2.7", "abcdefZZZZ")[1] == (kind, prefix)


def test_a_bad_trusted_proxy_is_one_line(tmp_path: Path) -> None:
    runs = [tmp_path / "a.run", tmp_path / "b.run"]
    result = cli("arena", "serve", "--runs", *runs, "--db", tmp_path / "arena.sqlite", "--trusted-proxy", "proxy1")
    one_line_error(result, "trusted proxy 'proxy1' is not an IP address or network")
