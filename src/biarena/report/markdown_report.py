"""markdown_report: the report as Markdown: outcomes, arena leaderboard, tables with intervals, judges and tests."""

from biarena.report.analysis import Analysis
from biarena.report.contract_disagreement import disagreement_tables
from biarena.report.groups import readable
from biarena.report.repeatability_tables import repeatability_tables
from biarena.report.tables import markdown_table, outcome_line, run_title


def _num(value: float | None, digits: int = 3) -> str:
    return "-" if value is None or value != value else f"{value:.{digits}f}"


def _p(value: float) -> str:
    return "-" if value != value else ("< 0.001" if value < 0.001 else f"{value:.3f}")


def _interval(low: float | None, high: float | None) -> str:
    return "" if low is None or high is None else f" [{low:.2f}, {high:.2f}]"


def _arena(analysis: Analysis) -> list[str]:
    board = analysis.arena
    if board is None:
        return []
    headers = ["rank", "system", "strength", "95% interval", "votes"]
    rows = [
        [str(r.rank), r.name, _num(r.strength, 2), _interval(r.low, r.high).strip(), str(r.votes)] for r in board.rows
    ]
    note = (
        f"Bradley-Terry strengths (log scale, mean 0) from {board.total_votes} votes; {board.ties} ties or both bad "
        f"count half a win each; 95% intervals from {board.bootstrap} bootstrap resamples."
    )
    if board.unmatched_votes:
        note += f" {board.unmatched_votes} votes left out: a side's run is not in this report."
    styled = board.style_control
    if styled is not None:
        headers += ["style-controlled", "95% interval", "rank"]
        for line, r in zip(rows, board.rows, strict=True):
            known = r.name in styled.strength
            line += [
                _num(styled.strength[r.name], 2) if known else "-",
                _interval(styled.low[r.name], styled.high[r.name]).strip() if known else "-",
                str(styled.systems.index(r.name) + 1) if known else "-",
            ]
        effects = ", ".join(f"{k} {v:+.2f}" for k, v in styled.coefficients.items())
        note += (
            f" Style-controlled: the same fit with the answers' length and Markdown structure as covariates "
            f"({styled.votes} votes whose answers are in this report; style effects in log-odds: {effects})."
        )
    return ["## Leaderboard: arena votes", note, markdown_table(headers, rows, {0, 2, 4, 5, 7})]


def _judge_votes(analysis: Analysis) -> list[str]:
    if not analysis.judge_votes:
        return []
    parts = [
        "## Pairwise judges",
        "Verdicts of pairwise judges (`biarena judge pairwise -o`), fitted with Bradley-Terry as arena votes are. "
        "Agreement with the arena's human votes: Cohen's kappa over the human votes the judge also gave a verdict on "
        "(same question and runs), with a 95% bootstrap interval.",
    ]
    rows = []
    for j in analysis.judge_votes:
        found = j.agreement
        kappa = _num(found.kappa, 2) if found else "-"
        interval = _interval(found.low, found.high).strip() if found and found.low is not None else "-"
        rows.append([j.judge, j.source, str(j.verdicts), str(j.shared), _num(j.exact, 2), kappa, interval])
    headers = ["judge", "file", "verdicts", "human votes shared", "same outcome", "Cohen's kappa", "95% interval"]
    parts.append(markdown_table(headers, rows, {2, 3, 4, 5}))
    for j in analysis.judge_votes:
        ranked = [
            [str(r.rank), r.name, _num(r.strength, 2), _interval(r.low, r.high).strip(), str(r.votes)]
            for r in j.board.rows
        ]
        headers = ["rank", "system", "strength", "95% interval", "verdicts"]
        parts += [f"### Ranking by {j.judge}", markdown_table(headers, ranked, {0, 2, 4})]
    return parts


def _sections(analysis: Analysis) -> list[str]:
    parts = []
    headers_scores = [analysis.comparison.infos.label(n) for n in analysis.names]
    for section in analysis.sections:
        several = len(section.runs) > 1
        headers = ["group", *(["run"] if several else []), "questions", *headers_scores]
        rows = []
        for label, groups in section.runs:
            for row in groups:
                cells = [readable(row.group), *([label] if several else []), str(row.questions)]
                for name in analysis.names:
                    iv = row.scores.get(name)
                    cells.append("-" if iv is None else _num(iv.estimate) + _interval(iv.low, iv.high))
                rows.append(cells)
        numeric = set(range(2 if several else 1, len(headers)))
        parts += [f"## {section.title}", markdown_table(headers, rows, numeric)]
    if parts:
        parts.insert(1, "Means with 95% bootstrap intervals; a question without an answer counts 0.")
    return parts


