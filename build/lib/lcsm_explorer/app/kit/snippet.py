"""The exported script of a page: its current settings turned into the one lcsm_core call the page makes,
and the numbers it shows printed as `name = value` lines. Pure (no streamlit); tested by running it."""
from __future__ import annotations

from .lesson import Lesson

HEADER = '''"""LCSM Explorer · {title}: the page's numbers at these settings, from lcsm_core alone.

Run it from the repository root:  python {filename}
"""
'''


def keyword_arguments(arguments: dict) -> str:
    """`name=value, ...` with every value as its Python literal: the arguments of a call in a script."""
    return ", ".join(f"{name}={value!r}" for name, value in arguments.items())


def snippet_filename(lesson: Lesson) -> str:
    return f"lcsm_{lesson.page}.py"


def snippet_script(lesson: Lesson, values: dict) -> str:
    """The script for `values` (every setting of the page); ValueError for a page without a snippet."""
    if lesson.snippet is None:
        raise ValueError(f"the {lesson.page} page has no exported script")
    call = lesson.snippet.call
    call = call(values) if callable(call) else call.format_map({name: repr(value) for name, value in values.items()})
    lines = [HEADER.format(title=f"{lesson.number} · {lesson.title}", filename=snippet_filename(lesson)),
             lesson.snippet.imports.strip(), "", "",
             'if __name__ == "__main__":              # (worker processes re-import this file: run only once)',
             f"    result = {call}"]
    lines += [f"    print({name!r}, '=', repr(float({expression})))"
              for name, expression in lesson.snippet.prints.items()]
    return "\n".join(lines) + "\n"
