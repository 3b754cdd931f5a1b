"""Speculative decoding of the embedded model gives the plain reply: short replies that copy from their prompt."""

import json

import pytest

from biarena.llm import ChatRequest
from tests.run_helpers import require_embedded_model

pytestmark = [pytest.mark.real_model, pytest.mark.slow]

SCHEMA_PROMPT = [
    {"role": "system", "content": "You are an expert SQL analyst. Write SQLite SQL."},
    {
        "role": "user",
        "content": "Tables: sales_orders(order_id, customer_id, order_date, total_amount), "
        "customers(customer_id, customer_name, region). Write one query for the total amount per region.",
    },
]

QUERY_SCHEMA = {
    "type": "object",
    "properties": {"tables": {"type": "array", "items": {"type": "string"}}, "sql": {"type": "string"}},
    "required": ["tables", "sql"],
}


@pytest.fixture(scope="module")
def providers():
    require_embedded_model()
    from biarena.llm.local_provider import LocalProvider

    return LocalProvider(draft=0), LocalProvider(draft=2)


@pytest.mark.parametrize(
    ("schema", "temperature"),
    [
        pytest.param(
            None,
            0.0,
            # a batch's logits differ from a single token's in the last bits; here they flip a near tie
            # ("Here's the query" / "Here's a query"): docs/performance.md gives the rate
            marks=pytest.mark.xfail(reason="batched logits flip a near tie on this prompt", strict=False),
        ),
        (QUERY_SCHEMA, 0.0),
        (None, 0.8),
    ],
    ids=["text", "json-schema", "sampled"],
)
def test_a_speculative_reply_is_the_plain_reply(providers, schema, temperature) -> None:
    plain, speculative = providers
    request = ChatRequest.make(SCHEMA_PROMPT, max_tokens=40, temperature=temperature, schema=schema, seed=3)
    # both replies start from the prompt already evaluated: a prompt evaluated from scratch ends in a long batch,
    # a reused one in a batch of one token, and the two can differ in the last bits of the first token's logits
    plain.complete(request)
    counts = speculative.llama.draft_counts
    drafted = counts.drafted
    expected = plain.complete(request)
    got = speculative.complete(request)
    assert got.text == expected.text
    assert got.completion_tokens == expected.completion_tokens
    assert counts.drafted > drafted  # drafts were checked: the speculative path ran
    if schema is not None and expected.finish_reason == "stop":
        assert set(json.loads(got.text)) == {"tables", "sql"}
