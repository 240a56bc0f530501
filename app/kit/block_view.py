"""`draw_blocks(blocks)`: the one place that turns a page's declared blocks (app/kit/blocks.py) into st calls."""
from __future__ import annotations

from collections.abc import Callable, Sequence

import pandas as pd
import streamlit as st

from .blocks import Callout, Chart, Columns, Download, Group, Pick, Progress, Readout, Table, Text, Toggle
from .chart_text import table_region
from .page_text import stacked
from .widgets import show_chart, show_readout

TEXT = {"markdown": st.markdown, "caption": st.caption, "heading": st.header, "subheader": st.subheader,
        "latex": lambda text: st.latex(stacked(text)),
        "code": lambda text: st.code(text, language=None, wrap_lines=True)}


def draw_blocks(blocks: Sequence, on_change: Callable[[Callable], Callable] | None = None) -> None:
    """Draw `blocks` in order in the current container. `on_change(hook)` turns a widget's declared hook into its
    streamlit callback (the live-lesson kind passes one that hands the hook a `Control`)."""
    for block in blocks:
        draw_block(block, on_change)


def draw_block(block, on_change) -> None:
    if isinstance(block, Text):
        TEXT[block.kind](block.text)
    elif isinstance(block, Callout):
        getattr(st, block.level)(block.text, icon=block.icon)
    elif isinstance(block, Table) and block.static:
        st.markdown(table_html(block.rows, block.alt or ""), unsafe_allow_html=True)
    elif isinstance(block, Table):
        st.dataframe(pd.DataFrame(list(block.rows)), hide_index=True, width="stretch", key=block.key)
    elif isinstance(block, Chart):
        show_chart(block.figure, block.name)
    elif isinstance(block, Readout):
        show_readout(block.items)
    elif isinstance(block, Group):
        with st.expander(block.fold) if block.fold else st.container(border=block.border):
            draw_blocks(block.blocks, on_change)
    elif isinstance(block, Columns):
        for column, blocks in zip(st.columns(list(block.widths or [1] * len(block.columns))), block.columns):
            with column:
                draw_blocks(blocks, on_change)
    elif isinstance(block, Progress):
        st.progress(min(1.0, max(0.0, block.fraction)), text=block.text)
    elif isinstance(block, Download):
        st.download_button(block.label, block.data, file_name=block.file_name, mime=block.mime, key=block.key,
                           width="stretch")
    elif isinstance(block, Toggle):
        st.toggle(block.label, value=block.value, key=block.key)
    elif isinstance(block, Pick):
        draw_pick(block, on_change)
    else:
        raise TypeError(f"not a block: {block!r}")


def table_html(rows: Sequence[dict], label: str) -> str:
    """Rows (dicts with the same keys) as a table whose cells wrap, no text cut short (`chart_text.table_region`);
    an empty cell reads "—"."""
    columns = list(rows[0]) if rows else []
    return table_region(label, [str(c) for c in columns],
                        [["—" if row[c] is None else str(row[c]) for c in columns] for row in rows])


def draw_pick(pick: Pick, on_change) -> None:
    callback = on_change(pick.on_change) if pick.on_change and on_change else None
    common = dict(format_func=(pick.labels or {}).get if pick.labels else str, key=pick.key, on_change=callback,
                  label_visibility="collapsed" if pick.hide_label else "visible")
    if pick.many:
        st.multiselect(pick.label, list(pick.options), max_selections=pick.most, **common)
    else:
        st.selectbox(pick.label, list(pick.options), **common)
