"""The Python API: what the command line does, as functions a notebook calls (`import biarena`, then
`biarena.run(...)`). Each function calls the command's own code, so options, defaults and errors are the CLI's."""

from biarena.api_functions import API_FUNCTIONS
from biarena.lazy_exports import lazy_exports

__getattr__, __dir__ = lazy_exports(__name__, {name: name for name in API_FUNCTIONS})
