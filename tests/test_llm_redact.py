"""The redaction step: URLs' userinfo and query values, headers and fields named like keys, bearer tokens and every
key the process has read; and the model options that would store a key, refused in one line that does not quote
it."""

import pytest

from biarena.errors import UsageError
from biarena.llm import resolve_model
from biarena.llm.redact import (
    MASK,
    is_key_name,
    redact,
    redact_headers,
    redact_text,
    redact_url,
    remember_secret,
    url_key_part,
)


def test_urls_lose_their_userinfo_and_query_values_and_are_otherwise_untouched() -> None:
    assert redact_url("http://user:pw@host:8000/v1") == f"http://{MASK}@host:8000/v1"
    assert redact_url("https://h/v1?api-key=abc&api-version=1") == f"https://h/v1?api-key={MASK}&api-version={MASK}"
    assert redact_url("http://127.0.0.1:8000/v1/") == "http://127.0.0.1:8000/v1/"
    assert url_key_part("http://u:p@h/v1") == "user:password@"
    assert url_key_part("http://h/v1?api-key=x") == "?api-key="
    assert url_key_part("http://h/v1?api-version=1") is None and url_key_part("http://h/v1") is None


@pytest.mark.parametrize("name", ["Authorization", "api-key", "X-Api-Key", "x-goog-api-key", "access_token", "Cookie"])
def test_names_that_carry_keys(name: str) -> None:
    assert is_key_name(name)


@pytest.mark.parametrize("name", ["X-Route", "X-Title", "HTTP-Referer", "api-version", "max_tokens", "owned_by"])
def test_names_that_do_not(name: str) -> None:
    assert not is_key_name(name)


def test_text_and_data_lose_every_key_read() -> None:
    remember_secret("zz-remembered-4242")
    text = "HTTP 401: bad key zz-remembered-4242 from Bearer abc.def at http://me:pw@h/v1?token=t"
    assert redact_text(text) == f"HTTP 401: bad key {MASK} from Bearer {MASK} at http://{MASK}@h/v1?token={MASK}"
    entry = {"id": "m", "owned_by": "org-zz-remembered-4242", "metadata": {"api_key": "other", "n": 3}, "l": ["x"]}
    assert redact(entry) == {"id": "m", "owned_by": f"org-{MASK}", "metadata": {"api_key": MASK, "n": 3}, "l": ["x"]}
    assert redact_headers({"X-Api-Key": "k", "X-Route": "blue"}) == {"X-Api-Key": MASK, "X-Route": "blue"}


@pytest.mark.parametrize(
    ("pairs", "said"),
    [
        (["base_url=http://u:sk-hidden-1@h/v1"], "holds a key (user:password@)"),
        (["base_url=http://h/v1?api-key=sk-hidden-1"], "holds a key (?api-key=)"),
        (["base_url=http://h/v1?api-version=sk-hidden-1"], "has a query"),
        (["extra_headers=Authorization=Bearer sk-hidden-1"], "'Authorization' carries a key"),
        (["extra_headers=X-Other=Bearer sk-hidden-1"], "'X-Other' carries a key"),
        (["extra_query=key=sk-hidden-1"], "'key' carries a key"),
        (["api_key_env=sk-hidden-1"], "not the key itself"),
        (["key_headers=api-key=sk-hidden-1"], "not the key itself"),
    ],
)
def test_options_that_would_store_a_key_are_refused_without_quoting_it(pairs: list[str], said: str) -> None:
    with pytest.raises(UsageError) as refused:
        resolve_model("openai:m@http://h/v1" if "base_url" not in pairs[0] else "openai:m", pairs)
    message = str(refused.value)
    assert said in message and "sk-hidden-1" not in message and "\n" not in message


def test_a_key_in_the_model_string_is_refused_too() -> None:
    with pytest.raises(UsageError, match=r"URL http://\*\*\*@h/v1 holds a key.*api_key_env") as refused:
        resolve_model("openai:m@http://me:sk-hidden-2@h/v1")
    assert "sk-hidden-2" not in str(refused.value)


def test_a_header_key_from_the_environment_is_accepted() -> None:
    options = resolve_model("openai:m@http://h/v1", ["key_headers=api-key=AZURE_KEY", "extra_query=api-version=1"])
    assert options.key_headers == {"api-key": "AZURE_KEY"} and options.extra_query == {"api-version": "1"}
