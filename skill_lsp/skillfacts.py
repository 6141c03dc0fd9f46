"""A SKILL.md's facts: the little of it that registries, listings and cross-file rules read, small and picklable so that check takes them from its cache or a worker process instead of parsing the file again."""

from __future__ import annotations

from .model import Span
from .runtimes import lenient_bool
from .skillfile import SkillFile

__all__ = ["RawSpan", "SkillFacts"]


RawSpan = tuple[int, int, int, int]  # a span as four numbers: start line and column, end line and column


class SkillFacts:
    """What registries and cross-file rules read of a SKILL.md: small and picklable, so that
    `check` can take it from its cache or a worker process instead of parsing the file.

    Its spans are kept as four numbers and made Spans when first read: only the findings other
    files' rules put on this one read them, and making them cost more than the rest of the facts."""

    __slots__ = ("_first_line", "_name_span", "description", "first_line_raw", "ignores", "name", "name_span_raw",
                 "plain", "unlisted", "when_to_use")

    def __init__(self, name: str | None, name_span_raw: RawSpan | None, first_line_raw: RawSpan,
                 ignores: dict[int, set[str]], description: str | None = None, plain: bool = False,
                 when_to_use: str | None = None, unlisted: bool = False) -> None:
        self.name = name  # the frontmatter name, when it is a string
        self.name_span_raw = name_span_raw  # the value span of `name:`, when the key is there
        self.first_line_raw = first_line_raw
        self.ignores = ignores
        # the frontmatter description, when it is a string: completion and hovers show it for every
        # skill they offer, which should not mean reading every file again
        self.description = description
        # the lines of both spans are ASCII up to the spans' ends: their columns are the same in every
        # position encoding, and a workspace symbol is placed without reading the file again
        self.plain = plain
        self.when_to_use = when_to_use  # what Claude Code's listing adds to the description (listing.py)
        self.unlisted = unlisted  # `disable-model-invocation: true`: not in the model's listing
        self._name_span: Span | None = None
        self._first_line: Span | None = None

    @classmethod
    def of(cls, file: SkillFile) -> SkillFacts:
        # what a lenient loader reads (Claude Code's recovery of a YAML error): the name and description
        # its listing shows; strict loaders' verdicts come from the file's own rules
        # (file.lenient_str for each field, without the calls: every skill of a cold check makes its facts)
        fields = file.lenient_fields
        entry = fields.get("name")
        name = None
        name_span = None
        first = file.line(0)  # (file.lines, split on first use, only when a name's lines are not ASCII)
        ascii_text = file.text.isascii()
        plain = ascii_text or first.isascii()
        if entry is not None:
            name = entry.value if isinstance(entry.value, str) else None
            name_span = entry.value_raw()
            start, end = name_span[0], name_span[2]
            if ascii_text:
                pass  # every line is ASCII
            elif plain and start == end and (end <= (file.close_line or 0) or end < file.line_count()):
                # a name on one line (of the frontmatter, as the name's always is): the line up to its end
                plain = file.line(end)[: name_span[3]].isascii()
            elif plain:
                lines = file.lines
                plain = all(lines[line][: name_span[3] if line == end else None].isascii()
                            for line in range(start, min(end + 1, len(lines))))
        entry = fields.get("description")
        description = entry.value if entry is not None and isinstance(entry.value, str) else None
        entry = fields.get("when_to_use")
        when_to_use = entry.value if entry is not None and isinstance(entry.value, str) else None
        entry = fields.get("disable-model-invocation")
        unlisted = entry is not None and lenient_bool(entry.value) is True
        return cls(name, name_span, (0, 0, 0, len(first)), file.ignores,  # file.line_span(0)
                   description, plain, when_to_use, unlisted)

    @property
    def name_span(self) -> Span | None:
        if self._name_span is None and self.name_span_raw is not None:
            self._name_span = Span.of(*self.name_span_raw)
        return self._name_span

    @property
    def first_line(self) -> Span:
        if self._first_line is None:
            self._first_line = Span.of(*self.first_line_raw)
        return self._first_line

    def _key(self) -> tuple[object, ...]:
        return self.name, self.name_span_raw, self.first_line_raw, self.ignores, self.description, self.plain, \
            self.when_to_use, self.unlisted

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SkillFacts) and self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (f"SkillFacts(name={self.name!r}, name_span={self.name_span!r}, first_line={self.first_line!r}, "
                f"ignores={self.ignores!r}, description={self.description!r})")
