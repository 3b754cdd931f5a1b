"""The arena's routes in-process (httpx ASGI transport): sign-in, CSRF, blind votes, caps, uploads, exports."""

import asyncio
import csv
import html
import io
import json
import re
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx
import pytest

from biarena.arena.app import number
from biarena.arena.config import ArenaConfig
from biarena.arena.store import ArenaStore
from biarena.runner import RunStore
from biarena.votes.vote_file import load_votes
from tests.arena_helpers import (
    IDENTIFYING,
    ArenaFixture,
    arena_client,
    comparison_of,
    csrf_of,
    error_message,
    invite,
    make_arena_runs,
    sign_in,
)
from tests.conftest import make_sales_db
from tests.run_helpers import cli, make_shop, one_line_error

QUESTIONS = 10


@pytest.fixture(scope="module")
def arena_runs(tmp_path_factory: pytest.TempPathFactory) -> ArenaFixture:
    root = tmp_path_factory.mktemp("arena")
    return make_arena_runs(root, make_sales_db(root / "sales.sqlite"), QUESTIONS)


def config(arena_runs: ArenaFixture, tmp_path: Path, **settings: object) -> ArenaConfig:
    settings.setdefault("bootstrap", 20)
    return ArenaConfig(db=tmp_path / "arena.sqlite", runs=arena_runs.runs, **settings)  # type: ignore[arg-type]


