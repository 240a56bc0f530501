"""The load run's protocol client (benchmarks/streamlit_client.py) against a real server, briefly, so the
classroom load script cannot rot: two tabs at once open a lesson page and move one of its settings the way the lesson
instrument commits it (app/kit/instrument.py); the runs finish with no exception, the client counts the bytes it
received, the page's URL and the instrument's control follow the move, and a setting not moved keeps its value."""
import asyncio
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import parse_qs

import pytest

from benchmarks.streamlit_client import StreamlitSession

pytestmark = pytest.mark.browser
PAGE, SETTING, UNMOVED = "spring", "c", "k"


async def open_and_move(url: str) -> tuple[list, float, dict, float]:
    async with StreamlitSession(url, timeout_s=120) as tab:
        opened = await tab.open_page(PAGE)
        assert SETTING in tab.movable_settings(PAGE), tab.movable_settings(PAGE)
        moved, _ = await tab.move_setting(PAGE, SETTING, 1)
        controls = {c["name"]: c["value"] for c in tab.instrument(PAGE)["controls"]}
        return [opened, moved], float(controls[SETTING]), parse_qs(tab.query), float(controls[UNMOVED])


def test_two_protocol_clients_open_a_page_and_move_a_slider(app_url):
    async def both():
        return await asyncio.gather(open_and_move(app_url), open_and_move(app_url))

    # in a thread of its own: this process may hold Playwright's sync driver, whose loop runs in the main thread
    with ThreadPoolExecutor(1) as thread:
        found = thread.submit(asyncio.run, both()).result()
    for runs, value, query, unmoved in found:
        for run in runs:
            assert run.status == "ok" and not run.exceptions, run
            assert run.messages > 0 and run.bytes > run.messages, run
        assert value != 0.2 and float(query[SETTING][0]) == pytest.approx(value), query
        assert unmoved == pytest.approx(float(query[UNMOVED][0])), (unmoved, query)
