"""Hostile links: every query parameter of every page (its settings, show/lock/present/challenge, Train live's
run and owner) with huge numbers, NaN, inf, empty, 10 k characters, non-ASCII digits, HTML, Markdown links and
images, backticks and blank lines.

- The parsing layer (pure, many hypothesis examples): a value is refused with a ValueError or accepted as one
  the widget can hold; numbers are ASCII decimal only; a note never carries the link's text outside one
  unbreakable code span.
- The page (AppTest, a bounded set of values, every parameter hostile at once): no exception, and no Markdown
  element (markdown, caption, warning, error, info, success) shows text from the link outside a code span —
  so nothing from a link is drawn as a link, an image, HTML or math.
"""
from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lcsm_explorer.app.kit.classroom import VIEW_PARAMS, read_view
from lcsm_explorer.app.kit.literal import literal
from lcsm_explorer.app.kit.owner import OWNER_TOKEN
from lcsm_explorer.app.kit.settings import NUMBER
from lcsm_explorer.app.lessons import PAGES, lesson
from lcsm_explorer.app.lessons.train_live import run_id_of
from tests.app.pages import assert_clean, link_notes, open_page

LINK = "[evil link](https://evil.example/phish)"
IMAGE = "![t](http://127.0.0.1:9/q-tracker.png)"
MARKERS = ("evil.example", "127.0.0.1", "<script", "<img", "onerror", "hostilemath")   # only ever from a link
SHOWN = ("markdown", "caption", "warning", "error", "info", "success", "title", "header", "subheader")


# --- what Markdown draws as code, and what it draws live ---------------------------------------------------
def live_text(markdown: str) -> str:
    """`markdown` without its code spans (CommonMark: a run of n backticks opens a span that the next run of
    exactly n closes, within one paragraph; a backslash-escaped backtick opens nothing): the text that is drawn
    as Markdown — links, images, HTML, `$` math, bare URLs."""
    out = []
    for block in re.split(r"\n[ \t]*\n", markdown):
        i = 0
        while i < len(block):
            if block[i] == "\\":
                out.append(block[i:i + 2])
                i += 2
                continue
            if block[i] != "`":
                out.append(block[i])
                i += 1
                continue
            run = re.match(r"`+", block[i:]).group()
            close = next((m for m in re.finditer(r"`+", block[i + len(run):]) if m.group() == run), None)
            if close is None:                       # unmatched: literal backticks
                out.append(run)
                i += len(run)
            else:
                out.append(" ")
                i += len(run) + close.end()
        out.append("\n\n")
    return "".join(out)


def test_live_text_reads_code_spans_as_commonmark_does():
    assert live_text("a `[x](y)` b") == "a   b\n\n"
    assert "[x](y)" in live_text("`a``[x](y)")                           # `` closes no ` span: all live
    assert live_text("`a``[x](y)`") == " \n\n"                              # … but the last ` does
    assert "evil" in live_text("`a\n\n[evil](y)`")                          # a blank line ends the span
    assert live_text("``a`b``") == " \n\n"


def hostile_in_view(at) -> list[str]:
    """Every Markdown body on the page whose live text holds something only a link could have put there."""
    bodies = [str(e.value) for kind in SHOWN for e in getattr(at, kind)]
    return [b[:200] for b in bodies if any(m in live_text(b) for m in MARKERS)]


# --- the literal-text helper ----------------------------------------------------------------------------------
HOSTILE_TEXT = st.lists(st.sampled_from(list("`\\[]()!<>$*_~:#|&;\"' \n\r\t\u2028\u202e\x00aé٢9.-+eE"))
                       | st.sampled_from([LINK, IMAGE, "<script>", "<img src=x onerror=1>", "$\\hostilemath{1}$",
                                          "https://evil.example/x"]), max_size=60).map("".join) \
    | st.text(max_size=200)


