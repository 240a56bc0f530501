"""`literal(text)`: a string someone else wrote (a link's value, a typed model code) as Markdown that shows
it character for character — never a link, an image, HTML, math or emphasis. Pure.

Streamlit draws st.markdown / st.warning / st.error / st.caption bodies as Markdown (GFM, `$` math, bare
URLs turned into links). Backslash escapes are not enough: a bare URL is linked after escapes are read. So
the text goes into one code span, which nothing inside can close or leave:

- a backtick would close the span: it becomes ˋ (U+02CB, a look-alike that is not Markdown);
- a blank line would end the paragraph (and the span with it): line breaks and every other control or
  invisible formatting character (bidi overrides, zero-width joiners) become a visible ⍰;
- a long value (a 5000-digit number) is cut to `limit` characters, with an ellipsis.
"""
from __future__ import annotations

import unicodedata

BACKTICK, CONTROL = "\u02cb", "\u2370"
HIDDEN = ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")     # control, format, surrogate, private, unassigned, separators


def literal(text: object, limit: int = 40) -> str:
    """`text` (shortened to `limit` characters) as an unbreakable Markdown code span."""
    text = str(text)
    short = text if len(text) <= limit else text[:limit] + "…"
    safe = "".join(BACKTICK if c == "`" else CONTROL if unicodedata.category(c) in HIDDEN else c for c in short)
    if not safe.strip():                        # `` or `  ` is no code span: say what was there instead
        return "(empty)" if not safe else "(blank)"
    return f"`{safe}`"
