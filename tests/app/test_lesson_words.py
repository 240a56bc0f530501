"""The lesson text speaks the page's words (issue 21, items 1, 4 and 6).

- Every piece of Markdown a page draws from its lesson file (objectives, notes, questions, hints,
  explanations) leaves no TeX source outside math: checked on a model of the renderer here, and in a real
  browser by Streamlit's own renderer (KaTeX errors and TeX left in the text fail).
- No question carries the continuation of a hint:/explain: line (the parser ends the question at the first
  field line).
- Every feedback string of every exercise and challenge — the failing condition, at many values, and the
  hint and explanation — names quantities by their label and unit, never by the variable name, and holds no
  TeX source outside `$…$`.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
import time
import urllib.request

import pytest

from benchmarks.app_process import free_port
from lcsm_explorer.app.kit import lesson_text as lt
from lcsm_explorer.app.kit.lesson_text import check_settings, holds, markdown, markdown_pieces, what_fails
from tests.browser.app_server import BROWSER_ARGS, CHROMIUM, needs_chromium

LESSONS = {path.name: lt.parse_lesson(path.read_text(encoding="utf-8")) for path in lt.lesson_files()}
BLOCK_MATH = re.compile(r"^[ \t]*\$\$[ \t]*\n.*?\n[ \t]*\$\$[ \t]*$", re.S | re.M)
INLINE_MATH = re.compile(r"\$\$[^\n]+?\$\$|\$[^$\n]+?\$")
CODE = re.compile(r"`[^`\n]*`")
TEX = re.compile(r"\\[A-Za-z]+|[\^_]\{|\$")
SNAKE = re.compile(r"\b[A-Za-z]+_\w+\b")
PLAIN_WORDS = {"steps", "length", "seeds", "scale", "shipped", "diverged", "finished", "gap", "gate", "cells"}
VALUES = (0.0, 1.0, -1.0, 0.5, 2e-13, 1e6, float("inf"), float("-inf"), float("nan"), -1.0)


def prose(text: str) -> str:
    """What a reader sees as text: the Markdown without its math and code spans (a model of remark-math)."""
    return CODE.sub("", INLINE_MATH.sub("", BLOCK_MATH.sub("", text)))


def tex_left(text: str) -> list[str]:
    return TEX.findall(prose(text))


def items(lesson):
    return lesson.exercises + lesson.challenges


def variable_names(lesson) -> set[str]:
    """The live-quantity names a learner must never read: snake_case or a short code like zeta, nu, dt."""
    names = set(lesson.words) | {n for item in items(lesson) for n in item.names()}
    return {n for n in names if "_" in n or (len(n) > 1 and n not in PLAIN_WORDS)}


def named(text: str, names: set[str]) -> list[str]:
    words = prose(text)
    return SNAKE.findall(words) + [n for n in names if re.search(rf"(?<![\w']){re.escape(n)}(?!\w)", words)]


# --- 1. raw TeX ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", LESSONS)
def test_every_markdown_piece_of_every_lesson_leaves_no_tex_outside_math(name):
    for piece in markdown_pieces(LESSONS[name]):
        assert not tex_left(piece), (name, tex_left(piece), piece[:300])
        for line in piece.splitlines():        # a $$ opening a line either closes on it or stands alone
            if line.lstrip().startswith("$$"):
                assert line.strip() == "$$" or line.count("$$") >= 2, (name, line)


def test_the_model_catches_the_defect_it_guards_against():
    split = "Text:\n\n$$a = \\frac{1}{2},\n\\qquad b.$$\n\nMore."
    assert tex_left(split) and not tex_left(markdown(split))
    assert tex_left("The envelope is e^{−(c/2m) t}.") and not tex_left("The envelope is $e^{-ct/2m}$.")


# --- 2. continuation lines ----------------------------------------------------------------------------
FIELD_LINE = re.compile(rf"^({'|'.join(lt.FIELDS)})\s*:", re.I | re.M)


@pytest.mark.parametrize("name", LESSONS)
def test_no_question_holds_the_continuation_of_another_field(name):
    """The question is exactly the text before the section's first field line, in every file."""
    text = (lt.LESSONS_DIR / name).read_text(encoding="utf-8")
    for item in items(LESSONS[name]):
        kind = "Exercise" if item in LESSONS[name].exercises else "Challenge"
        section = text.split(f"## {kind}: {item.title}\n", 1)[1].split("\n## ", 1)[0]
        before_fields = FIELD_LINE.split(section, 1)[0].strip()
        assert item.prompt == before_fields, (name, item.title, item.prompt[-80:])
        assert not FIELD_LINE.search(item.prompt), (name, item.title)


def test_spring_exercise_2_keeps_its_whole_explanation():
    [_, half_life, _] = LESSONS["01-spring.md"].exercises
    assert half_life.prompt.endswith("(within 2 %)") and "set m = 2" not in half_life.prompt
    assert half_life.explain.endswith("set m = 2 and the metric agrees.")


