"""Options models: `-O NAME=VALUE` pairs and options files read by each field's type, one-line errors, `describe`."""

from pathlib import Path
from typing import Annotated, Literal

import pytest
from pydantic import Field

from biarena.agents import SYSTEMS, make_system
from biarena.benchmarks import BUILTINS, IMPORTERS
from biarena.cli.options import gather_options, read_options_file
from biarena.cli.run_cmd import agent_options
from biarena.errors import FormatError, NotFoundError, UsageError
from biarena.llm import MockProvider, Model
from biarena.options import (
    NoOptions,
    Options,
    Shown,
    describe_options,
    options_model,
    parse_option_pairs,
    takes,
    validate_options,
)


class Sample(Options):
    """Every kind of option the command line reads."""

    target: Path
    """Where it goes."""
    count: int = Field(3, ge=1)
    """How many."""
    ratio: float = 0.5
    """How much."""
    loud: bool = False
    """Whether to shout."""
    tags: list[str] | None = None
    """Labels."""
    mode: Literal["fast", "slow"] = "fast"
    """How."""
    where: dict[str, str] = Field(default_factory=dict)
    """NAME=PLACE pairs."""
    size: Annotated[int, Shown("size", lambda n: f"{n // 1024}KiB")] = 2048
    """A size."""


def test_pairs_are_read_by_each_field_type() -> None:
    pairs = [
        "target=out/x",
        "count=7",
        "ratio=0.25",
        "loud=yes",
        "tags=a, b,,c",
        "mode=slow",
        "where=k=v,j=sqlite:///w",
    ]
    options = validate_options(Sample, parse_option_pairs(Sample, pairs), "sample")
    assert options.target == Path("out/x") and options.count == 7 and options.ratio == 0.25 and options.loud is True
    assert options.tags == ["a", "b", "c"] and options.mode == "slow"
    assert options.where == {"k": "v", "j": "sqlite:///w"}


def test_a_dash_in_a_name_is_an_underscore_and_a_list_or_mapping_given_again_grows() -> None:
    values = parse_option_pairs(Sample, ["count=2", "count=4", "tags=a", "tags=b,c", "where=k=1", "where=j=2"])
    assert values == {"count": "4", "tags": ["a", "b", "c"], "where": {"k": "1", "j": "2"}}
    assert parse_option_pairs(Sample, ["max-count=1"]) == {"max_count": "1"}
    with pytest.raises(UsageError, match="-O where: k is given twice"):
        parse_option_pairs(Sample, ["where=k=1", "where=k=2"])
    with pytest.raises(UsageError, match="-O count: give NAME=VALUE"):
        parse_option_pairs(Sample, ["count"])
    with pytest.raises(UsageError, match="-O where=k: give KEY=VALUE items"):
        parse_option_pairs(Sample, ["where=k"])


def test_an_unknown_name_gets_one_line_with_a_suggestion() -> None:
    with pytest.raises(UsageError) as caught:
        validate_options(Sample, {"target": "x", "cuont": "2"}, "agent 'sample'", "-O")
    message = str(caught.value)
    assert message.startswith("agent 'sample' does not take option 'cuont'; did you mean 'count'?")
    assert "\n" not in message and "its options: count, loud, mode" in message
    with pytest.raises(UsageError, match=r"agent 'gold' does not take option 'x' \(it takes none\)"):
        validate_options(NoOptions, {"x": 1}, "agent 'gold'")


@pytest.mark.parametrize(
    ("given", "fragment"),
    [
        ({"count": "many"}, "agent 'sample': -O count=many: must be a valid integer"),
        ({"count": "0"}, "-O count=0: must be greater than or equal to 1"),
        ({"ratio": "half"}, "-O ratio=half: must be a valid number"),
        ({"loud": "maybe"}, "-O loud=maybe: must be a valid boolean"),
        ({"mode": "quick"}, "-O mode=quick: must be 'fast' or 'slow'"),
        ({"count": "two words"}, "-O count='two words': must be a valid integer"),
    ],
)
def test_a_bad_value_names_the_option_the_value_and_what_it_must_be(given: dict, fragment: str) -> None:
    with pytest.raises(UsageError) as caught:
        validate_options(Sample, {"target": "x", **given}, "agent 'sample'", "-O")
    assert fragment in str(caught.value) and "\n" not in str(caught.value)


def test_a_missing_option_is_asked_for_the_way_it_is_given() -> None:
    with pytest.raises(UsageError, match=r"agent 'sample' needs -O target=VALUE \(Where it goes\)"):
        validate_options(Sample, {}, "agent 'sample'", "-O")
    with pytest.raises(UsageError, match="agent 'sample' needs option 'target'"):
        validate_options(Sample, {}, "agent 'sample'")