@settings(max_examples=600, deadline=None)
@given(HOSTILE_TEXT)
def test_literal_is_one_unbreakable_code_span(text):
    shown = literal(text)
    assert "\n" not in shown and "\r" not in shown and len(shown) <= 40 + 3
    if shown.startswith("("):                               # (empty) / (blank): nothing of the text at all
        assert not text[:40].strip()
        return
    assert shown[0] == shown[-1] == "`" and "`" not in shown[1:-1]
    assert live_text(f"- {shown} is wrong\n") == live_text("- `x` is wrong\n")


# --- the parsing layer: every setting of every page, and the classroom and run parameters ------------------
NUMBERISH = st.sampled_from(["nan", "NaN", "inf", "-inf", "+Infinity", "1e999", "-1e999", "1e309", "", " ", "-0",
                             "١٢", "١", "1_000", "²", "１２", "0x10", "1e5", "9" * 19, "9" * 5000, "9" * 4301,
                             "1" + "0" * 40, "0." + "0" * 40 + "1", "5e-324", "2.5", "8.0", "1e3", "٣.٥"]) \
    | st.integers(-(10 ** 30), 10 ** 30).map(str) | st.floats(allow_nan=True, allow_infinity=True).map(repr)
VALUES = NUMBERISH | HOSTILE_TEXT | st.sampled_from(["x" * 10_000, "`" + LINK + "`", "`" + IMAGE + "`"])
ALL_SETTINGS = [(page, p) for page in PAGES for p in lesson(page).settings.params]


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(ALL_SETTINGS), VALUES)
def test_a_link_value_is_refused_or_one_the_widget_holds(page_setting, raw):
    page, p = page_setting
    try:
        value = p.parse(raw)
    except ValueError:
        pass
    else:
        assert p.valid(value), (page, p.name, raw, value)
        if p.kind in ("float", "int"):
            assert NUMBER.fullmatch(raw.strip(" \t\n\r\f\v")), (p.name, raw)
            assert type(value) is (int if p.kind == "int" else float)
    values, notes = lesson(page).settings.read({p.name: raw})
    for note in notes:
        live = live_text(note)[:-2]                     # (without the paragraph end it adds)
        assert not any(c in live for c in "<>$\n`") and "](" not in live and "http" not in live, note
        assert len(note) < 400, note


@pytest.mark.parametrize("raw", ["١٢", "1_000", "²", "１２", "nan", "inf", "-inf", "1e999", "9" * 5000, "0x10", ""],
                         ids=lambda raw: raw if len(raw) < 10 else f"{len(raw)} digits")
def test_numbers_are_ascii_decimal_finite_and_short(raw):
    """Python's float()/int() take "١٢" (Arabic-Indic digits) and "1_000": the app never writes them into a
    link, so refusing them breaks no shared link, and a number means one thing on the page and in the URL."""
    for _page, p in ALL_SETTINGS:
        if p.kind in ("float", "int"):
            with pytest.raises(ValueError):
                p.parse(raw)


@settings(max_examples=1500, deadline=None)
@given(st.sampled_from(PAGES), st.dictionaries(st.sampled_from(VIEW_PARAMS), st.lists(VALUES, max_size=2),
                                               max_size=4), st.integers(0, 5))
def test_classroom_parameters_fall_back_with_literal_notes(page, query, challenges):
    view = read_view(lesson(page).settings, query, challenges)
    assert view.challenge is None or 0 <= view.challenge < challenges
    assert view.shown is None or view.shown <= {p.name for p in lesson(page).settings.params}
    assert len(view.notes) <= 5 + 1 + 3
    for note in view.notes:
        live = live_text(note)[:-2]                     # (without the paragraph end it adds)
        assert not any(c in live for c in "<>$\n`") and "](" not in live and "http" not in live, note


