"""Arena: the state one arena app serves (settings, store, catalog), its pairing and its cached leaderboard."""

import logging
import random
import threading

from biarena.arena.catalog import Catalog, system_from_run
from biarena.arena.config import ArenaConfig
from biarena.arena.pairing import next_pair
from biarena.arena.store import ArenaRefusal, ArenaStore, Session, ShownPair
from biarena.errors import BiarenaError
from biarena.report.auto_scores import AUTO_SCORES
from biarena.report.run_data import RunData
from biarena.votes.leaderboard import Leaderboard, build_leaderboard
from biarena.votes.style import vote_styles

log = logging.getLogger("biarena.arena")


class Arena:
    """The state one app serves: its settings, store, catalog and a cached leaderboard."""

    def __init__(self, config: ArenaConfig) -> None:
        self.config = config
        self.catalog = Catalog.from_runs(config.runs)
        self.store = ArenaStore(config.db)
        for name, path in self.store.submitted_systems():
            try:
                self.catalog.add(system_from_run(RunData.read(path), name, submitted=True))
            except BiarenaError as error:
                log.warning("submitted system %s is left out: %s", name, error)
        if len(self.catalog.systems) < 2:
            self.store.close()
            raise ArenaRefusal("an arena needs at least two systems to compare; give two or more --runs")
        self.store.fill_run_ids(self.run_ids())
        self.store.save_leaderboard_settings(config.leaderboard)
        self.rng = random.Random(config.seed) if config.seed is not None else random.SystemRandom()
        self._pick_lock = threading.Lock()
        self._board_lock = threading.Lock()
        self._board: tuple[tuple[int, int], Leaderboard] | None = None

    def run_ids(self) -> dict[str, str]:
        """Each system's name -> the id of the run behind it."""
        return {name: system.spec.run_id for name, system in self.catalog.systems.items()}

    def leaderboard(self) -> Leaderboard:
        """The leaderboard, refitted only when votes or systems changed."""
        with self._board_lock:
            key = (self.store.vote_count(), len(self.catalog.systems))
            if self._board is None or self._board[0] != key:
                systems = self.catalog.systems.values()
                # a vote names its runs by id, or (stored before runs had ids) by the name the arena showed
                texts = {
                    (key, qid): answer.text
                    for system in systems
                    for key in (system.spec.run_id, system.name)
                    for qid, answer in system.answers.items()
                }
                contenders, style = [system.contender for system in systems], vote_styles(texts)
                board = build_leaderboard(
                    self.store.votes(), contenders, self.config.leaderboard, metrics=AUTO_SCORES, style=style
                )
                self._board = (key, board)
            return self._board[1]

    def comparison_for(self, session: Session) -> ShownPair | None:
        """The user's open comparison, or a new one on the least-compared pair they have not judged."""
        user = session.user
        with self._pick_lock:
            current = self.store.open_comparison(user.id)
            if current is not None:
                systems = self.catalog.systems
                if current.left_system in systems and current.right_system in systems:
                    return current
                self.store.drop_comparison(current.token)
            pick = next_pair(
                self.catalog,
                self.store.voted_keys(user.id),
                self.store.pair_counts(),
                self.store.question_pair_counts(),
                self.rng,
            )
            if pick is None:
                return None
            return self.store.new_comparison(user.id, pick.benchmark, pick.question_id, pick.left, pick.right)
