"""paper_tables: the DB QA paper's figures from stored judgements: Table 5 (peer review by stage) and Table 2
(reference-based match rate and score by question type)."""

from biarena.report.comparison import Comparison

Table = tuple[str, list[str], list[list[str]], set[int]]
"""(title, headers, cells, numeric column indexes)."""


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def peer_review_table(comparison: Comparison) -> Table | None:
    """Per run and stage: answers reviewed, the reviewers' and meta-reviewers' perfect rate and unanimity (Table 5)."""
    several = len(comparison.summaries) > 1
    headers = [*(["run"] if several else []), "stage", "answers", "reviewers perfect", "reviewers unanimous"]
    headers += ["perfect", "meta unanimous"]
    cells = []
    for summary in comparison.summaries:
        asked = {q.id for q in summary.questions}
        judged = [s.sub_scores for s in summary.run.scores if s.name == "peer-review" and s.question_id in asked]
        if not judged:
            continue
        from biarena.judges.peer_review import summarize_peer_review  # only for runs the judge reviewed

        figures = summarize_peer_review(judged)
        run = [summary.run.label] if several else []
        for stage in figures.stages:
            cells.append(
                [
                    *run,
                    stage.stage,
                    str(stage.answers),
                    _share(stage.reviewer_perfect_rate),
                    _share(stage.reviewer_agreement),
                    _share(stage.perfect_rate),
                    _share(stage.meta_agreement),
                ]
            )
        every = _share(figures.all_stages_perfect_rate)
        cells.append([*run, "all stages", str(figures.all_stages_answers), "", "", every, ""])
    start = 2 if several else 1
    return ("peer review by stage (DB QA Table 5)", headers, cells, set(range(start, len(headers)))) if cells else None


def reference_table(comparison: Comparison) -> Table | None:
    """Per run and question type: conclusive answers' match rate and interpretive answers' mean score (Table 2)."""
    several = len(comparison.summaries) > 1
    headers = [*(["run"] if several else []), "question type", "judged", "failed", "conclusive", "match rate"]
    headers += ["interpretive", "mean score"]
    cells = []
    for summary in comparison.summaries:
        scores: dict[str, dict[str, float | None]] = {}
        for score in summary.run.scores:
            if score.name in ("reference.match", "reference.score"):
                scores.setdefault(score.question_id, {})[score.name] = score.value
        judged = [(q, scores[q.id]) for q in summary.questions if q.id in scores]
        if not judged:
            continue
        from biarena.judges.reference import summarize_reference  # only for runs the judge judged

        for line in summarize_reference(judged):
            cells.append(
                [
                    *([summary.run.label] if several else []),
                    line.question_type,
                    str(line.answers),
                    str(line.failed),
                    str(line.conclusive),
                    _share(line.match_rate),
                    str(line.interpretive),
                    "-" if line.mean_score is None else f"{line.mean_score:.2f}",
                ]
            )
    start = 2 if several else 1
    title = "reference-based judging by question type (DB QA Table 2)"
    return (title, headers, cells, set(range(start, len(headers)))) if cells else None


def paper_tables(comparison: Comparison) -> list[Table]:
    """The DB QA tables the runs' judgements allow (none when no run was judged by `peer-review` or `reference`)."""
    return [table for table in (peer_review_table(comparison), reference_table(comparison)) if table is not None]
