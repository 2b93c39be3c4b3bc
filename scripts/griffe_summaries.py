"""The griffe extensions of the API reference (mkdocs.yml): each docstring's first line becomes
its first sentence, and each constructor is shown.

mkdocstrings shows the first line of a docstring as the summary of a member, and the stubs'
docstrings wrap at 100 columns, so a summary stopped mid-sentence ("at most concurrency at a").
Here the first paragraph is rejoined and broken after its first sentence: a line break inside a
Markdown paragraph renders as a space, so the page shows the same text, and the summary tables
show a whole sentence.

The native classes are made by ``__new__`` (the stubs say so, as the extension does), and
mkdocstrings shows a constructor only as ``__init__`` (``merge_init_into_class``): for a class
with a ``__new__`` and no ``__init__``, ``NewAsInit`` gives the reference an ``__init__`` with the
same parameters (the instance first, as ``self``) and docstring, so the class's signature and
its parameters (``timeout``, ``mirrors``, ``max_connections``...) appear on its entry."""

from __future__ import annotations

import re
from typing import Any

import griffe

#: The end of a sentence: ".", "!" or "?" (after a word, a closing quote, bracket or
#: backquote), then a space and what starts a sentence. "e.g." and "i.e." do not end one.
SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<=[\w)`\"'][.!?])\s+(?=[A-Z`\"(])")
#: A line that starts a block Markdown would not fold into the paragraph.
BLOCK = re.compile(r"^\s*([-*+|>#]|\d+\.\s|```|    )")


def first_sentence_first(text: str) -> str:
    """The docstring with its first paragraph on two lines: its first sentence, then the rest."""
    head, sep, rest = text.partition("\n\n")
    lines = head.splitlines()
    if not lines or any(BLOCK.match(line) for line in lines[1:]):
        return text
    joined = " ".join(line.strip() for line in lines)
    parts = SENTENCE_END.split(joined, maxsplit=1)
    return "\n".join(parts) + sep + rest


class FirstSentenceSummaries(griffe.Extension):
    """Applies ``first_sentence_first`` to every docstring of the loaded package."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        self._visit(pkg, set())

    # griffe before 1.13 calls it this.
    on_package_loaded = on_package

    def _visit(self, obj: griffe.Object, seen: set[str]) -> None:
        if obj.path in seen:
            return
        seen.add(obj.path)
        if obj.docstring is not None:
            obj.docstring.value = first_sentence_first(obj.docstring.value)
        for member in obj.members.values():
            if not member.is_alias:
                self._visit(member, seen)  # type: ignore[arg-type]


class NewAsInit(griffe.Extension):
    """A class made by ``__new__`` alone gets an ``__init__`` like it (see the module's text)."""

    def on_class_members(self, *, cls: griffe.Class, **kwargs: Any) -> None:
        new = cls.members.get("__new__")
        if not isinstance(new, griffe.Function) or "__init__" in cls.members:
            return
        params = list(new.parameters)
        if params:
            first = params[0]
            params[0] = griffe.Parameter("self", annotation=None, kind=first.kind)
        init = griffe.Function(
            "__init__",
            lineno=new.lineno,
            endlineno=new.endlineno,
            parameters=griffe.Parameters(*params),
            returns="None",
            docstring=new.docstring,
        )
        cls.set_member("__init__", init)
