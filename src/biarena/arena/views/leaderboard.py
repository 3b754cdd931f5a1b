"""leaderboard: the Bradley-Terry leaderboard page, with every automatic and judged score beside it."""

from fastapi import Request
from fastapi.responses import Response

from biarena.arena.views.context import context_of
from biarena.report.auto_scores import AUTO_SCORES
from biarena.scoring.infos import registered_infos


def leaderboard(request: Request) -> Response:
    """The leaderboard for anyone signed in: strengths with intervals, win rates, and the systems' scores."""
    context = context_of(request)
    session = context.require(request)
    board = context.arena.leaderboard()
    infos = {info.name: info for info in registered_infos()}
    shown = [n for n in (*AUTO_SCORES, *board.judges) if n != board.auto_metric]
    columns = [(n, infos[n].label if n in infos else n) for n in shown]
    return context.page(request, "leaderboard.html.j2", session, board=board, columns=columns)
