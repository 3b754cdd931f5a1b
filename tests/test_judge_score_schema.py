"""A judge's score is held to its scale by the grammar the local model follows, not only by validation after."""

import json
import re

from biarena.judges.corgi import scores_schema
from biarena.judges.reference import INTERPRETIVE_SCHEMA
from biarena.judges.rubric import corgi_rubric, load_builtin_rubric
from biarena.judges.score_schema import score_schema


def grammar(schema: dict) -> str:
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    return json_schema_to_gbnf(json.dumps(schema))


def allowed_scores(text: str, rule: str) -> list[int]:
    line = next(line for line in text.splitlines() if line.startswith(f"{rule} ::="))
    return [int(value) for value in re.findall(r'"(-?\d+)"', line.split("::=", 1)[1])]


def test_a_scale_is_every_integer_from_its_low_to_its_high_end() -> None:
    assert score_schema(0, 5) == {"type": "integer", "enum": [0, 1, 2, 3, 4, 5]}
    assert score_schema(1, 3)["enum"] == [1, 2, 3]


def test_corgi_scores_can_only_be_written_on_the_rubric_s_scale() -> None:
    rubric = corgi_rubric(load_builtin_rubric("corgi.yaml").data)
    keys = [m.key for d in rubric.dimensions for m in d.sub_metrics if m.computed is None][:2]
    text = grammar(scores_schema(rubric, keys[:1], keys[1:]))
    assert "integral-part" not in text  # no free integer anywhere: -100 cannot be written
    low, high = rubric.scale
    rules = [line.split(" ::=")[0] for line in text.splitlines()]
    scales = [rule for rule in rules if rule.endswith(("-score", "-score-0")) and allowed_scores(text, rule)]
    assert len(scales) == 2  # one per sub-metric; the optional one may also be null
    for rule in scales:
        assert allowed_scores(text, rule) == list(range(low, high + 1))


def test_the_reference_judge_s_score_is_one_to_five_in_the_grammar() -> None:
    text = grammar(INTERPRETIVE_SCHEMA)
    assert "integral-part" not in text
    assert allowed_scores(text, "score") == [1, 2, 3, 4, 5]
