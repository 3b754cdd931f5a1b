"""Acme's extensions of biarena: an agent, a scorer, an importer and a result contract."""