def _judges(analysis: Analysis) -> list[str]:
    parts = []
    for judge, values in analysis.dimensions.items():
        dims = next(j.dimensions for j in analysis.judges if j.judge == judge)
        rows = [[label, *(_num(means.get(d)) for d in dims)] for label, means in values.items()]
        parts += [
            f"### {judge} dimensions per system",
            markdown_table(["run", *dims], rows, set(range(1, 1 + len(dims)))),
        ]
    for judge, figures in analysis.judge_check.items():
        rows = [
            [f.check, _num(f.rate, 2), _interval(f.low, f.high).strip() or "-", "-" if f.n is None else str(f.n)]
            for f in figures
        ]
        parts += [
            f"### judge check: {judge}",
            markdown_table(["check", "good higher", "95% interval", "pairs"], rows, {1, 3}),
        ]
    return ["## Judges", *parts] if parts else []


def _tests(analysis: Analysis) -> list[str]:
    sig = analysis.significance
    parts = []
    if sig.paired:
        rows = [
            [
                analysis.comparison.infos.label(r.score),
                f"{r.second} - {r.first}",
                f"{r.result.difference:+.3f}",
                _interval(r.result.low, r.result.high).strip(),
                _p(r.result.p),
                str(r.result.n),
            ]
            for r in sig.paired
        ]
        parts += [
            "### Differences between runs (paired bootstrap)",
            markdown_table(["score", "runs", "difference", "95% interval", "p", "questions"], rows, {2, 4, 5}),
        ]
    if sig.anova:
        rows = [
            [
                r.run,
                analysis.comparison.infos.label(r.score),
                _num(r.result.f, 2),
                f"{r.result.df_between}, {r.result.df_within}",
                _p(r.result.p),
            ]
            for r in sig.anova
        ]
        parts += [
            "### Across question types (one-way ANOVA)",
            markdown_table(["run", "score", "F", "df", "p"], rows, {2, 4}),
        ]
    if sig.agreement:
        rows = [
            [
                r.run,
                f"{r.first} vs {r.second}",
                str(r.result.n),
                _num(r.result.pearson_r),
                _p(r.result.pearson_p),
                _num(r.result.exact, 2),
                _num(r.result.kappa),
            ]
            for r in sig.agreement
        ]
        parts += [
            "### Agreement between judges",
            markdown_table(["run", "scores", "answers", "Pearson r", "p", "exact", "kappa"], rows, {2, 3, 4, 5, 6}),
        ]
    if sig.hotelling:
        rows = [
            [r.run, f"{r.first} vs {r.second}", ", ".join(r.dimensions)]
            + (
                [_num(r.result.t2, 2), f"{r.result.f:.2f} ({r.result.df_num}, {r.result.df_den})", _p(r.result.p)]
                if r.result
                else [r.note, "", ""]
            )
            for r in sig.hotelling
        ]
        parts += [
            "### Judges' dimension vectors (paired Hotelling's T^2)",
            markdown_table(["run", "judges", "dimensions", "T^2", "F (df)", "p"], rows, {3, 5}),
        ]
    return ["## Statistical tests", *parts] if parts else []


def _contracts(analysis: Analysis) -> list[str]:
    return [
        f"## {title}\n\n" + markdown_table(headers, cells, numeric)
        for title, headers, cells, numeric in disagreement_tables(analysis.comparison)
        + repeatability_tables(analysis.comparison)
    ]


def markdown_report(analysis: Analysis, *, title: str = "biarena report") -> str:
    """The report as Markdown, for a pull request, a wiki or a terminal."""
    comparison = analysis.comparison
    benchmark = comparison.summaries[0].run.spec.benchmark_name if comparison.summaries else ""
    parts = [f"# {title}", f"Benchmark **{benchmark}**"]
    parts.append("\n".join(f"- **{run_title(s)}**: {outcome_line(s)}" for s in comparison.summaries))
    parts += [f"> warning: {w}" for w in comparison.warnings]
    parts += _arena(analysis) + _judge_votes(analysis) + _sections(analysis) + _contracts(analysis)
    parts += _judges(analysis) + _tests(analysis)
    return "\n\n".join(parts) + "\n"
