"""The `acme-loose` result contract: the right rows in any order, each counted once."""

from biarena.metrics.contracts import ResultContract

LOOSE = ResultContract(
    "acme-loose",
    "Acme's rule: rows as a set, order never matters, any column order, numbers exactly",
    rows="set",
    order="never",
)
