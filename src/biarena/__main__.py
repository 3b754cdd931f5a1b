"""`python -m biarena` runs the command line."""

from biarena.cli import main

main()
