"""The frontmatter composer (libyaml without a loader's resolver machinery) gives the nodes,
tags and marks PyYAML's safe loader gives, and its values construct alike."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from skill_lsp import skillfile
from skill_lsp.skillfile import parse_skill

pytestmark = pytest.mark.skipif(not getattr(yaml, "__with_libyaml__", False), reason="PyYAML built without libyaml")

# plain scalars that SafeLoader reads as null, bool, int, float, timestamp, merge or value, and
# strings that merely start like them
SCALARS = [
    "", "~", "null", "Null", "NULL", "true", "True", "yes", "No", "off", "On", "y", "n", "0", "-1", "+3", "0x1f",
    "0o17", "1_000", "1.5", ".5", "-.inf", ".NaN", "1e3", "2024-01-02", "2024-01-02 10:20:30", "<<", "=",
    "nothing", "trueish", "0abc", "-dash", "+plus", ".dot", "~tilde", "!bang", "&amp", "*star", "plain words",
    "Use when", "yesterday", "ñame", "日本", "12:30", "1:2:3",
]
scalar = st.sampled_from(SCALARS) | st.text(min_size=0, max_size=12)


def _render(value: str, style: str) -> str:
    if style == "plain":
        return value
    if style == "single":
        return "'" + value.replace("'", "''") + "'"
    if style == "double":
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return "!!str " + value


documents = st.lists(
    st.tuples(st.sampled_from(["name", "description", "license", "metadata", "allowed-tools", "x"]), scalar,
              st.sampled_from(["plain", "single", "double", "tagged", "list", "map", "flat list", "flat map"])),
    max_size=6,
).map(lambda items: "".join(
    f"{key}: {_render(value, style)}\n" if style in ("plain", "single", "double", "tagged")
    else f"{key}:\n  - {value}\n  - [{value}, {value}]\n" if style == "list"
    else f"{key}:\n  inner: {value}\n  {value or 'k'}: {{a: {value}}}\n" if style == "map"
    else f"{key}: [{value}, '{value}']\n" if style == "flat list"
    else f"{key}:\n  inner: {value}\n  {value or 'k'}: '{value}'\n"
    for key, value, style in items
))


def _shape(node: Any) -> Any:
    """A node as comparable data: its type, tag, marks and children."""
    if node is None:
        return None
    marks = (node.start_mark.index, node.start_mark.line, node.start_mark.column,
             node.end_mark.index, node.end_mark.line, node.end_mark.column)
    if isinstance(node, yaml.MappingNode):
        value: Any = [(_shape(key), _shape(item)) for key, item in node.value]
    elif isinstance(node, yaml.SequenceNode):
        value = [_shape(item) for item in node.value]
    else:
        value = node.value
    return type(node).__name__, node.tag, marks, value


def _outcome(compose: Any, source: str) -> Any:
    try:
        return _shape(compose(source))
    except yaml.YAMLError as error:
        return type(error).__name__, str(error)


@settings(max_examples=400, deadline=None)
@given(documents)
def test_the_composer_gives_the_safe_loaders_nodes(source: str) -> None:
    expected = _outcome(lambda text: yaml.compose(text, Loader=yaml.CSafeLoader), source)
    assert _outcome(skillfile._compose, source) == expected


@settings(max_examples=300, deadline=None)
@given(scalar)
@example("!")  # a non-specific tag on an empty scalar: a string for libyaml, null for pure-Python PyYAML
@example("")
@example("yes")
@example(".NaN")
@example("2024-01-02")
def test_a_plain_scalar_is_typed_as_the_safe_loader_types_it(value: str) -> None:
    source = f"name: {value}\n"
    try:
        # libyaml's safe loader (the pure-Python one differs on a few inputs: `!` alone is null there)
        expected = yaml.load(source, Loader=yaml.CSafeLoader)
    except yaml.YAMLError:
        return
    parsed = parse_skill(f"---\n{source}---\n")
    if not isinstance(expected, dict) or "name" not in expected:
        return
    value_read = parsed.fields["name"].value
    assert (type(value_read), repr(value_read)) == (type(expected["name"]), repr(expected["name"]))  # NaN != NaN


@settings(max_examples=400, deadline=None)
@given(documents)
@example("metadata:\n  a: x\n  a: y\n  b: '1'\n")  # a repeated key: the last value, as a loader keeps
@example("metadata: {a: x, <<: {b: y}}\n")  # a merge key: not a plain mapping
@example("allowed-tools: [Read, 'Bash(git:*)', !!str 3]\n")
@example("allowed-tools: [Read, 3]\n")
@example("metadata: !!map {a: b}\nx: !!seq [a]\n")
def test_frontmatter_values_are_what_the_safe_loader_loads(source: str) -> None:
    try:
        expected = yaml.load(source, Loader=yaml.CSafeLoader)
    except yaml.YAMLError:
        return
    if not isinstance(expected, dict):
        return
    parsed = parse_skill(f"---\n{source}---\n")
    values = {key: field.value for key, field in parsed.fields.items()}
    assert repr(values) == repr(expected)  # repr: NaN != NaN


def test_frontmatter_values_keep_their_yaml_types() -> None:
    parsed = parse_skill("---\nname: 'yes'\ndescription: yes\nversion: 1.10\nlicense: null\ndate: 2024-01-02\n"
                         "metadata: {a: 1, b: [x, ~]}\n---\n")
    values = {key: field.value for key, field in parsed.fields.items()}
    assert values["name"] == "yes"
    assert values["description"] is True
    assert values["version"] == 1.1
    assert values["license"] is None
    assert str(values["date"]) == "2024-01-02"
    assert values["metadata"] == {"a": 1, "b": ["x", None]}
