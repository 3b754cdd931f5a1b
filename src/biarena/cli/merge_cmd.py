"""`biarena merge DIR... -o OUT`: join campaign folders (shards, overlapping plans) and run files into one campaign."""

from pathlib import Path

import typer

from biarena.cli.console import err


def merge(
    folders: list[Path] = typer.Argument(
        ..., metavar="DIR", help="Campaign folders to join (a run file joins the campaign's runs, without a unit)."
    ),
    out: Path = typer.Option(..., "-o", "--out", help="The campaign folder to write (new, or a campaign to grow)."),
) -> None:
    """Join campaign folders into one: their units, runs and results, each answer and result kept once.

    The merged folder's campaign.json and results.csv are byte for byte those of the whole plan run at once.
    """
    from biarena.campaign import merge_campaigns

    units, done, results = merge_campaigns(folders, out)
    err.print(
        f"merged {len(folders)} folders into {out}: {done} of {units} units done; results: {results}",
        markup=False,
        highlight=False,
    )
