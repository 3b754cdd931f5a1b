"""A structured request keeps its schema's property order, so a reason can be asked for before its verdict."""

from biarena.llm.types import ChatRequest


def test_properties_keep_the_order_they_are_written_in() -> None:
    schema = {
        "type": "object",
        "properties": {"reason": {"type": "string"}, "verdict": {"enum": ["yes", "no"]}},
        "required": ["reason", "verdict"],
    }
    request = ChatRequest.make([{"role": "user", "content": "x"}], schema=schema)
    assert list(request.schema_dict()["properties"]) == ["reason", "verdict"]
    assert request.schema.index('"reason"') < request.schema.index('"verdict"')


def test_the_grammar_the_local_model_follows_asks_for_the_reason_first() -> None:
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    schema = {
        "type": "object",
        "properties": {"reason": {"type": "string"}, "verdict": {"enum": ["yes", "no"]}},
        "required": ["reason", "verdict"],
    }
    request = ChatRequest.make([{"role": "user", "content": "x"}], schema=schema)
    grammar = json_schema_to_gbnf(request.schema)
    root = next(line for line in grammar.splitlines() if line.startswith("root ::="))
    assert root.index("reason") < root.index("verdict")
