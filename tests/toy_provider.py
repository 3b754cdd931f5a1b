"""A model provider written the way a new one is: this file and one PROVIDERS line (the tests add the line)."""

from pathlib import Path
from typing import Any

from biarena.llm import MockProvider, ModelOptions

QUERY = "SELECT city_id, COUNT(*) FROM sales GROUP BY city_id"


class FixedProvider(MockProvider):
    """Replies to every request with one SQL query in a fence (`fixed` or `fixed:NAME`)."""

    name = "fixed"

    @classmethod
    def from_options(cls, options: ModelOptions, cache_dir: Path, **extra: Any) -> "FixedProvider":
        """The provider the model string names."""
        return cls([f"```sql\n{QUERY}\n```"], model=options.name or "fixed")
