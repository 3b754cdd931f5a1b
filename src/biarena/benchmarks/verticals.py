"""CORGI's ten verticals under every name they go by: biarena's (`app_store`), hyphenated, and CORGI's folders."""

import re

CORGI_FOLDERS: dict[str, str] = {
    "food_delivery": "food-delivery",
    "home_rental": "home-rental",
    "clothing_ecommerce": "clothing-e-commerce",
    "freelancing": "freelancing-marketplace",
    "app_store": "app-store",
    "car_rental": "car-rental",
    "luxury_consignment": "luxury-consignment",
    "user_analytics": "user-analytics",
    "personalized_product": "personalized-product",
    "ecommerce_enablement": "e-commerce-enablement",
}
"""biarena's vertical name -> the folder CORGI publishes it in."""


def name_key(name: str) -> str:
    """A vertical name reduced to letters and digits, so `app-store`, `app_store` and `App Store` compare equal."""
    return re.sub(r"[^a-z0-9]+", "", name.lower())


_ALIASES = {name_key(alias): name for name, folder in CORGI_FOLDERS.items() for alias in (name, folder)}


def canonical_vertical(name: str) -> str | None:
    """biarena's name for a CORGI vertical given any of its names (`freelancing-marketplace` -> `freelancing`)."""
    return _ALIASES.get(name_key(name))


def same_vertical(a: str, b: str) -> bool:
    """True when two names denote the same vertical (aliases, hyphens and case aside)."""
    return name_key(a) == name_key(b) or (canonical_vertical(a) or a) == (canonical_vertical(b) or b)
