"""BI-Bench's four analytical categories and three complexity levels, as the generation prompts describe them."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Level:
    """One complexity level of a category: what it asks for, with an example."""

    meaning: str
    example: str


@dataclass(frozen=True)
class Category:
    """One analytical category: its definition and its three levels."""

    definition: str
    levels: dict[str, Level]


COMPLEXITIES = ("basic", "intermediate", "advanced")
"""BI-Bench's complexity levels, by the reasoning and joins a question needs."""

CATEGORIES: dict[str, Category] = {
    "descriptive": Category(
        "They ask what happened: summaries of historical data such as totals, averages, comparisons, trends over "
        "time and breakdowns by business dimensions. They do not explore reasons, drivers, impacts, correlations or "
        'causality: avoid "why", "what influences", "what causes", "impact of".',
        {
            "basic": Level("simple aggregations, counts and summaries.", "What was the total revenue?"),
            "intermediate": Level(
                "multi-dimensional summaries or comparisons.",
                "How did sales vary across regions and product categories?",
            ),
            "advanced": Level(
                "granular breakdowns, trend analysis over time, or customer segmentation.",
                "Which customer segments contributed most to quarterly growth in product sales?",
            ),
        },
    ),
    "diagnostic": Category(
        "They ask why something happened: the drivers, causes, correlations and contributing factors behind a "
        "result or a change, found by comparing segments, periods and related measures in the data.",
        {
            "basic": Level("one factor behind one measure.", "Do orders with a discount have a higher average value?"),
            "intermediate": Level(
                "a change or difference explained through a few related dimensions.",
                "Which product categories explain the drop in sales between the last two months?",
            ),
            "advanced": Level(
                "several interacting factors across related data, over time or segments.",
                "What combination of customer tenure, region and delivery delay drives repeat purchases?",
            ),
        },
    ),
    "predictive": Category(
        "They ask what is likely to happen: forecasts, expected values, likely outcomes or risks, estimated from "
        "historical patterns in the data.",
        {
            "basic": Level(
                "a simple projection of one measure from its history.",
                "How many new customers should we expect next month?",
            ),
            "intermediate": Level(
                "a projection by segment, or a likely outcome from a few factors.",
                "Which regions are likely to grow their sales fastest next quarter?",
            ),
            "advanced": Level(
                "forecasts that combine trends, seasonality and segments, or that rank risks.",
                "Which customers are most at risk of not ordering again, given their recent activity?",
            ),
        },
    ),
    "prescriptive": Category(
        "They ask what should be done: recommended actions, priorities, allocations or optimizations, justified "
        "by what the data shows.",
        {
            "basic": Level(
                "one recommended action drawn from one measure.",
                "Which product should we promote to increase revenue?",
            ),
            "intermediate": Level(
                "a recommendation that weighs a few dimensions.",
                "Where should we add delivery staff, given order volumes and delays by area?",
            ),
            "advanced": Level(
                "a strategy or allocation that balances several measures and segments.",
                "How should we split the marketing budget across channels and customer segments to grow retention?",
            ),
        },
    ),
}
"""BI-Bench's categories by name."""