def test_an_options_file_is_read_and_pairs_win_over_it(tmp_path: Path) -> None:
    file = tmp_path / "options.yaml"
    file.write_text("target: out\ncount: 5\ntags: [a, b]\nmax-ratio: 1\nloud: true\n", encoding="utf-8")
    assert read_options_file(file)["max_ratio"] == 1
    file.write_text("target: out\ncount: 5\ntags: [a, b]\nloud: true\nwhere: {k: v}\n", encoding="utf-8")
    options = gather_options(Sample, "sample", ["count=6", "tags=c"], file)
    assert options.count == 6 and options.tags == ["c"] and options.loud is True and options.where == {"k": "v"}
    assert gather_options(Sample, "sample", None, file).count == 5
    empty = tmp_path / "empty.yaml"
    empty.write_text("", encoding="utf-8")
    assert gather_options(Sample, "sample", ["target=t"], empty).count == 3


def test_a_bad_options_file_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(NotFoundError, match="options file not found"):
        read_options_file(tmp_path / "none.yaml")
    listed = tmp_path / "list.yaml"
    listed.write_text("- count\n", encoding="utf-8")
    with pytest.raises(FormatError, match="an options file is a mapping of option names to values"):
        read_options_file(listed)
    broken = tmp_path / "broken.yaml"
    broken.write_text("count: [1\n", encoding="utf-8")
    with pytest.raises(FormatError, match="invalid YAML"):
        read_options_file(broken)
    typo = tmp_path / "typo.yaml"
    typo.write_text("target: x\ncout: 1\n", encoding="utf-8")
    with pytest.raises(UsageError, match="did you mean 'count'"):
        gather_options(Sample, "sample", None, typo)


def test_describe_lists_name_type_default_and_description_required_first() -> None:
    rows = {row.name: row for row in describe_options(Sample)}
    assert next(iter(rows)) == "target" and rows["target"].default == "required"
    assert (rows["count"].type, rows["count"].default, rows["count"].description) == ("int", "3", "How many.")
    assert rows["loud"].default == "false" and rows["tags"].type == "list of str (comma-separated)"
    assert rows["tags"].default == "-" and rows["mode"].type == "fast|slow" and rows["target"].type == "path"
    assert (rows["size"].type, rows["size"].default) == ("size", "2KiB")
    assert rows["where"].type == "mapping (KEY=VALUE,...)" and rows["where"].default == "-"


def test_a_factory_names_its_options_and_resolve_takes_an_object_or_keywords() -> None:
    @takes(Sample)
    def make(options: Sample | None = None, **values: object) -> Sample:
        return Sample.resolve(options, values, "maker")

    assert options_model(make) is Sample and options_model(object()) is NoOptions and options_model(Sample) is Sample
    made = make(target="t", count=2)
    assert made.count == 2 and make(made) is made
    with pytest.raises(UsageError, match="not both"):
        make(made, count=3)
    with pytest.raises(UsageError, match="takes Sample, not NoOptions"):
        make(NoOptions())


@pytest.mark.parametrize(
    "registry", [pytest.param(SYSTEMS, id="agents"), pytest.param(IMPORTERS, id="importers"), pytest.param(BUILTINS)]
)
def test_every_registered_factory_declares_each_option_with_a_description(registry: dict) -> None:
    for name, factory in registry.items():
        model = options_model(factory)
        assert issubclass(model, Options), name
        for option in describe_options(model):
            assert option.description.strip(), (name, option.name)


def test_agents_take_their_options_as_keywords_or_an_object() -> None:
    model = Model(MockProvider(["SELECT 1"]), cache=None)
    sequential = make_system("sequential", model=model, max_queries=2, short_answer=True)
    assert sequential.answer_options() == {
        "max_tokens": 450,
        "sample_rows": 2,
        "max_queries": 2,
        "answer_words": 100,
        "answer_tokens": 200,
        "short_answer": True,
    }
    options = SYSTEMS["iterative"].Options(step_limit=2)
    assert make_system("iterative", model=model, options=options).answer_options()["step_limit"] == 2
    with pytest.raises(UsageError, match="agent 'text2sql' does not take option 'retrys'; did you mean 'retries'"):
        make_system("text2sql", model=model, retrys=3)
    with pytest.raises(UsageError, match="agent 'http': option url=ftp://x: not an http:// or https:// URL"):
        make_system("http", url="ftp://x")
    with pytest.raises(NotFoundError, match="unknown agent 'sequental'; did you mean 'sequential'"):
        make_system("sequental")


def test_one_name_per_concept_for_the_query_caps() -> None:
    assert "max_queries" in SYSTEMS["sequential"].Options.model_fields
    for external in ("http", "command", "python"):
        fields = SYSTEMS[external].Options.model_fields
        assert "max_reply_queries" in fields and "max_queries" not in fields
    # the old --max-queries flag of an external system is its reply cap; -O speaks the option's own name
    assert agent_options("http", ["url=http://127.0.0.1:9/"], None, ["max_queries=3"]).max_reply_queries == 3
    with pytest.raises(UsageError, match="did you mean 'max_reply_queries'"):
        agent_options("http", ["url=http://127.0.0.1:9/", "max_queries=3"], None, None)
