"""Issue 24, item 5: one lesson file that is not UTF-8 text, or a folder named like a lesson file, breaks only its
own page (with a message naming the file), never Home, another lesson or Train live; Home lists it as broken."""
import os
import shutil
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from lcsm_explorer.app.kit import lesson_text as lc
from lcsm_explorer.app.kit.lesson_text import LessonFormatError
from lcsm_explorer.app.lessons import PAGES
from tests.app.pages import assert_clean, open_page

ROUTER = Path(__file__).resolve().parents[2] / "app" / "streamlit_app.py"


def latin1_byte(spring):
    spring.write_bytes(spring.read_bytes() + b"\\ncaf\xe9\n")


def a_folder(spring):
    spring.unlink()
    spring.mkdir()
    (spring / "notes.txt").write_text("a folder named like a lesson file")


def a_dangling_link(spring):
    spring.unlink()
    os.symlink(spring.parent / "gone.md", spring)


BREAKS = {"a Latin-1 byte": (latin1_byte, "not UTF-8"), "a folder": (a_folder, "is a folder"),
          "a dangling link": (a_dangling_link, "cannot be read")}


@pytest.fixture(params=list(BREAKS))
def broken_spring(request, tmp_path, monkeypatch):
    for path in lc.lesson_files():
        shutil.copy(path, tmp_path / path.name)
    breaks, said = BREAKS[request.param]
    breaks(tmp_path / "01-spring.md")
    monkeypatch.setattr(lc, "LESSONS_DIR", tmp_path)
    return said


def test_the_broken_file_is_a_lesson_format_error_naming_it(broken_spring):
    with pytest.raises(LessonFormatError, match=f"01-spring.md.*{broken_spring}|{broken_spring}"):
        lc.load_lesson("spring")
    assert [lc.load_lesson(page).page for page in PAGES[1:]] == list(PAGES[1:])
    assert lc.lesson_pages() == list(PAGES)


def test_only_its_own_page_breaks_and_home_lists_it_as_broken(broken_spring):
    spring = open_page("spring")
    assert_clean(spring, "spring")
    said = [e.value for e in spring.error if "could not be read" in e.value]
    assert said and "01-spring.md" in said[0] and broken_spring in said[0]
    for page in ("rings", PAGES[-1]):
        at = open_page(page)
        assert_clean(at, page)
        assert not [e.value for e in at.error if "could not be read" in e.value], page
    home = AppTest.from_file(str(ROUTER), default_timeout=120).run()
    assert not home.exception
    table = next(d.value for d in home.dataframe if "note" in d.value.columns)
    assert table["note"].tolist()[0] == "lesson file could not be read"
    assert (table["note"] == "").sum() == len(PAGES) - 1
    links = [link.proto.label for link in home.get("page_link")][1:]                 # after "Start: …"
    assert "could not be read" in links[0] and not any("could not be read" in x for x in links[1:])
