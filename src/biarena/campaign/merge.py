"""merge_campaigns: campaign folders (shards of one plan, or overlapping plans) and run files joined into one
campaign, each answer and result kept once."""

from pathlib import Path

from biarena.campaign.folder import CampaignFolder
from biarena.errors import UsageError


def merge_campaigns(sources: list[Path], out: Path) -> tuple[int, int, Path]:
    """Join `sources` (campaign folders, or run files made by `biarena run`) into the campaign folder `out` (new,
    or a campaign to grow); return the units of the merged campaign, the units done, and its results table.

    A run file joins the campaign's runs (`show`, `report`) without a unit: it is not in the results table."""
    from biarena.runner import RunStore, recognize_run_file

    if not sources:
        raise UsageError("name the campaign folders to merge")
    folders = [CampaignFolder.open(path) for path in sources if path.is_dir() or not path.exists()]
    runs = [path for path in sources if path.is_file()]
    for run in runs:
        recognize_run_file(run)
    target = CampaignFolder(out)
    resolved = out.resolve()
    if any(f.path.resolve() == resolved for f in folders):
        raise UsageError(f"-o {out} is one of the folders merged; merge into a new folder")
    if out.exists() and not (out.is_dir() and (not any(out.iterdir()) or (out / "campaign.json").is_file())):
        raise UsageError(f"-o {out}: not a new or a campaign folder")
    for source in [path for folder in folders for path in folder.run_files()] + runs:
        with RunStore(source) as reader:
            reader.check()  # every source is read whole before the merge writes anything
    target.add_units([unit for folder in folders for unit in folder.units()])
    for folder in folders:
        for source in folder.run_files():
            copy_run(source, target.runs / source.name)
        target.mark_done(sorted(folder.done()))
    for run in runs:
        copy_run(run, target.runs / f"{run.stem}.sqlite")
    results = target.write_results()
    return len(target.units()), len(target.done()), results


def copy_run(source: Path, target: Path) -> None:
    """Add a run file's questions, answers, results and kept statement results to `target` (made when missing);
    what the target holds already is kept, and a different run there is refused."""
    from biarena.runner import RunStore, open_run

    # all of the source is read before the target is opened: a damaged source adds nothing to it
    with RunStore(source) as reader:
        spec = reader.spec()
        if spec is None:
            return
        questions, kept, repeats = reader.questions(), reader.kept_results(), reader.repeats()
        tries = {
            number: (reader.at_try(number).answers(), reader.at_try(number).results())
            for number in sorted({0, *reader.tries()})
        }
    with RunStore(target, create=True, lock=True) as store:
        open_run(store, spec, questions)
        for number, (answers, results) in tries.items():
            view = store.at_try(number)
            for answer in answers:
                view.add_answer(answer)
            view.put_results(results)
        if repeats > store.repeats():
            store.set_repeats(repeats)
        for database, role, sql, body in kept:
            store.keep_result(database, role, sql, body)
