"""CORGI's schema figures (CORGI, Table 1): tables, columns per table and foreign keys of each vertical's
published database, the size a simulated vertical is measured against."""

from dataclasses import dataclass


@dataclass(frozen=True)
class SchemaFigures:
    """How big a schema is: tables, average columns per table, foreign-key relationships."""

    tables: int
    columns_per_table: float
    foreign_keys: int


CORGI_FIGURES: dict[str, SchemaFigures] = {
    "food_delivery": SchemaFigures(30, 4.0, 25),
    "home_rental": SchemaFigures(18, 4.3, 25),
    "clothing_ecommerce": SchemaFigures(34, 3.9, 40),
    "freelancing": SchemaFigures(25, 3.8, 33),
    "app_store": SchemaFigures(18, 4.3, 22),
    "car_rental": SchemaFigures(30, 6.7, 68),
    "luxury_consignment": SchemaFigures(30, 6.5, 65),
    "user_analytics": SchemaFigures(20, 7.5, 25),
    "personalized_product": SchemaFigures(28, 7.8, 38),
    "ecommerce_enablement": SchemaFigures(23, 7.0, 60),
}
"""By built-in vertical name."""
