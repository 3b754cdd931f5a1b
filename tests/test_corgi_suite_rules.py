"""Questions about the simulator's relational rules ask only about real tendencies and levers: a key kept
consistent on every row, or a column defined the same way on every row, is no finding."""

from biarena.generate.corgi_suite.common import is_definition
from biarena.generate.corgi_suite.rule_questions import MATCH_TENDENCY, rule_questions
from biarena.synth import vertical_names, vertical_spec
from biarena.synth.spec import Rule


def test_match_questions_only_for_tendencies_and_in_plain_words() -> None:
    asked = []
    for name in vertical_names():
        spec = vertical_spec(name)
        for draft in rule_questions(spec):
            if draft.form != "match-why":
                continue
            share = float(draft.evidence["parameters"]["match"].get("share", 1.0))
            assert share < MATCH_TENDENCY, draft.text
            assert f"about {share * 100:.0f} in 100" in draft.reference
            assert " a a" not in draft.reference and "same merchant" not in draft.text
            asked.append(draft.text)
    assert "Why do most orders have restaurants from the same city as their customers?" in asked
    assert "Why do most vehicles have the same market as their hosts?" in asked


def test_a_rule_true_on_every_row_is_a_definition() -> None:
    assert is_definition(Rule(name="t", table="o", column="c", when="1 = 1", then={"expr": "a + b"}))
    assert is_definition(Rule(name="t", table="o", column="c", when=" TRUE ", then=1))
    assert not is_definition(Rule(name="t", table="o", column="c", when="a > 1", then=1, otherwise=0))
    spec = vertical_spec("ecommerce_enablement")
    rules = {rule.name: rule for rule in spec.rules}
    if "tax_added_at_checkout" in rules:
        assert is_definition(rules["tax_added_at_checkout"])
    assert not is_definition(rules["sales_tax_by_region"])
