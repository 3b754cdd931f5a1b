"""ArenaStore: the arena's SQLite file (WAL) of users, sessions, sign-in forms and failures, votes and systems."""

import secrets
import sqlite3
import threading
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from biarena.arena.accounts import (
    MAX_FAILURE_KEYS,
    MAX_LOGIN_FORMS,
    ROLES,
    SESSION_DAYS,
    Accounts,
    Session,
    User,
    hash_secret,
)
from biarena.arena.arena_format import MIGRATIONS, migrate_arena, recognize_arena
from biarena.arena.rate_limits import (
    VoteFlood,
    address_votes_message,
    daily_submissions_message,
    seconds_to_midnight,
)
from biarena.arena.refusals import ArenaRefusal, RateLimited, SignInThrottled, daily_cap_message
from biarena.arena.sign_in_limit import CLIENT, network_of, retry_seconds
from biarena.db.sql_text import compose
from biarena.errors import FormatError, NotFoundError
from biarena.votes.settings import LeaderboardSettings
from biarena.votes.vote import Vote, read_votes

__all__ = [
    "CHOICES",
    "MAX_FAILURE_KEYS",
    "MAX_LOGIN_FORMS",
    "MIGRATIONS",
    "ROLES",
    "SESSION_DAYS",
    "ArenaRefusal",
    "ArenaStore",
    "RateLimited",
    "Session",
    "ShownPair",
    "SignInThrottled",
    "User",
    "client_key",
    "daily_cap_message",
    "daily_cap_reached",
    "hash_secret",
]

CHOICES = ("left", "right", "tie", "both_bad")
"""What an annotator may answer about a comparison, as the page shows it."""


@dataclass(frozen=True)
class ShownPair:
    """Two systems' answers to one question, shown to one annotator with the sides fixed."""

    token: str
    user_id: int
    benchmark: str
    question_id: str
    left_system: str
    right_system: str
    vote_id: int | None


def daily_cap_reached(cap: int) -> RateLimited:
    """The refusal an annotator gets on reaching the daily cap, with a Retry-After of the next midnight UTC."""
    return RateLimited(daily_cap_message(cap), seconds_to_midnight(_now()))


def client_key(client: str) -> str:
    """The key a client address's votes are counted by (an IPv6 client by its /64, as sign-ins are)."""
    return f"{CLIENT}:{network_of(client)}"


def _now() -> datetime:
    return datetime.now(UTC)


