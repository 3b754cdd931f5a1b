"""Prompt-lookup drafting: which tokens are guessed from a context (pure Python, no model)."""

from biarena.llm.prompt_lookup import draft_tokens


def test_the_tokens_after_an_earlier_occurrence_of_the_last_tokens_are_drafted() -> None:
    # "FROM orders o" was read in the schema; the reply just wrote "FROM orders"
    context = [1, 2, 30, 31, 32, 33, 9, 9, 30, 31]
    assert draft_tokens(context, 2) == [32, 33]


def test_a_draft_stops_at_the_limit_and_at_the_end_of_the_context() -> None:
    context = [5, 6, 7, 8, 9, 5, 6]
    assert draft_tokens(context, 2) == [7, 8]
    assert draft_tokens([5, 6, 7, 5, 6], 10) == [7, 5, 6]


def test_a_longer_match_wins_over_a_later_shorter_one() -> None:
    # the last three tokens [3, 4, 7] occurred at the start; [4, 7] alone occurred later, followed by other tokens
    context = [3, 4, 7, 100, 101, 4, 7, 200, 3, 4, 7]
    assert draft_tokens(context, 2) == [100, 101]


def test_the_latest_occurrence_wins_among_equally_long_matches() -> None:
    context = [3, 4, 10, 11, 3, 4, 20, 21, 3, 4]
    assert draft_tokens(context, 2) == [20, 21]


def test_no_earlier_occurrence_or_no_room_drafts_nothing() -> None:
    assert draft_tokens([1, 2, 3, 4], 5) == []
    assert draft_tokens([], 5) == []
    assert draft_tokens([7], 5) == []
    assert draft_tokens([7, 8, 7, 8], 0) == []


def test_a_single_recurring_token_is_looked_up_only_when_asked() -> None:
    context = [1, 9, 2, 3, 9]  # only the single token 9 occurred before
    assert draft_tokens(context, 2) == []
    assert draft_tokens(context, 2, min_ngram=1) == [2, 3]


def test_a_repeating_pattern_drafts_its_continuation() -> None:
    context = [1, 2, 3, 1, 2, 3, 1, 2]
    assert draft_tokens(context, 4) == [3, 1, 2]
