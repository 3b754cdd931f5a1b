"""Options several commands share."""

import typer

DB_URL = typer.Option(None, "--db-url", help="Read every benchmark database from this URL (e.g. a PostgreSQL server).")
TIMEOUT = typer.Option(30.0, "--timeout", help="Time limit per SQL statement, in seconds.", min=0.01)
