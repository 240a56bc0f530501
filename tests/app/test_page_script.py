"""The page script (app/kit/internals/page_script.js) reaches the browser: layout_style mounts it through st.html."""
import re

from lcsm_explorer.app.kit.layout import PAGE_SCRIPT


def test_the_page_script_survives_streamlits_sanitizer():
    """st.html passes a script through DOMPurify, which drops one whose text looks like markup ("<" before a letter
    or "/"); the browser test (tests/browser/test_accessibility_browser.py) sees what the script does."""
    assert PAGE_SCRIPT.strip() and not re.search(r"<[/\w]", PAGE_SCRIPT)
