"""PROVIDERS: the model providers by the prefix of a model string, each class imported on first use."""

from typing import Any

from biarena.registry import Registry

PROVIDERS: Registry[Any] = Registry(
    "model provider",
    {
        "local": "biarena.llm.local_provider:LocalProvider",
        "openai": "biarena.llm.openai_provider:OpenAIProvider",
        "mock": "biarena.llm.mock_provider:MockProvider",
    },
    group="biarena.providers",
)
"""Providers by the prefix of a model string: `local`, `local:/path.gguf`, `openai:MODEL[@URL]`, `mock`; plugins add
theirs through the `biarena.providers` entry points. A provider is a class with
`from_options(options: ModelOptions, cache_dir: Path, **extra) -> Provider`, and `Options`, the options model
`describe model` lists for it."""
