"""Arena user names: look-alikes of an existing name and hidden characters are refused, in the store and the CLI."""

import sqlite3
from pathlib import Path

import pytest

from biarena.arena.store import MIGRATIONS, ArenaStore
from biarena.arena.user_names import NAME_KEY_VERSION, name_skeletons
from biarena.errors import UsageError
from biarena.sqlite_migrations import migrate
from tests.run_helpers import cli, one_line_error

LOOK_ALIKES = [
    "ａｌｉｃｅ",  # full-width Latin letters
    "\u0430lice",  # Cyrillic small a
    "\u03b1lice",  # Greek small alpha
    "ALICE",
    "Alice",
    "AIice",  # capital I for l
    "a1ice",  # digit one for l
    "  alice ",
]

HIDDEN = [
    ("al\u200dice", "U+200D ZERO WIDTH JOINER at character 3"),
    ("ali\u200bce", "U+200B ZERO WIDTH SPACE"),
    ("\u202eecila", "U+202E RIGHT-TO-LEFT OVERRIDE at character 1"),
    ("alice\u2066", "U+2066 LEFT-TO-RIGHT ISOLATE"),
    ("ann\u00a0lee", "U+00A0 NO-BREAK SPACE"),
    ("bob\u3164", "U+3164 HANGUL FILLER"),
    ("bo\ufe0fb", "U+FE0F VARIATION SELECTOR-16"),
    ("a\tb", "U+0009"),
]


@pytest.mark.parametrize("name", LOOK_ALIKES)
def test_a_look_alike_of_an_existing_name_is_refused(tmp_path: Path, name: str) -> None:
    with ArenaStore(tmp_path / "arena.sqlite") as store:
        store.invite("alice")
        with pytest.raises(UsageError) as refused:
            store.invite(name)
        if name.strip() == "alice":
            assert str(refused.value) == "a user named 'alice' already exists"
        else:
            assert str(refused.value) == (
                f"the name '{name}' looks like the existing user 'alice'; choose one that reads differently"
            )
        assert [u.name for u in store.users()] == ["alice"]


def test_names_that_read_differently_are_accepted(tmp_path: Path) -> None:
    names = ["alice", "alicia", "Ali", "Bob", "Ann Lee", "Ann Leigh", "José", "Jose", "Zoë", "annotator 1",
             "annotator 10", "王芳"]
    with ArenaStore(tmp_path / "arena.sqlite") as store:
        for name in names:
            store.invite(name)
        assert [u.name for u in store.users()] == names


@pytest.mark.parametrize(("name", "named"), HIDDEN)
def test_names_with_invisible_or_control_characters_are_refused(tmp_path: Path, name: str, named: str) -> None:
    with ArenaStore(tmp_path / "arena.sqlite") as store, pytest.raises(UsageError) as refused:
        store.invite(name)
    assert str(refused.value).startswith("a user name may not hold invisible or control characters: ")
    assert named in str(refused.value)


def test_skeletons_fold_width_script_and_case() -> None:
    assert {key for name in LOOK_ALIKES for key in name_skeletons(name.strip())} & set(name_skeletons("alice"))
    assert name_skeletons("ａｌｉｃｅ") == name_skeletons("alice") == ("alice", "alice")
    assert name_skeletons("\u0430lice") == ("alice", "alice")
    assert set(name_skeletons("Bob")).isdisjoint(name_skeletons("Bab"))


def test_the_command_line_refuses_look_alikes_in_one_line(tmp_path: Path) -> None:
    db = tmp_path / "arena.sqlite"
    assert cli("arena", "invite", "alice", "--db", db).returncode == 0
    for name in ("ａｌｉｃｅ", "\u0430lice"):
        one_line_error(cli("arena", "invite", name, "--db", db), "looks like the existing user 'alice'")
    one_line_error(cli("arena", "invite", "al\u200dice", "--db", db), "U+200D ZERO WIDTH JOINER")
    with ArenaStore(db) as store:
        assert [u.name for u in store.users()] == ["alice"]


def test_a_store_made_before_the_check_gets_its_names_indexed(tmp_path: Path) -> None:
    db = tmp_path / "arena.sqlite"
    with sqlite3.connect(db, isolation_level=None) as conn:  # the first format, with two look-alikes already in
        migrate(conn, db, MIGRATIONS[:1], "biarena-arena", "arena")
        for number, name in enumerate(("alice", "ａｌｉｃｅ")):
            conn.execute(
                "INSERT INTO users (name, role, token_hash, created_at) VALUES (?, 'annotator', ?, '2024-01-01')",
                (name, f"hash{number}"),
            )
    conn.close()
    with ArenaStore(db) as store:
        with pytest.raises(UsageError, match="looks like the existing user 'alice'"):
            store.invite("\u0430lice")
        store.invite("bob")
        assert [u.name for u in store.users()] == ["alice", "ａｌｉｃｅ", "bob"]
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
        keys = conn.execute("SELECT key, user_id FROM user_name_keys ORDER BY user_id").fetchall()
        assert keys == [("alice", 1), ("alice", 2), ("bob", 3)]
        plan = " ".join(row[-1] for row in conn.execute(
            "EXPLAIN QUERY PLAN SELECT user_id FROM user_name_keys WHERE key IN ('alice', 'allce')"
        ))
        assert "USING PRIMARY KEY" in plan or "USING INDEX" in plan, plan
        # Keys made under other skeleton rules are made again when the store next opens.
        conn.execute("DELETE FROM user_name_keys")
        conn.execute("UPDATE meta SET value = 'older-rules' WHERE key = 'name_keys'")
    conn.close()
    with ArenaStore(db) as store, pytest.raises(UsageError, match="looks like the existing user 'bob'"):
        store.invite("Ьob")  # Cyrillic soft sign for b
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT value FROM meta WHERE key = 'name_keys'").fetchone()[0] == NAME_KEY_VERSION
        assert conn.execute("SELECT count(*) FROM user_name_keys").fetchone()[0] == 3
    conn.close()
