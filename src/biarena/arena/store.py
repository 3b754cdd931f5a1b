"""ArenaStore: the arena's SQLite file (WAL) of users, sessions, sign-in forms and failures, votes and systems."""

import hashlib
import secrets
import sqlite3
import threading
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from biarena.arena.rate_limits import (
    VoteFlood,
    address_votes_message,
    daily_submissions_message,
    seconds_to_midnight,
)
from biarena.arena.sign_in_limit import CLIENT, SignInLimit, network_of, retry_seconds, wait_message
from biarena.arena.user_names import NAME_KEY_VERSION, clean_user_name, name_skeletons
from biarena.errors import BiarenaError, FormatError, NotFoundError, UsageError
from biarena.sqlite_migrations import migrate
from biarena.votes.settings import LeaderboardSettings
from biarena.votes.vote import Vote, read_votes
from biarena.votes.vote_file import ARENA_MAGIC

ROLES = ("annotator", "submitter", "admin")
"""Who may do what: annotators vote, submitters upload runs, admins do both and invite and export."""

CHOICES = ("left", "right", "tie", "both_bad")
"""What an annotator may answer about a comparison, as the page shows it."""

SESSION_DAYS = 14

# Numbered migrations: index i takes the schema from version i to i + 1.
MIGRATIONS: list[str] = [
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE users (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        role TEXT NOT NULL,
        token_hash TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL
    );
    CREATE TABLE sessions (
        id_hash TEXT PRIMARY KEY,
        user_id INTEGER NOT NULL REFERENCES users(id),
        csrf TEXT NOT NULL,
        expires_at TEXT NOT NULL
    );
    CREATE TABLE systems (
        name TEXT PRIMARY KEY,
        path TEXT NOT NULL,
        benchmark TEXT NOT NULL,
        submitted_by INTEGER REFERENCES users(id),
        created_at TEXT NOT NULL
    );
    CREATE TABLE comparisons (
        token TEXT PRIMARY KEY,
        user_id INTEGER NOT NULL REFERENCES users(id),
        benchmark TEXT NOT NULL,
        question_id TEXT NOT NULL,
        left_system TEXT NOT NULL,
        right_system TEXT NOT NULL,
        created_at TEXT NOT NULL,
        vote_id INTEGER REFERENCES votes(id)
    );
    CREATE INDEX comparisons_open ON comparisons (user_id, vote_id);
    CREATE TABLE votes (
        id INTEGER PRIMARY KEY,
        user_id INTEGER NOT NULL REFERENCES users(id),
        benchmark TEXT NOT NULL,
        question_id TEXT NOT NULL,
        left_system TEXT NOT NULL,
        right_system TEXT NOT NULL,
        system_lo TEXT NOT NULL,
        system_hi TEXT NOT NULL,
        choice TEXT NOT NULL CHECK (choice IN ('left', 'right', 'tie', 'both_bad')),
        rationale TEXT NOT NULL DEFAULT '',
        day TEXT NOT NULL,
        created_at TEXT NOT NULL,
        UNIQUE (user_id, benchmark, question_id, system_lo, system_hi)
    );
    CREATE INDEX votes_by_day ON votes (user_id, day);
    """,
    # Sign-in forms, each a server-side pre-session whose CSRF token works once; failed sign-ins counted per
    # client address and per token prefix, each count living until its window ends.
    """
    CREATE TABLE login_forms (
        id INTEGER PRIMARY KEY,
        id_hash TEXT NOT NULL UNIQUE,
        csrf_hash TEXT NOT NULL,
        expires_at TEXT NOT NULL
    );
    CREATE INDEX login_forms_expiry ON login_forms (expires_at);
    CREATE TABLE sign_in_failures (
        id INTEGER PRIMARY KEY,
        key TEXT NOT NULL UNIQUE,
        failures INTEGER NOT NULL,
        window_ends TEXT NOT NULL
    );
    CREATE INDEX sign_in_failures_expiry ON sign_in_failures (window_ends);
    """,
    # Look-alike keys (confusable skeletons) of user names, so an invite checks for a look-alike with one
    # indexed lookup; not unique, because a store made before this check may already hold two look-alikes.
    # Filled from the names when the store opens (see ArenaStore._index_names).
    """
    CREATE TABLE user_name_keys (
        key TEXT NOT NULL,
        user_id INTEGER NOT NULL REFERENCES users(id),
        PRIMARY KEY (key, user_id)
    ) WITHOUT ROWID;
    """,
    # The run behind each side of a vote (RunSpec.run_id), so leaderboards match systems to runs exactly; votes
    # stored before get theirs when an arena serving those systems starts (ArenaStore.fill_run_ids).
    """
    ALTER TABLE votes ADD COLUMN left_run TEXT;
    ALTER TABLE votes ADD COLUMN right_run TEXT;
    """,
    # Rate limits: each upload a submitter starts (accepted or refused), counted per day; each vote's client
    # address (as the sign-in limit groups addresses), kept a day, counted per rolling hour and day.
    """
    CREATE TABLE submission_attempts (
        id INTEGER PRIMARY KEY,
        user_id INTEGER NOT NULL REFERENCES users(id),
        day TEXT NOT NULL
    );
    CREATE INDEX submission_attempts_by_day ON submission_attempts (user_id, day);
    CREATE TABLE vote_clients (
        id INTEGER PRIMARY KEY,
        client TEXT NOT NULL,
        created_at TEXT NOT NULL
    );
    CREATE INDEX vote_clients_by_client ON vote_clients (client, created_at);
    CREATE INDEX vote_clients_expiry ON vote_clients (created_at);
    """,
]

MAX_LOGIN_FORMS = 50_000
"""Open sign-in forms kept at most: a flood of sign-in page views evicts the oldest rather than filling the disk."""
MAX_FAILURE_KEYS = 100_000
"""Failure counts kept at most (each expires with its window; beyond this the oldest are forgotten)."""



class ArenaRefusal(BiarenaError):
    """A request the arena refuses for a reason the user can act on; `status` is its HTTP status."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


class SignInThrottled(ArenaRefusal):
    """Sign-in held back: too many failures from one client or with one token prefix; retry after `retry_after` s."""

    def __init__(self, kind: str, failures: int, until: datetime, now: datetime) -> None:
        self.retry_after = retry_seconds(until, now)
        super().__init__(wait_message(kind, self.retry_after, now), 429)
        self.kind = kind
        self.failures = failures


class RateLimited(ArenaRefusal):
    """A request over one of the arena's rate limits (votes, uploads): HTTP 429, retry after `retry_after` s."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message, 429)
        self.retry_after = retry_after


@dataclass(frozen=True)
class User:
    """A person invited to the arena."""

    id: int
    name: str
    role: str


@dataclass(frozen=True)
class Session:
    """A signed-in user and the CSRF token their forms carry."""

    user: User
    csrf: str


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


def daily_cap_message(cap: int) -> str:
    """What an annotator reads on reaching the daily cap."""
    return f"you reached today's limit of {cap} votes; thank you, come back tomorrow"


def daily_cap_reached(cap: int) -> RateLimited:
    """The refusal an annotator gets on reaching the daily cap, with a Retry-After of the next midnight UTC."""
    return RateLimited(daily_cap_message(cap), seconds_to_midnight(_now()))


def client_key(client: str) -> str:
    """The key a client address's votes are counted by (an IPv6 client by its /64, as sign-ins are)."""
    return f"{CLIENT}:{network_of(client)}"


def hash_secret(secret: str) -> str:
    """SHA-256 of a token: the arena keeps no token it could leak."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def _now() -> datetime:
    return datetime.now(UTC)


class ArenaStore:
    """The arena file. Every vote is written in its own transaction; the schema grows by numbered migrations."""

    def __init__(self, path: str | Path, *, create: bool = True) -> None:
        self.path = Path(path)
        if not self.path.exists() and not create:
            raise NotFoundError(f"arena database not found: {self.path}")
        if self.path.is_dir():
            raise FormatError(f"{self.path}: is a directory, not an arena database")
        if self.path.exists() and self.path.stat().st_size > 0:
            _recognize(self.path)
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._conn.execute("PRAGMA journal_mode = WAL")
            self._conn.execute("PRAGMA synchronous = NORMAL")
            self._conn.execute("PRAGMA foreign_keys = ON")
            self._conn.execute("PRAGMA busy_timeout = 10000")
            _migrate(self._conn, self.path)
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

    # --- users and sessions -------------------------------------------------------------

    def invite(self, name: str, role: str = "annotator") -> str:
        """Create a user and return their sign-in token (shown once; only its hash is kept).

        UsageError when the name is empty, too long, holds invisible or control characters, or reads like an
        existing user's name (the same skeleton: full-width letters, Cyrillic or Greek look-alikes, case).
        """
        name = clean_user_name(name)
        if role not in ROLES:
            raise UsageError(f"unknown role '{role}' (known: {', '.join(ROLES)})")
        keys = sorted(set(name_skeletons(name)))
        token = secrets.token_urlsafe(24)
        try:
            with self._lock, self._conn:
                self._conn.execute("BEGIN IMMEDIATE")
                twin = self._conn.execute(
                    "SELECT u.name FROM user_name_keys k JOIN users u ON u.id = k.user_id "
                    f"WHERE k.key IN ({', '.join('?' for _ in keys)}) ORDER BY u.id LIMIT 1",
                    keys,
                ).fetchone()
                if twin is not None and twin[0] != name:
                    raise UsageError(
                        f"the name '{name}' looks like the existing user '{twin[0]}'; choose one that reads "
                        "differently"
                    )
                cursor = self._conn.execute(
                    "INSERT INTO users (name, role, token_hash, created_at) VALUES (?, ?, ?, ?)",
                    (name, role, hash_secret(token), _now().isoformat()),
                )
                self._conn.executemany(
                    "INSERT INTO user_name_keys VALUES (?, ?)", [(key, cursor.lastrowid) for key in keys]
                )
        except sqlite3.IntegrityError:
            raise UsageError(f"a user named '{name}' already exists") from None
        return token

    def users(self) -> list[User]:
        """Every user, oldest first."""
        return [User(*row) for row in self._read("SELECT id, name, role FROM users ORDER BY id")]

    def sign_in(
        self, token: str, client: str = "", limit: SignInLimit | None = None
    ) -> tuple[str, Session] | None:
        """Open a session for the holder of an invite token: (session id for the cookie, session), or None.

        With `limit`, the check, the lookup and the count of a failure are one transaction, so guesses sent
        together cannot slip past the limit together. SignInThrottled while the client or the token's prefix
        has used up its failures, a good token included; a failure counts against both; success clears the
        client's count.
        """
        token = token.strip()
        keys = limit.keys(client, token) if limit else []
        with self._lock, self._conn:
            self._conn.execute("BEGIN IMMEDIATE")
            now = _now()  # read under the lock, so no later failure's window seems to end beyond the limit
            if limit:
                self._forget_failures(now)
                for kind, key in keys:
                    row = self._conn.execute(
                        "SELECT failures, window_ends FROM sign_in_failures WHERE key = ?", (key,)
                    ).fetchone()
                    if row is not None and row[0] >= limit.failures:
                        raise SignInThrottled(kind, row[0], datetime.fromisoformat(row[1]), now)
            found = self._conn.execute(
                "SELECT id, name, role FROM users WHERE token_hash = ?", (hash_secret(token),)
            ).fetchone()
            if found is None:
                ends = (now + limit.span).isoformat() if limit else ""
                self._conn.executemany(
                    "INSERT INTO sign_in_failures (key, failures, window_ends) VALUES (?, 1, ?) "
                    "ON CONFLICT (key) DO UPDATE SET failures = failures + 1",
                    [(key, ends) for _, key in keys],
                )
                return None
            user = User(*found)
            if keys:
                self._conn.execute("DELETE FROM sign_in_failures WHERE key = ?", (keys[0][1],))
            session_id, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
            expires = (now + timedelta(days=SESSION_DAYS)).isoformat()
            self._conn.execute("DELETE FROM sessions WHERE expires_at < ?", (now.isoformat(),))
            self._conn.execute(
                "INSERT INTO sessions VALUES (?, ?, ?, ?)", (hash_secret(session_id), user.id, csrf, expires)
            )
        return session_id, Session(user, csrf)

    def _forget_failures(self, now: datetime) -> None:
        """Drop counts whose window has ended, and the oldest beyond MAX_FAILURE_KEYS (inside a transaction)."""
        self._conn.execute("DELETE FROM sign_in_failures WHERE window_ends <= ?", (now.isoformat(),))
        self._conn.execute(
            "DELETE FROM sign_in_failures WHERE id <= (SELECT max(id) FROM sign_in_failures) - ?",
            (MAX_FAILURE_KEYS,),
        )

    def open_login_form(self, lifetime: timedelta) -> tuple[str, str]:
        """A new sign-in form: (its id for the cookie, its CSRF token), valid once within `lifetime`.

        Only their hashes are kept. Forms whose time has passed are dropped here, and the oldest beyond
        MAX_LOGIN_FORMS.
        """
        form_id, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        now = _now()
        with self._lock, self._conn:
            self._conn.execute("BEGIN IMMEDIATE")
            self._conn.execute("DELETE FROM login_forms WHERE expires_at <= ?", (now.isoformat(),))
            self._conn.execute(
                "DELETE FROM login_forms WHERE id <= (SELECT max(id) FROM login_forms) - ?", (MAX_LOGIN_FORMS - 1,)
            )
            self._conn.execute(
                "INSERT INTO login_forms (id_hash, csrf_hash, expires_at) VALUES (?, ?, ?)",
                (hash_secret(form_id), hash_secret(csrf), (now + lifetime).isoformat()),
            )
        return form_id, csrf

    def use_login_form(self, form_id: str, csrf: str) -> bool:
        """Use up the sign-in form `form_id`: True when `csrf` is the token it was issued with, in time.

        The form is gone after this call whatever the answer, so a token works at most once.
        """
        with self._lock, self._conn:
            rows = self._conn.execute(
                "DELETE FROM login_forms WHERE id_hash = ? RETURNING csrf_hash, expires_at", (hash_secret(form_id),)
            ).fetchall()
        if not rows:
            return False
        csrf_hash, expires_at = rows[0]
        return expires_at > _now().isoformat() and secrets.compare_digest(csrf_hash, hash_secret(csrf))

    def session(self, session_id: str) -> Session | None:
        """The live session with this id, or None."""
        rows = self._read(
            "SELECT u.id, u.name, u.role, s.csrf FROM sessions s JOIN users u ON u.id = s.user_id "
            "WHERE s.id_hash = ? AND s.expires_at > ?",
            (hash_secret(session_id), _now().isoformat()),
        )
        if not rows:
            return None
        uid, name, role, csrf = rows[0]
        return Session(User(uid, name, role), csrf)

    def sign_out(self, session_id: str) -> None:
        """End a session."""
        with self._lock, self._conn:
            self._conn.execute("DELETE FROM sessions WHERE id_hash = ?", (hash_secret(session_id),))

    def _index_names(self) -> None:
        """Make the look-alike keys of every user name when they are missing or were made under other rules."""
        made = self._conn.execute("SELECT value FROM meta WHERE key = 'name_keys'").fetchone()
        if made is not None and made[0] == NAME_KEY_VERSION:
            return
        with self._conn:
            self._conn.execute("BEGIN IMMEDIATE")
            self._conn.execute("DELETE FROM user_name_keys")
            for user_id, name in self._conn.execute("SELECT id, name FROM users").fetchall():
                self._conn.executemany(
                    "INSERT INTO user_name_keys VALUES (?, ?)", [(key, user_id) for key in set(name_skeletons(name))]
                )
            self._conn.execute("INSERT OR REPLACE INTO meta VALUES ('name_keys', ?)", (NAME_KEY_VERSION,))

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
                    (user_id, benchmark, question_id, left, right, low, high, choice, rationale,
                     now.date().isoformat(), now.isoformat(), runs.get(left), runs.get(right)),
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
                        f"UPDATE votes SET {side}_run = ? WHERE {side}_run IS NULL AND {side}_system = ?",
                        (run_id, name),
                    )
                    filled += cursor.rowcount
        return filled

    def save_leaderboard_settings(self, settings: LeaderboardSettings) -> None:
        """Keep the settings the arena's leaderboard uses, so `report --arena` fits the votes the same way."""
        with self._lock, self._conn:
            self._conn.execute(
                "INSERT OR REPLACE INTO meta VALUES ('leaderboard', ?)", (settings.to_json(),)
            )

    def vote_count(self) -> int:
        """How many votes are stored."""
        return self._read("SELECT count(*) FROM votes")[0][0]


def _today() -> str:
    return _now().date().isoformat()


def _recognize(path: Path) -> None:
    """Raise FormatError unless `path` is an arena database; read without changing it."""
    try:
        conn = sqlite3.connect(f"file:{path.resolve()}?mode=ro", uri=True)
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            magic = conn.execute("SELECT value FROM meta WHERE key = 'magic'").fetchone() if version else None
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        version, magic = 0, None
    if not magic or magic[0] != ARENA_MAGIC:
        raise FormatError(f"{path}: not a biarena arena database; it was left as it is")
    if version > len(MIGRATIONS):
        raise FormatError(f"{path}: made by a newer biarena (arena format {version})")


def _migrate(conn: sqlite3.Connection, path: Path) -> None:
    migrate(conn, path, MIGRATIONS, ARENA_MAGIC, "arena")
