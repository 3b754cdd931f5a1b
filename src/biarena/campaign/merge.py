"""merge_campaigns: campaign folders (shards of one plan, or overlapping plans) joined into one, each answer and
result kept once."""

from pathlib import Path

from biarena.campaign.folder import CampaignFolder
from biarena.errors import UsageError


def merge_campaigns(sources: list[Path], out: Path) -> tuple[int, int, Path]:
    """Join `sources` into the campaign folder `out` (which may hold a campaign already); return the units of the
    merged campaign, the units done, and its results table."""
    from biarena.runner import RunStore, open_run

    if not sources:
        raise UsageError("name the campaign folders to merge")
    folders = [CampaignFolder.open(path) for path in sources]
    target = CampaignFolder(out)
    resolved = out.resolve()
    if any(f.path.resolve() == resolved for f in folders):
        raise UsageError(f"-o {out} is one of the folders merged; merge into a new folder")
    if out.exists() and not (out.is_dir() and (not any(out.iterdir()) or (out / "campaign.json").is_file())):
        raise UsageError(f"-o {out}: not a new or a campaign folder")
    target.add_units([unit for folder in folders for unit in folder.units()])
    for folder in folders:
        for source in folder.run_files():
            with RunStore(source) as reader, RunStore(target.runs / source.name, create=True, lock=True) as store:
                spec = reader.spec()
                if spec is None:
                    continue
                open_run(store, spec, reader.questions())
                for answer in reader.answers():
                    store.add_answer(answer)
                store.put_results(reader.results())
                kept = reader.conn.execute("SELECT database, role, sql, body FROM statement_results").fetchall()
                for database, role, sql, body in kept:
                    store.keep_result(database, role, sql, body)
        target.mark_done(sorted(folder.done()))
    results = target.write_results()
    return len(target.units()), len(target.done()), results
