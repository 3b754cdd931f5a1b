"""The command line's fixed words: each command's target and short help, the top-level help, the option help.

Plain data with no imports, so `biarena --help` and `biarena --version` answer without loading the command-line
framework (`biarena.cli.top_help`), and the Typer group (`biarena.cli.group`) is built from the same words.
"""

COMMAND_TABLE: dict[str, tuple[str, str]] = {
    "demo": (
        "biarena.cli.demo_cmd:demo",
        "Build the built-in benchmark, run agents with the local model, score them, and write report.html.",
    ),
    "build": (
        "biarena.cli.build_cmd:command",
        "Build a built-in benchmark (databases, questions, gold SQL) into a directory.",
    ),
    "import": ("biarena.cli.import_cmd:app", "Import a published benchmark into biarena's native format."),
    "synth": ("biarena.cli.synth_cmd:app", "Business database simulator."),
    "suite": ("biarena.cli.suite_cmd:app", "Build benchmark suites over simulated business databases."),
    "generate": ("biarena.cli.generate_cmd:app", "Generate benchmark questions."),
    "validate": (
        "biarena.cli.validate_cmd:validate",
        "Review the questions nobody has decided on: a accept, e edit, r reject, s skip, q quit.",
    ),
    "audit": (
        "biarena.cli.audit_cmd:audit",
        "Check every gold query: failures, empty results, string aggregates, ties, missing ORDER BY, clock.",
    ),
    "load": (
        "biarena.cli.load_cmd:load",
        "Load the benchmark's databases into a server, so `biarena run --db-url` can use them.",
    ),
    "run": (
        "biarena.cli.run_cmd:command",
        "Run a system over a benchmark; a killed run resumes where it stopped, and a wider selection grows it.",
    ),
    "score": (
        "biarena.cli.score_cmd:score",
        "Score a run (execution, SER, execution accuracy, semantic and result similarity), and judge it with --judge.",
    ),
    "campaign": (
        "biarena.cli.campaign_cmd:campaign",
        "Run a campaign: each cell of the plan's matrix is a run file, each scorer on it a work unit.",
    ),
    "merge": (
        "biarena.cli.merge_cmd:merge",
        "Join campaign folders into one: their units, runs and results, each answer and result kept once.",
    ),
    "show": (
        "biarena.cli.show_cmd:show",
        "Show runs' scores by category, by language and overall, and judges' scores by question type and dimension.",
    ),
    "export": ("biarena.cli.export_cmd:export", "Export one row per question of each run."),
    "report": (
        "biarena.cli.report_cmd:report",
        "Write a report of runs: summary, arena leaderboard, tables with 95% intervals, charts, tests, every answer.",
    ),
    "judge": ("biarena.cli.judge_cmd:app", "Measure how far to trust a judge."),
    "tools": (
        "biarena.cli.tools_cmd:app",
        "The database tools a run gives a system that queries the database itself (-O tools=true).",
    ),
    "model": ("biarena.cli.model_cmd:app", "Serve a model as an OpenAI-compatible endpoint on this machine."),
    "arena": (
        "biarena.cli.arena_cmd:app",
        "Blind pairwise human evaluation of runs, with a Bradley-Terry leaderboard.",
    ),
    "describe": (
        "biarena.cli.describe_cmd:describe",
        "List the agents, importers, built-in benchmarks or scorers, or the options one takes.",
    ),
}
"""Each command: where it lives ("module:attribute", a Typer app or a function) and the start of its help, shown in
`biarena --help` without importing the command (a test keeps it the start of the command's own help)."""

TOP_HELP = "Benchmark, judge and rank AI data analysts on SQL databases."
"""What `biarena --help` says under its usage line."""

ROOT_OPTIONS: tuple[tuple[str, str], ...] = (
    ("--version", "Print the version and exit."),
    ("--help", "Show this message and exit."),
)
"""The top-level options and their help, in the order `biarena --help` lists them."""