def run(body: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(body())


async def vote_once(http: httpx.AsyncClient, choice: str = "left", rationale: str = "") -> tuple[httpx.Response, str]:
    page = await http.get("/compare")
    assert page.status_code == 200, page.text
    token = comparison_of(page.text)
    response = await http.post(
        "/vote", data={"comparison": token, "choice": choice, "rationale": rationale, "csrf": csrf_of(page.text)}
    )
    return response, token


def stored_votes(db: Path) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT user_id, question_id, system_lo, system_hi, choice FROM votes").fetchall()


def test_every_route_needs_a_session(arena_runs: ArenaFixture, tmp_path: Path) -> None:
    async def body() -> None:
        async with arena_client(config(arena_runs, tmp_path)) as http:
            for path in ("/compare", "/leaderboard", "/submit", "/admin", "/export/votes.jsonl", "/reveal/x", "/"):
                response = await http.get(path)
                assert response.status_code == 303 and response.headers["location"] == "/login", path
            for path in ("/vote", "/submit", "/admin/invite", "/logout"):
                response = await http.post(path, data={"csrf": "x"})
                assert response.status_code == 401, path
                assert "sign in first" in error_message(response)
            wrong = await sign_in(http, "not-a-token")
            assert wrong.status_code == 401 and "unknown invite token" in error_message(wrong)
            assert "biarena_session" not in http.cookies

    run(body)


def test_roles_limit_what_a_session_may_do(arena_runs: ArenaFixture, tmp_path: Path) -> None:
    cfg = config(arena_runs, tmp_path)
    annotator, submitter = invite(cfg.db, "ann"), invite(cfg.db, "sam", "submitter")

    async def body() -> None:
        async with arena_client(cfg) as http:
            await sign_in(http, annotator)
            for path in ("/admin", "/export/votes.csv", "/submit"):
                response = await http.get(path)
                assert response.status_code == 403 and "may not do this" in error_message(response), path
        async with arena_client(cfg) as http:
            signed = await sign_in(http, submitter)
            assert signed.headers["location"] == "/leaderboard"
            assert (await http.get("/compare")).status_code == 403
            assert (await http.get("/submit")).status_code == 200

    run(body)


def test_session_cookie_is_httponly_and_samesite(arena_runs: ArenaFixture, tmp_path: Path) -> None:
    cfg = config(arena_runs, tmp_path)
    token = invite(cfg.db, "ann")

    async def body() -> None:
        async with arena_client(cfg) as http:
            form = await http.get("/login")
            login_cookie = form.headers["set-cookie"].lower()
            assert "httponly" in login_cookie and "samesite=strict" in login_cookie
            signed = await sign_in(http, token)
            assert signed.status_code == 303 and signed.headers["location"] == "/compare"
            session = next(c for c in signed.headers.get_list("set-cookie") if c.startswith("biarena_session="))
            assert "httponly" in session.lower() and "samesite=lax" in session.lower()
            assert "default-src 'self'" in signed.headers["content-security-policy"]
            page = await http.get("/compare")
            await http.post("/logout", data={"csrf": csrf_of(page.text)})
            assert (await http.get("/compare")).status_code == 303

    run(body)


def test_forms_without_the_right_csrf_token_are_refused(arena_runs: ArenaFixture, tmp_path: Path) -> None:
    cfg = config(arena_runs, tmp_path)
    token, admin = invite(cfg.db, "ann"), invite(cfg.db, "root", "admin")

    async def body() -> None:
        async with arena_client(cfg) as http:
            form = await http.get("/login")
            refused = await http.post("/login", data={"token": token, "csrf": "forged"})
            assert refused.status_code == 403 and "security token" in error_message(refused)
            http.cookies.clear()
            refused = await http.post("/login", data={"token": token, "csrf": csrf_of(form.text)})
            assert refused.status_code == 403  # the token in the form without its cookie
            await sign_in(http, token)
            page = await http.get("/compare")
            comparison = comparison_of(page.text)
            for forged in ({}, {"csrf": ""}, {"csrf": csrf_of(page.text) + "x"}):
                response = await http.post("/vote", data={"comparison": comparison, "choice": "left", **forged})
                assert response.status_code == 403 and "security token" in error_message(response)
            assert stored_votes(cfg.db) == []
        async with arena_client(cfg) as http:
            await sign_in(http, admin)
            response = await http.post("/admin/invite", data={"name": "eve", "role": "admin", "csrf": "nope"})
            assert response.status_code == 403
            response = await http.post(
                "/submit", data={"name": "x", "csrf": "nope"}, files={"run": ("x.run", b"data")}
            )
            assert response.status_code == 403
        with ArenaStore(cfg.db) as store:
            assert [u.name for u in store.users()] == ["ann", "root"]

    run(body)


def test_names_are_absent_before_the_vote_and_shown_after(arena_runs: ArenaFixture, tmp_path: Path) -> None:
    cfg = config(arena_runs, tmp_path)
    token = invite(cfg.db, "ann")

    def assert_blind(response: httpx.Response, where: str) -> None:
        seen = response.text + json.dumps(dict(response.headers)) + str(response.request.url)
        for word in IDENTIFYING:
            assert word.lower() not in seen.lower(), (where, word)

    async def body() -> None:
        async with arena_client(cfg) as http:
            for path in ("/login", "/static/arena.css", "/static/arena.js"):
                assert_blind(await http.get(path), path)
            assert_blind(await sign_in(http, token), "sign-in")
            for _ in range(6):
                page = await http.get("/compare")
                assert_blind(page, "compare")
                assert "<script>alert" not in page.text
                comparison = comparison_of(page.text)
                voted = await http.post(
                    "/vote", data={"comparison": comparison, "choice": "tie", "csrf": csrf_of(page.text)}
                )
                assert voted.status_code == 303 and voted.headers["location"] == f"/reveal/{comparison}"
                assert_blind(voted, "vote")
                shown = await http.get(voted.headers["location"])
                names = re.findall(r'<td class="system" id="system-[ab]">(.*?)</td>', shown.text)
                assert len(names) == 2 and names[0] != names[1]

    run(body)


def test_a_blind_page_hides_model_names_written_in_the_answer(arena_runs: ArenaFixture, tmp_path: Path) -> None:
    cfg = config(arena_runs, tmp_path, seed=3)
    token = invite(cfg.db, "ann")

    async def body() -> None:
        async with arena_client(cfg) as http:
            await sign_in(http, token)
            seen_chatty = False
            for _ in range(QUESTIONS * 3):
                page = await http.get("/compare")
                if "Nothing left" in page.text:
                    break
                if "totals by city" in page.text:  # the chatty system's step
                    seen_chatty = True
                    assert "As <strong>[hidden]</strong>, a model by [hidden]" in page.text
                    assert "[hidden] recommends" in page.text
                    assert "&lt;script&gt;alert('x')&lt;/script&gt;" in page.text
                response, _ = await vote_once(http)
                assert response.status_code == 303
            assert seen_chatty

    run(body)


def test_one_vote_per_pair_and_every_pair_once(arena_runs: ArenaFixture, tmp_path: Path) -> None:
    cfg = config(arena_runs, tmp_path, seed=5)
    token = invite(cfg.db, "ann")

    async def body() -> None:
        async with arena_client(cfg) as http:
            await sign_in(http, token)
            first, comparison = await vote_once(http)
            assert first.status_code == 303
            page = await http.get("/compare")
            again = await http.post(
                "/vote", data={"comparison": comparison, "choice": "right", "csrf": csrf_of(page.text)}
            )
            assert again.status_code == 409 and "already voted" in error_message(again)
            for _ in range(QUESTIONS * 3 - 1):
                response, _ = await vote_once(http)
                assert response.status_code == 303
            done = await http.get("/compare")
            assert done.status_code == 200 and "Nothing left to compare" in done.text
        votes = stored_votes(cfg.db)
        assert len(votes) == QUESTIONS * 3
        assert len({(q, lo, hi) for _, q, lo, hi, _ in votes}) == QUESTIONS * 3

    run(body)


def test_a_reload_shows_the_same_comparison(arena_runs: ArenaFixture, tmp_path: Path) -> None:
    cfg = config(arena_runs, tmp_path)
    token = invite(cfg.db, "ann")

    async def body() -> None:
        async with arena_client(cfg) as http:
            await sign_in(http, token)
            first = comparison_of((await http.get("/compare")).text)
            assert comparison_of((await http.get("/compare")).text) == first

    run(body)


def test_another_annotators_comparison_cannot_be_voted_or_revealed(arena_runs: ArenaFixture, tmp_path: Path) -> None:
    cfg = config(arena_runs, tmp_path)
    ann, bob = invite(cfg.db, "ann"), invite(cfg.db, "bob")

    async def body() -> None:
        async with arena_client(cfg) as first, arena_client(cfg) as second:
            await sign_in(first, ann)
            await sign_in(second, bob)
            theirs = comparison_of((await first.get("/compare")).text)
            page = await second.get("/compare")
            form = {"comparison": theirs, "choice": "left", "csrf": csrf_of(page.text)}
            response = await second.post("/vote", data=form)
            assert response.status_code == 404
            assert (await second.get(f"/reveal/{theirs}")).status_code == 404
            assert (await first.get(f"/reveal/{theirs}")).status_code == 404  # not voted yet: still blind

    run(body)


def test_daily_cap(arena_runs: ArenaFixture, tmp_path: Path) -> None:
    cfg = config(arena_runs, tmp_path, daily_cap=3)
    token = invite(cfg.db, "ann")

    async def body() -> None:
        async with arena_client(cfg) as http:
            await sign_in(http, token)
            for _ in range(3):
                response, _ = await vote_once(http)
                assert response.status_code == 303
            capped = await http.get("/compare")
            assert capped.status_code == 429 and "today's limit of 3 votes" in error_message(capped)
        with ArenaStore(cfg.db) as store:
            user = store.users()[0]
            comparison = store.new_comparison(user.id, "shop", "q0009", "gold", "Chatty Analyst")
        async with arena_client(cfg) as http:
            await sign_in(http, token)
            page = await http.get("/leaderboard")
            response = await http.post(
                "/vote", data={"comparison": comparison.token, "choice": "left", "csrf": csrf_of(page.text)}
            )
            assert response.status_code == 429
        assert len(stored_votes(cfg.db)) == 3

    run(body)


def test_sides_are_drawn_at_random(arena_runs: ArenaFixture, tmp_path: Path) -> None:
    cfg = config(arena_runs, tmp_path, seed=11)
    token = invite(cfg.db, "ann")

    async def body() -> None:
        async with arena_client(cfg) as http:
            await sign_in(http, token)
            for _ in range(QUESTIONS * 3):
                response, _ = await vote_once(http)
                assert response.status_code == 303

    run(body)
    with sqlite3.connect(cfg.db) as conn:
        rows = conn.execute("SELECT left_system, right_system FROM votes").fetchall()
    pairs = {tuple(sorted(r)) for r in rows}
    assert len(pairs) == 3
    for low, high in pairs:
        lefts = {left for left, right in rows if {left, right} == {low, high}}
        assert lefts == {low, high}, (low, high)


def test_pairs_favour_the_least_compared(arena_runs: ArenaFixture, tmp_path: Path) -> None:
    cfg = config(arena_runs, tmp_path)
    tokens = [invite(cfg.db, f"a{i}") for i in range(2)]

    async def body() -> None:
        for token in tokens:
            async with arena_client(cfg) as http:
                await sign_in(http, token)
                for _ in range(6):
                    await vote_once(http)
        with sqlite3.connect(cfg.db) as conn:
            counts = [n for (n,) in conn.execute("SELECT count(*) FROM votes GROUP BY system_lo, system_hi")]
        assert sorted(counts) == [4, 4, 4]

    run(body)


def test_votes_are_counted_on_the_leaderboard_and_exported(arena_runs: ArenaFixture, tmp_path: Path) -> None:
    cfg = config(arena_runs, tmp_path, min_votes=2)
    token, admin = invite(cfg.db, "ann"), invite(cfg.db, "root", "admin")
    shown_names: set[str] = set()

    async def body() -> None:
        async with arena_client(cfg) as http:
            await sign_in(http, token)
            before = await http.get("/leaderboard")
            assert re.search(r'id="total-votes">0<', before.text)
            for choice in ("left", "right", "tie", "both_bad", "left", "left"):
                await vote_once(http, choice, rationale=f"because, {choice}")
            after = await http.get("/leaderboard")
            assert re.search(r'id="total-votes">6<', after.text)
            shown_names.update(html.unescape(n) for n in re.findall(r'<tr data-system="([^"]+)">', after.text))
            assert len(shown_names) == 3
            counts = re.findall(r'<td class="votes">(\d+)</td>', after.text)
            assert sum(map(int, counts)) == 12
            assert "95% interval" in after.text and "Win rates" in after.text
        async with arena_client(cfg) as http:
            await sign_in(http, admin)
            jsonl = await http.get("/export/votes.jsonl")
            rows = [json.loads(line) for line in jsonl.text.splitlines()]
            assert [r["winner"] for r in rows] == ["a", "b", "tie", "both_bad", "a", "a"]
            assert rows[0]["annotator"] == "ann" and rows[0]["rationale"] == "because, left"
            table = list(csv.DictReader(io.StringIO((await http.get("/export/votes.csv")).text)))
            assert [r["winner"] for r in table] == [r["winner"] for r in rows]
            assert all(r["system_a"] != r["system_b"] for r in table)
            assert {r["system_a"] for r in table} | {r["system_b"] for r in table} <= shown_names
        stored = load_votes(cfg.db).votes
        assert [(v.left_system, v.right_system, v.winner) for v in stored] == [
            (r["system_a"], r["system_b"], r["winner"]) for r in rows
        ]
        assert all(v.left_run and v.right_run for v in stored)  # each side names the run behind it
        assert [(v.left_run, v.right_run) for v in stored] == [(r["run_a"], r["run_b"]) for r in rows]

    run(body)


def test_the_combined_score_appears_with_enough_votes(arena_runs: ArenaFixture, tmp_path: Path) -> None:
    cfg = config(arena_runs, tmp_path, min_votes=4)
    token = invite(cfg.db, "ann")

    async def body() -> None:
        async with arena_client(cfg) as http:
            await sign_in(http, token)
            for _ in range(3):
                await vote_once(http, "tie")
            board = (await http.get("/leaderboard")).text
            assert board.count("/4 votes</span>") == 3
            for _ in range(9):
                await vote_once(http, "tie")
            board = (await http.get("/leaderboard")).text
            assert "/4 votes</span>" not in board

    run(body)


def submit(http: httpx.AsyncClient, csrf: str, name: str, filename: str, content: bytes) -> Awaitable[httpx.Response]:
    return http.post("/submit", data={"name": name, "csrf": csrf}, files={"run": (filename, content)})


def test_uploads_that_are_not_runs_of_this_benchmark_are_refused(
    arena_runs: ArenaFixture, tmp_path: Path, sales_db: Path
) -> None:
    cfg = config(arena_runs, tmp_path, max_upload_bytes=200_000)
    sam = invite(cfg.db, "sam", "submitter")
    other_bench = make_shop(tmp_path, sales_db, 3, name="other")
    other_run = tmp_path / "other.run"
    assert cli("run", other_bench, "--system", "gold", "-o", other_run).returncode == 0
    damaged = tmp_path / "damaged.run"
    damaged.write_bytes(arena_runs.runs[0].read_bytes())
    with sqlite3.connect(damaged) as conn:
        conn.execute("UPDATE answers SET body = '{\"bogus\": 1}'")
    sqlite_file = tmp_path / "plain.sqlite"
    with sqlite3.connect(sqlite_file) as conn:
        conn.execute("CREATE TABLE t (x)")

    async def body() -> None:
        async with arena_client(cfg) as http:
            await sign_in(http, sam)
            csrf = csrf_of((await http.get("/submit")).text)
            cases = [
                ("notes.txt", b"hello, I am not a run", 400, "notes.txt: not a biarena run file"),
                ("plain.sqlite", sqlite_file.read_bytes(), 400, "an SQLite database of something else"),
                ("empty.run", b"", 400, "empty"),
                ("damaged.run", damaged.read_bytes(), 400, "damaged.run: damaged run file: table 'answers'"),
                ("other.run", other_run.read_bytes(), 400, "a run of benchmark 'other'"),
                ("big.run", b"x" * 300_000, 413, "at most 200,000 bytes"),
            ]
            for filename, content, status, fragment in cases:
                response = await submit(http, csrf, "Newcomer", filename, content)
                assert response.status_code == status, (filename, response.text[-800:])
                assert fragment in error_message(response), (filename, error_message(response))
                assert str(tmp_path) not in response.text
            named = await submit(http, csrf, "gold", "gold.run", arena_runs.runs[0].read_bytes())
            assert named.status_code == 409 and "already in the arena" in error_message(named)
        assert not list(cfg.submissions_dir.glob("*.run"))
        assert not [p for p in cfg.submissions_dir.iterdir() if p.name.startswith(".upload-")]

    run(body)


def test_a_submitted_run_is_rescored_on_the_arenas_questions_and_joins(
    arena_runs: ArenaFixture, tmp_path: Path
) -> None:
    cfg = config(arena_runs, tmp_path, seed=2)
    sam, ann = invite(cfg.db, "sam", "submitter"), invite(cfg.db, "ann")
    forged = tmp_path / "forged.run"
    forged.write_bytes(arena_runs.runs[1].read_bytes())
    with sqlite3.connect(forged) as conn:  # a submitter's own gold for every question: it must count for nothing
        for (qid, body) in conn.execute("SELECT question_id, body FROM questions").fetchall():
            record = json.loads(body)
            record["gold_sql"] = ["SELECT city_id, count(*) FROM sales GROUP BY city_id"]
            conn.execute("UPDATE questions SET body = ? WHERE question_id = ?", (json.dumps(record), qid))
        for (qid, scorer, body) in conn.execute("SELECT question_id, scorer, scores FROM results").fetchall():
            forged_scores = [{**score, "value": 1.0} for score in json.loads(body)]
            conn.execute(
                "UPDATE results SET scores = ? WHERE question_id = ? AND scorer = ?",
                (json.dumps(forged_scores), qid, scorer),
            )

    async def body() -> None:
        async with arena_client(cfg) as http:
            await sign_in(http, sam)
            csrf = csrf_of((await http.get("/submit")).text)
            response = await submit(http, csrf, "Newcomer", "forged.run", forged.read_bytes())
            assert response.status_code == 200, response.text[-800:]
            assert "Added <strong>Newcomer</strong>: 10 answers" in response.text
            assert "execution_accuracy 0.000" in response.text
        async with arena_client(cfg) as http:  # the same server state: the app object is new but the database holds it
            await sign_in(http, ann)
            for _ in range(QUESTIONS * 6):
                response, _ = await vote_once(http)
                assert response.status_code == 303
            assert "Nothing left" in (await http.get("/compare")).text
            board = (await http.get("/leaderboard")).text
            assert 'data-system="Newcomer"' in board and "submitted" in board
        systems = {name for _, _, lo, hi, _ in stored_votes(cfg.db) for name in (lo, hi)}
        assert "Newcomer" in systems and len(systems) == 4

    run(body)


def test_a_configured_judge_scores_each_submission(arena_runs: ArenaFixture, tmp_path: Path) -> None:
    cfg = config(arena_runs, tmp_path, judges=("interaction",))
    sam = invite(cfg.db, "sam", "submitter")

    async def body() -> None:
        async with arena_client(cfg) as http:
            await sign_in(http, sam)
            csrf = csrf_of((await http.get("/submit")).text)
            response = await submit(http, csrf, "Judged", "chatty.run", arena_runs.runs[2].read_bytes())
            assert response.status_code == 200, response.text[-800:]

    run(body)
    (kept,) = cfg.submissions_dir.glob("*.run")
    with RunStore(kept) as store:
        names = {s.name for s in store.scores()}
    assert {"interaction.sql_written", "interaction.plan_length", "execution_accuracy"} <= names


def test_unknown_pages_use_the_one_error_shape(arena_runs: ArenaFixture, tmp_path: Path) -> None:
    async def body() -> None:
        async with arena_client(config(arena_runs, tmp_path)) as http:
            response = await http.get("/nowhere")
            assert response.status_code == 404 and error_message(response) == "no such page"

    run(body)


def test_invite_and_export_through_the_command_line(arena_runs: ArenaFixture, tmp_path: Path) -> None:
    db = tmp_path / "arena.sqlite"
    made = cli("arena", "invite", "Ann Lee", "--db", db)
    assert made.returncode == 0, made.stderr
    token = made.stdout.strip()
    assert re.fullmatch(r"[A-Za-z0-9_-]{20,}", token) and "Ann Lee" in made.stderr
    assert token not in db.read_bytes().decode("latin-1")
    one_line_error(cli("arena", "invite", "Ann Lee", "--db", db), "already exists")
    one_line_error(cli("arena", "invite", "Bo", "--role", "king", "--db", db), "unknown role 'king'")
    cfg = config(arena_runs, tmp_path)

    async def body() -> None:
        async with arena_client(cfg) as http:
            await sign_in(http, token)
            await vote_once(http, "right", rationale='said "no", then yes')

    run(body)
    exported = cli("arena", "export", "--db", db, "--format", "csv")
    assert exported.returncode == 0, exported.stderr
    rows = list(csv.DictReader(io.StringIO(exported.stdout)))
    assert len(rows) == 1 and rows[0]["winner"] == "b" and rows[0]["rationale"] == 'said "no", then yes'
    target = tmp_path / "votes.jsonl"
    assert cli("arena", "export", "--db", db, "-o", target).returncode == 0
    assert json.loads(target.read_text())["annotator"] == "Ann Lee"
    one_line_error(cli("arena", "export", "--db", arena_runs.runs[0]), "not a biarena arena database")
    one_line_error(cli("arena", "export", "--db", tmp_path / "missing.sqlite"), "arena database not found")
    one_line_error(cli("arena", "serve", "--runs", arena_runs.runs[0], "--db", tmp_path / "x.sqlite"), "two systems")
    runs = [str(r) for r in arena_runs.runs]
    one_line_error(cli("arena", "serve", "--runs", *runs, "--db", db, "--judge", "corgy"), "did you mean 'corgi'")


def test_the_admin_page_refuses_a_look_alike_name(arena_runs: ArenaFixture, tmp_path: Path) -> None:
    cfg = config(arena_runs, tmp_path)
    admin = invite(cfg.db, "root", "admin")
    invite(cfg.db, "alice")

    async def body() -> None:
        async with arena_client(cfg) as http:
            await sign_in(http, admin)
            csrf = csrf_of((await http.get("/admin")).text)
            for name, fragment in (("ａｌｉｃｅ", "looks like the existing user 'alice'"),
                                   ("al\u200dice", "U+200D ZERO WIDTH JOINER")):
                response = await http.post("/admin/invite", data={"name": name, "role": "annotator", "csrf": csrf})
                assert response.status_code == 400 and fragment in error_message(response)
            added = await http.post("/admin/invite", data={"name": "bob", "role": "annotator", "csrf": csrf})
            assert added.status_code == 200
        with ArenaStore(cfg.db) as store:
            assert [u.name for u in store.users()] == ["root", "alice", "bob"]

    run(body)


def test_names_holding_markup_are_escaped_whatever_the_template_is_called(
    arena_runs: ArenaFixture, tmp_path: Path
) -> None:
    cfg = config(arena_runs, tmp_path)
    admin = invite(cfg.db, "<i>root</i>", "admin")
    invited = "<b>eve</b><script>alert(9)</script>"

    async def body() -> None:
        async with arena_client(cfg) as http:
            await sign_in(http, admin)
            csrf = csrf_of((await http.get("/admin")).text)
            added = await http.post("/admin/invite", data={"name": invited, "role": "annotator", "csrf": csrf})
            assert added.status_code == 200
            for page in (added.text, (await http.get("/admin")).text, (await http.get("/leaderboard")).text):
                assert "<i>" not in page and "&lt;i&gt;root&lt;/i&gt;" in page  # the header's user name
            for page in (added.text, (await http.get("/admin")).text):
                assert "<script>alert" not in page and "<b>" not in page
                assert html.escape(invited) in page

    run(body)


def test_the_arena_page_and_the_report_rank_the_same_votes_alike(arena_runs: ArenaFixture, tmp_path: Path) -> None:
    cfg = config(arena_runs, tmp_path, bootstrap=200, min_votes=3)
    token = invite(cfg.db, "ann")
    shown: dict[str, tuple[str, str, str, str]] = {}
    styled: dict[str, tuple[str, str, str]] = {}

    async def body() -> None:
        async with arena_client(cfg) as http:
            await sign_in(http, token)
            for choice in ("left", "left", "right", "tie", "left", "both_bad", "left", "right", "left", "tie"):
                await vote_once(http, choice)
            page = (await http.get("/leaderboard")).text
        for row in re.findall(r'<tr data-system="([^"]+)">(.*?)</tr>', page, flags=re.S):
            found = re.findall(r"<td[^>]*>(.*?)</td>", row[1], re.S)
            cells = [html.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in found]
            shown[html.unescape(row[0])] = (cells[0], cells[2], cells[3], cells[4])  # rank, strength, interval, votes
            styled[html.unescape(row[0])] = (cells[10], cells[8], cells[9])  # the same with the answers' style held
        assert "Style-controlled: the same fit with the answers' length" in page and "Style effects on" in page

    run(body)
    assert len(shown) == 3
    # The report reads the votes and the arena's leaderboard settings from the same database, and names each system
    # by its run's label, as the arena does.
    out = tmp_path / "report.csv"
    made = cli("report", *map(str, arena_runs.runs), "--arena", str(cfg.db), "-o", str(out))
    assert made.returncode == 0, made.stderr
    fitted = [r for r in csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))) if r["table"] == "arena"]
    assert {r["run"] for r in fitted} == set(shown)
    for rank, row in enumerate(fitted, start=1):
        strength, low, high = (float(row[k]) for k in ("mean", "low", "high"))
        assert shown[row["run"]] == (str(rank), number(strength), f"{number(low)} to {number(high)}", row["n"])
    controlled = [r for r in csv.DictReader(io.StringIO(out.read_text(encoding="utf-8")))
                  if r["table"] == "arena_style_controlled"]  # fmt: skip
    fitted_styled = {name for name, cells in styled.items() if cells != ("–", "–", "–")}
    assert {r["run"] for r in controlled} == fitted_styled and len(fitted_styled) >= 2
    for rank, row in enumerate(controlled, start=1):
        strength, low, high = (float(row[k]) for k in ("mean", "low", "high"))
        assert styled[row["run"]] == (str(rank), number(strength), f"{number(low)} to {number(high)}")
    markdown = tmp_path / "report.md"
    assert cli("report", *map(str, arena_runs.runs), "--arena", str(cfg.db), "-o", str(markdown)).returncode == 0
    order = [line.split("|")[2].strip() for line in markdown.read_text(encoding="utf-8").splitlines()
             if re.match(r"\| \d+ \|", line)][: len(shown)]
    assert order == sorted(shown, key=lambda name: int(shown[name][0]))