# --- 3. feedback in the page's words ------------------------------------------------------------------
@pytest.mark.parametrize("name", LESSONS)
def test_every_feedback_string_uses_labels_units_and_no_tex(name):
    lesson = LESSONS[name]
    names = variable_names(lesson)
    for item in items(lesson):
        for text in (item.hint, item.explain, item.prompt):
            assert not tex_left(text), (name, item.title, tex_left(text), text)
            assert not named(text, names), (name, item.title, named(text, names), text)
        for check in item.checks:
            used = sorted(item.__class__("", "", checks=(check,)).names())
            missing = [n for n in used if n not in lesson.words]
            assert not missing, f"{name}: give {missing} a label under ## Quantities"
            for value in VALUES:
                quantities = {n: value for n in used}
                quantities[used[-1]] = -value / 3 if len(used) > 1 else value    # two names: not the same value
                said = what_fails(check, quantities, lesson.words)
                assert lesson.words[used[0]].label in said, (name, check, said)
                assert not tex_left(said) and not named(said, names), (name, check, said)
                if not holds(check, quantities):
                    message = check_settings(item.__class__(item.title, "", checks=(check,), hint=item.hint),
                                             quantities, lesson.words).message
                    assert not tex_left(message) and not named(message, names), (name, check, message)


@pytest.mark.parametrize("name", LESSONS)
def test_every_try_this_step_speaks_the_pages_words(name):
    """Issue 21 item 2: the reading-order steps name settings and charts as the page shows them."""
    lesson = LESSONS[name]
    names = variable_names(lesson)
    for step in lesson.steps:
        for text in (step.do, step.look_for):
            assert not tex_left(text), (name, tex_left(text), text)
            assert not named(text, names), (name, named(text, names), text)


ASCII_MATH = re.compile(r"\^|\bsqrt\b|\w ?\* ?\w|\b[A-Za-z]+_\w+")


def test_every_preset_caption_writes_math_in_unicode_or_words():
    """Issue 21 item 3: a preset's caption says "mₜ", "exp(0.05)", "to the power", never "m_t", "e^0.05", "sqrt"."""
    from lcsm_explorer.app.lessons import all_lessons

    ascii_math = [(page.page, preset.label, ASCII_MATH.findall(prose(preset.insight)))
                  for page in all_lessons() for preset in page.presets if ASCII_MATH.search(prose(preset.insight))]
    assert not ascii_math, ascii_math
    assert ASCII_MATH.findall("g_t = sigmoid(Wx)^(1/τ), a*b, sqrt(2)") == ["g_t", "^", "a*b", "sqrt"]


def test_the_word_check_catches_variable_names():
    spring = LESSONS["01-spring.md"]
    assert named("raise zeta above 1", variable_names(spring)) == ["zeta"]
    assert named("the half_life is long", set()) == ["half_life"]
    assert not named("the damping ratio ζ and $r_{\\min}$ and `linear_attention`", variable_names(spring))


# --- 1 again, in a real browser: Streamlit's own Markdown and KaTeX -------------------------------------
PAGE = """import json, sys
import streamlit as st
pieces = json.load(open(sys.argv[1], encoding="utf-8"))
for n, (how, text) in enumerate(pieces):
    with st.container(key=f"piece{n}"):
        (st.error if how == "feedback" else st.markdown)(text)
st.container(key="pieces_done").markdown("All pieces drawn.")
"""


@pytest.mark.browser
@needs_chromium
def test_every_lesson_piece_renders_without_tex_source_in_a_browser(tmp_path):
    """The pieces are drawn as lesson_view draws them (st.markdown; hints and explanations inside the
    feedback box); no KaTeX error, no TeX source in the text a reader sees."""
    from playwright.sync_api import sync_playwright

    pieces = [("markdown", p) for lesson in LESSONS.values() for p in markdown_pieces(lesson)]
    pieces += [("feedback", markdown("Not yet: " + item.hint)) for lesson in LESSONS.values()
               for item in items(lesson) if item.hint]
    (tmp_path / "pieces.json").write_text(json.dumps(pieces), encoding="utf-8")
    (tmp_path / "page.py").write_text(PAGE, encoding="utf-8")
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(tmp_path / "page.py"), "--server.address", "127.0.0.1",
         "--server.port", str(port), "--server.headless", "true", "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none", "--", str(tmp_path / "pieces.json")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2).read() == b"ok":
                    break
            except OSError:
                assert time.monotonic() < deadline, "the page server did not start"
                time.sleep(0.3)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
            try:
                page = browser.new_page()
                page.goto(f"http://127.0.0.1:{port}/")
                page.wait_for_selector(".st-key-pieces_done", state="attached", timeout=60_000)
                page.wait_for_timeout(500)                                       # KaTeX typesets after mount
                assert page.locator(".katex-error").count() == 0, page.locator(".katex-error").all_inner_texts()
                texts = page.evaluate(f"""() => Array.from({{length: {len(pieces)}}}, (_, n) => {{
                    const el = document.querySelector('.st-key-piece' + n);
                    if (!el) return null;
                    const copy = el.cloneNode(true);
                    copy.querySelectorAll('.katex-mathml').forEach(m => m.remove());   // MathML keeps the source
                    return copy.innerText; }})""")
            finally:
                browser.close()
    finally:
        server.terminate()
        server.wait(timeout=20)
    assert None not in texts, "some pieces were not drawn"
    left = [(how, TEX.findall(text), text[:120]) for (how, _), text in zip(pieces, texts) if TEX.search(text)]
    assert not left, left


def test_the_s4_recall_preset_says_its_slow_near_chance_run_is_the_point():
    """Issue 21: "S4 on recall" runs 1 step/s and ends at 0.037 without saying that is the point."""
    from lcsm_explorer.app.lessons.train_live import PRESETS

    [s4] = [p for p in PRESETS if p.values.get("variant") == "s4"]
    for text in (s4.insight, LESSONS["08-train-live.md"].body):
        assert "chance" in text and "0.04" in text and "steps/s" in text.replace(" steps a second", " steps/s"), text
        assert "point" in text or "meant to fail" in text, text
