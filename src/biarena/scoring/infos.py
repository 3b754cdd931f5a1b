"""What displays know of stored scores: each score's declaration, looked up through the scorer that stored it."""

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from biarena.records import Score
from biarena.scoring.registry import SCORERS, variant_factory
from biarena.scoring.score_info import ScoreInfo, undeclared

_MADE: dict[tuple[str, Callable], tuple[ScoreInfo, ...]] = {}


def scorer_infos(scorer: str) -> tuple[ScoreInfo, ...]:
    """The scores the registered scorer `scorer` declares (none when it is not registered or cannot be made)."""
    factory = SCORERS.get(scorer) or variant_factory(scorer)
    if factory is None:
        return ()
    # a variant (`execution_accuracy[bird]`) is remembered by its base scorer's factory, made afresh each time
    key = (scorer, SCORERS.get(scorer) or SCORERS[scorer.partition("[")[0]])
    if key not in _MADE:
        try:
            _MADE[key] = tuple(factory().infos)
        except Exception:  # a scorer that cannot be made here (a missing extra): its scores show by their names
            _MADE[key] = ()
    return _MADE[key]


def registered_infos() -> list[ScoreInfo]:
    """Every registered scorer's scores, in registry order."""
    return [info for name in SCORERS for info in scorer_infos(name)]


def is_judge(scorer: str) -> bool:
    """True when the registered scorer gives judge scores."""
    return any(info.is_judge for info in scorer_infos(scorer))


@dataclass
class ScoreInfos:
    """The declarations of the scores some runs store, by score name; a name no scorer declares gets a stand-in
    with its raw name (a metric, unless a registered judge stored it)."""

    by_name: dict[str, ScoreInfo] = field(default_factory=dict)
    scorer: dict[str, str] = field(default_factory=dict)
    """Score name -> the scorer that stored it."""
    order: dict[str, int] = field(default_factory=dict)
    """Score name -> its place in registry order (declared scores only)."""

    @classmethod
    def of(cls, scores: Iterable[Score]) -> "ScoreInfos":
        """The declarations behind the stored scores, each looked up through the scorer that stored it (only those
        scorers are made), else by its name among every registered scorer's."""
        infos = cls()
        for score in scores:
            infos.scorer.setdefault(score.name, score.scorer)
        places = {name: index for index, name in enumerate(SCORERS)}
        everyone: dict[str, tuple[str, int, ScoreInfo]] | None = None
        for name, scorer in infos.scorer.items():
            declared = {info.name: (scorer, i, info) for i, info in enumerate(scorer_infos(scorer))}
            if name not in declared and scorer not in SCORERS:
                if everyone is None:
                    everyone = {info.name: (s, i, info) for s in SCORERS for i, info in enumerate(scorer_infos(s))}
                declared = everyone
            if name in declared:
                owner, index, info = declared[name]
                infos.by_name[name] = info
                infos.order[name] = places[owner.partition("[")[0]] * 1000 + index
            else:
                infos.by_name[name] = undeclared(name, judge=is_judge(scorer))
        return infos

    def info(self, name: str) -> ScoreInfo:
        """The declaration of a score name (a stand-in when none is known)."""
        return self.by_name.get(name) or undeclared(name)

    def label(self, name: str) -> str:
        """The score's short label (its name when undeclared)."""
        return self.info(name).label

    def is_judge(self, name: str) -> bool:
        """True for a judge's score."""
        return self.info(name).is_judge

    def ordered(self, names: Iterable[str]) -> list[str]:
        """The names in registry order (each scorer's in its order), then undeclared ones by name."""
        unique = set(names)
        known = sorted((n for n in unique if n in self.order), key=lambda n: (self.order[n], n))
        return known + sorted(unique - set(known))

    def metric_names(self, names: Iterable[str]) -> list[str]:
        """The metrics' names among `names`, ordered."""
        return [n for n in self.ordered(names) if not self.is_judge(n)]

    def headlines(self, names: Iterable[str], *, judges: bool = True) -> list[str]:
        """The headline scores among `names`, ordered: the metrics' first, then (with `judges`) the judges'."""
        present = [n for n in self.ordered(names) if self.info(n).headline]
        metrics = [n for n in present if not self.is_judge(n)]
        return metrics + ([n for n in present if self.is_judge(n)] if judges else [])
