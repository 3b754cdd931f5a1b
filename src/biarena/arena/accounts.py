"""The arena's people: invited users, their sign-ins (limited), sign-in forms and sessions."""

import hashlib
import secrets
import sqlite3
import threading
from dataclasses import dataclass
from datetime import datetime, timedelta

from biarena.arena.refusals import SignInThrottled
from biarena.arena.sign_in_limit import SignInLimit
from biarena.arena.user_names import NAME_KEY_VERSION, clean_user_name, name_skeletons
from biarena.db.sql_text import compose, placeholders
from biarena.errors import UsageError

ROLES = ("annotator", "submitter", "admin")
"""Who may do what: annotators vote, submitters upload runs, admins do both and invite and export."""

SESSION_DAYS = 14

MAX_LOGIN_FORMS = 50_000
"""Open sign-in forms kept at most: a flood of sign-in page views evicts the oldest rather than filling the disk."""
MAX_FAILURE_KEYS = 100_000
"""Failure counts kept at most (each expires with its window; beyond this the oldest are forgotten)."""


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


def hash_secret(secret: str) -> str:
    """SHA-256 of a token: the arena keeps no token it could leak."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


class Accounts:
    """Users and sessions of an arena file (the part of `ArenaStore` that signs people in)."""

    _conn: sqlite3.Connection
    _lock: threading.Lock

    def _clock(self) -> datetime:
        raise NotImplementedError

    def _read(self, sql: str, args: tuple = ()) -> list[tuple]:
        raise NotImplementedError

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
                    compose(
                        "SELECT u.name FROM user_name_keys k JOIN users u ON u.id = k.user_id "
                        "WHERE k.key IN ({marks}) ORDER BY u.id LIMIT 1",
                        marks=placeholders(len(keys)),
                    ),
                    keys,
                ).fetchone()
                if twin is not None and twin[0] != name:
                    raise UsageError(
                        f"the name '{name}' looks like the existing user '{twin[0]}'; choose one that reads differently"
                    )
                cursor = self._conn.execute(
                    "INSERT INTO users (name, role, token_hash, created_at) VALUES (?, ?, ?, ?)",
                    (name, role, hash_secret(token), self._clock().isoformat()),
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

    def sign_in(self, token: str, client: str = "", limit: SignInLimit | None = None) -> tuple[str, Session] | None:
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
            now = self._clock()  # read under the lock, so no later failure's window seems to end beyond the limit
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
        now = self._clock()
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
        return expires_at > self._clock().isoformat() and secrets.compare_digest(csrf_hash, hash_secret(csrf))

    def session(self, session_id: str) -> Session | None:
        """The live session with this id, or None."""
        rows = self._read(
            "SELECT u.id, u.name, u.role, s.csrf FROM sessions s JOIN users u ON u.id = s.user_id "
            "WHERE s.id_hash = ? AND s.expires_at > ?",
            (hash_secret(session_id), self._clock().isoformat()),
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