class ArenaStore(Accounts):
    """The arena file. Every vote is written in its own transaction; the schema grows by numbered migrations."""

    def __init__(self, path: str | Path, *, create: bool = True) -> None:
        self.path = Path(path)
        if not self.path.exists() and not create:
            raise NotFoundError(f"arena database not found: {self.path}")
        if self.path.is_dir():
            raise FormatError(f"{self.path}: is a directory, not an arena database")
        if self.path.exists() and self.path.stat().st_size > 0:
            recognize_arena(self.path)
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._conn.execute("PRAGMA journal_mode = WAL")
            self._conn.execute("PRAGMA synchronous = NORMAL")
            self._conn.execute("PRAGMA foreign_keys = ON")
            self._conn.execute("PRAGMA busy_timeout = 10000")
            migrate_arena(self._conn, self.path)
            self._index_names()
        except (sqlite3.DatabaseError, OSError) as error:
            raise FormatError(f"{self.path}: cannot open the arena database ({error})") from None

    def close(self) -> None:
        """Close the file."""
        with self._lock:
            self._conn.close()

    def __enter__(self) -> "ArenaStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _read(self, sql: str, args: tuple = ()) -> list[tuple]:
        with self._lock:
            return self._conn.execute(sql, args).fetchall()

    def _clock(self) -> datetime:
        return _now()

    # --- submitted systems --------------------------------------------------------------

    def add_system(self, name: str, path: Path, benchmark: str, submitted_by: int | None) -> None:
        """Record a submitted system (its run file kept by the arena)."""
        try:
            with self._lock, self._conn:
                self._conn.execute("BEGIN IMMEDIATE")
                self._conn.execute(
                    "INSERT INTO systems VALUES (?, ?, ?, ?, ?)",
                    (name, str(path), benchmark, submitted_by, _now().isoformat()),
                )
        except sqlite3.IntegrityError:
            raise ArenaRefusal(f"a system named '{name}' is already in the arena; choose another name") from None

    def take_submission(self, user_id: int, daily: int) -> None:
        """Count an upload the user starts; RateLimited (before anything is read) once today's `daily` are used.

        Refused uploads count too: checking a file costs the server as much as accepting it.
        """
        now = _now()
        today = now.date().isoformat()
        with self._lock, self._conn:
            self._conn.execute("BEGIN IMMEDIATE")
            self._conn.execute("DELETE FROM submission_attempts WHERE day < ?", (today,))
            used = self._conn.execute(
                "SELECT count(*) FROM submission_attempts WHERE user_id = ? AND day = ?", (user_id, today)
            ).fetchone()[0]
            if used >= daily:
                raise RateLimited(daily_submissions_message(daily), seconds_to_midnight(now))
            self._conn.execute("INSERT INTO submission_attempts (user_id, day) VALUES (?, ?)", (user_id, today))

    def submitted_systems(self) -> list[tuple[str, Path]]:
        """(name, run file) of every submitted system, in submission order."""
        return [(name, Path(path)) for name, path in self._read("SELECT name, path FROM systems ORDER BY created_at")]

    # --- comparisons and votes ----------------------------------------------------------

    def open_comparison(self, user_id: int) -> ShownPair | None:
        """The user's shown-but-not-voted comparison, if any (a reload shows the same pair, not a new one)."""
        rows = self._read(
            "SELECT token, user_id, benchmark, question_id, left_system, right_system, vote_id FROM comparisons "
            "WHERE user_id = ? AND vote_id IS NULL ORDER BY created_at DESC LIMIT 1",
            (user_id,),
        )
        return ShownPair(*rows[0]) if rows else None

    def drop_comparison(self, token: str) -> None:
        """Forget an unvoted comparison (its systems left the arena)."""
        with self._lock, self._conn:
            self._conn.execute("DELETE FROM comparisons WHERE token = ? AND vote_id IS NULL", (token,))

    def new_comparison(self, user_id: int, benchmark: str, question_id: str, left: str, right: str) -> ShownPair:
        """Record a comparison shown to a user and return it with its opaque token."""
        token = secrets.token_urlsafe(18)
        with self._lock, self._conn:
            self._conn.execute("BEGIN IMMEDIATE")
            self._conn.execute(
                "INSERT INTO comparisons VALUES (?, ?, ?, ?, ?, ?, ?, NULL)",
                (token, user_id, benchmark, question_id, left, right, _now().isoformat()),
            )
        return ShownPair(token, user_id, benchmark, question_id, left, right, None)

    def comparison(self, token: str, user_id: int) -> ShownPair | None:
        """The user's comparison with this token, or None (another user's token is as good as none)."""
        rows = self._read(
            "SELECT token, user_id, benchmark, question_id, left_system, right_system, vote_id FROM comparisons "
            "WHERE token = ? AND user_id = ?",
            (token, user_id),
        )
        return ShownPair(*rows[0]) if rows else None

    def votes_today(self, user_id: int) -> int:
        """Votes the user cast today (UTC)."""
        return self._read("SELECT count(*) FROM votes WHERE user_id = ? AND day = ?", (user_id, _today()))[0][0]

    def check_address_votes(self, client: str, flood: VoteFlood) -> None:
        """RateLimited when the client's address has sent all the votes `flood` allows in one of its windows."""
        with self._lock:
            self._held_address(client_key(client), flood, _now())

    def _held_address(self, key: str, flood: VoteFlood, now: datetime) -> None:
        for window, span, allowed in flood.windows():
            used, oldest = self._conn.execute(
                "SELECT count(*), min(created_at) FROM vote_clients WHERE client = ? AND created_at > ?",
                (key, (now - span).isoformat()),
            ).fetchone()
            if used >= allowed:
                retry = retry_seconds(datetime.fromisoformat(oldest) + span, now)
                raise RateLimited(address_votes_message(window, allowed, retry, now), retry)

    def record_vote(
        self,
        token: str,
        user_id: int,
        choice: str,
        rationale: str,
        daily_cap: int,
        run_ids: dict[str, str] | None = None,
        *,
        client: str = "",
        flood: VoteFlood | None = None,
    ) -> int:
        """Store a vote for the user's comparison in one transaction; return its id.

        `run_ids` maps the systems' names to their runs' ids, stored with the vote (leaderboards match by them).
        With `flood`, the vote counts against the `client` address's limits in the same transaction.

        Refused (ArenaRefusal) when the comparison is unknown or already voted, the user voted on this pair of
        systems for this question before, or (RateLimited) the user reached the daily cap or the address its limit.
        """
        if choice not in CHOICES:
            raise ArenaRefusal(f"unknown choice '{choice}' (one of: {', '.join(CHOICES)})")
        now = _now()
        with self._lock, self._conn:
            self._conn.execute("BEGIN IMMEDIATE")
            row = self._conn.execute(
                "SELECT benchmark, question_id, left_system, right_system, vote_id FROM comparisons "
                "WHERE token = ? AND user_id = ?",
                (token, user_id),
            ).fetchone()
            if row is None:
                raise ArenaRefusal("this comparison is not yours or no longer exists; open a new one", 404)
            benchmark, question_id, left, right, voted = row
            if voted is not None:
                raise ArenaRefusal("you already voted on this comparison", 409)
            today = self._conn.execute(
                "SELECT count(*) FROM votes WHERE user_id = ? AND day = ?", (user_id, now.date().isoformat())
            ).fetchone()[0]
            if today >= daily_cap:
                raise daily_cap_reached(daily_cap)
            key = client_key(client) if flood is not None else ""
            if flood is not None:
                self._conn.execute(
                    "DELETE FROM vote_clients WHERE created_at <= ?", ((now - timedelta(days=1)).isoformat(),)
                )
                self._held_address(key, flood, now)
            low, high = sorted((left, right))
            try:
                runs = run_ids or {}
                cursor = self._conn.execute(
                    "INSERT INTO votes (user_id, benchmark, question_id, left_system, right_system, system_lo, "
                    "system_hi, choice, rationale, day, created_at, left_run, right_run) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        user_id,
                        benchmark,
                        question_id,
                        left,
                        right,
                        low,
                        high,
                        choice,
                        rationale,
                        now.date().isoformat(),
                        now.isoformat(),
                        runs.get(left),
                        runs.get(right),
                    ),
                )
            except sqlite3.IntegrityError:
                raise ArenaRefusal("you already voted on these two answers to this question", 409) from None
            vote_id = int(cursor.lastrowid or 0)
            self._conn.execute("UPDATE comparisons SET vote_id = ? WHERE token = ?", (vote_id, token))
            if flood is not None:
                self._conn.execute(
                    "INSERT INTO vote_clients (client, created_at) VALUES (?, ?)", (key, now.isoformat())
                )
        return vote_id

    def voted_keys(self, user_id: int) -> set[tuple[str, str, str, str]]:
        """(benchmark, question id, system, system) sorted pairs the user has voted on."""
        rows = self._read(
            "SELECT benchmark, question_id, system_lo, system_hi FROM votes WHERE user_id = ?", (user_id,)
        )
        return {tuple(r) for r in rows}  # type: ignore[misc]

    def pair_counts(self) -> dict[tuple[str, str], int]:
        """Votes per sorted pair of systems."""
        rows = self._read("SELECT system_lo, system_hi, count(*) FROM votes GROUP BY system_lo, system_hi")
        return {(lo, hi): n for lo, hi, n in rows}

    def question_pair_counts(self) -> dict[tuple[str, str, str, str], int]:
        """Votes per (benchmark, question id, system, system)."""
        rows = self._read(
            "SELECT benchmark, question_id, system_lo, system_hi, count(*) FROM votes "
            "GROUP BY benchmark, question_id, system_lo, system_hi"
        )
        return {(b, q, lo, hi): n for b, q, lo, hi, n in rows}

    def vote_choice(self, vote_id: int) -> str:
        """What a stored vote chose (left, right, tie, both_bad)."""
        rows = self._read("SELECT choice FROM votes WHERE id = ?", (vote_id,))
        return rows[0][0] if rows else ""

    def votes(self) -> list[Vote]:
        """Every vote, oldest first, with the annotator's name and the runs behind both sides."""
        with self._lock:
            return read_votes(self._conn)

    def fill_run_ids(self, run_ids: dict[str, str]) -> int:
        """Give votes stored without run ids those of the systems they name (`run_ids`: the name the arena shows ->
        its run's id); returns how many sides were filled."""
        filled = 0
        with self._lock, self._conn:
            self._conn.execute("BEGIN IMMEDIATE")
            for side in ("left", "right"):
                for name, run_id in run_ids.items():
                    cursor = self._conn.execute(
                        compose(
                            "UPDATE votes SET {run} = ? WHERE {run} IS NULL AND {system} = ?",
                            run=f"{side}_run",
                            system=f"{side}_system",
                        ),
                        (run_id, name),
                    )
                    filled += cursor.rowcount
        return filled

    def save_leaderboard_settings(self, settings: LeaderboardSettings) -> None:
        """Keep the settings the arena's leaderboard uses, so `report --arena` fits the votes the same way."""
        with self._lock, self._conn:
            self._conn.execute("INSERT OR REPLACE INTO meta VALUES ('leaderboard', ?)", (settings.to_json(),))

    def vote_count(self) -> int:
        """How many votes are stored."""
        return self._read("SELECT count(*) FROM votes")[0][0]


def _today() -> str:
    return _now().date().isoformat()