@settings(max_examples=1500, deadline=None)
@given(VALUES)
def test_run_ids_are_1_to_18_ascii_digits_and_owner_tokens_64_hex(raw):
    run = run_id_of(raw)
    assert run is None or (re.fullmatch(r"[0-9]{1,18}", raw) and 0 <= run < 2 ** 63)
    assert not OWNER_TOKEN.fullmatch(raw) or re.fullmatch(r"[0-9a-f]{64}", raw)


# --- the pages: every parameter hostile at once ------------------------------------------------------------
PAGE_VALUES = ["`" + LINK + "`", "`" + IMAGE + "`", "a\n\n" + LINK + " <script>alert(1)</script>",
               "<img src=x onerror=alert(1)> $\\hostilemath{1}$", "9" * 5000, "x" * 10_000, "nan", "١٢"]
EXTRA = {"train_live": ("run", "owner")}


def every_parameter(page: str) -> list[str]:
    return [p.name for p in lesson(page).settings.params] + list(VIEW_PARAMS) + ["challenge"] \
        + list(EXTRA.get(page, ()))


@pytest.mark.parametrize("page", PAGES)
def test_a_page_opened_with_hostile_values_everywhere_stays_clean_and_literal(page, tmp_path, monkeypatch):
    monkeypatch.setenv("LCSM_DATA_DIR", str(tmp_path))
    names = list(dict.fromkeys(every_parameter(page)))
    spec = lesson(page).settings
    for shift in range(len(PAGE_VALUES)):           # each parameter meets each value once (a rotation)
        query = {name: PAGE_VALUES[(shift + n) % len(PAGE_VALUES)] for n, name in enumerate(names)}
        at = open_page(page, query)
        assert_clean(at, f"{page} shift {shift}")
        assert not hostile_in_view(at), hostile_in_view(at)
        for p in spec.params:                        # fell back; a text setting may hold any short plain text
            value = at.session_state[spec.key(p.name)]
            assert value == p.default or (p.kind == "text" and p.valid(value)), (p.name, value)


# --- regressions: the links of issue 13 ---------------------------------------------------------------------
@pytest.mark.parametrize("run", ["²", "9999999999999999999", "9" * 5000], ids=["superscript", "19 nines",
                                                                           "5000 nines"])
def test_train_live_run_links_that_crashed(run, tmp_path, monkeypatch):
    """`"²".isdigit()` is true (int() then raised), 19 nines overflow SQLite's INTEGER, 5000 nines pass int()'s
    digit limit: each was a traceback; now no run is shown, with a note."""
    monkeypatch.setenv("LCSM_DATA_DIR", str(tmp_path))
    at = open_page("train_live", {"run": run})
    assert_clean(at, run[:20])
    assert at.session_state["train_live_run"] is None
    assert any("is not a run id" in w.value for w in at.warning)
    assert not hostile_in_view(at)


@pytest.mark.parametrize("value", ["`" + LINK + "`", "`" + IMAGE + "`"])
def test_a_backtick_in_a_link_value_draws_no_link_or_image(value):
    """The note once quoted the value in `…`: a backtick in it closed the span, and the rest was a live link
    (or an image the browser fetched)."""
    at = open_page("rings", {"r_min": value})
    assert_clean(at, value)
    notes = link_notes(at)
    assert notes and "r_min=" in notes[0]
    assert not hostile_in_view(at), hostile_in_view(at)


def test_a_typed_model_code_is_shown_literally_when_train_live_refuses_it(tmp_path, monkeypatch):
    """The refusal quotes the code (st.error draws Markdown): a code that is a link stays text."""
    monkeypatch.setenv("LCSM_DATA_DIR", str(tmp_path))
    at = open_page("train_live", {"layer": "code"})
    at.text_input(key="train_live.code").set_value(LINK).run()
    at.button(key="play").click().run()
    assert not at.exception
    assert at.session_state["train_live_run"] is None
    errors = [e.value for e in at.error]
    assert any("Cannot start this run" in e and "evil.example" in e for e in errors), errors
    assert not hostile_in_view(at), hostile_in_view(at)
