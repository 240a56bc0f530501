"""Which messages a swept move sends as references, from Streamlit's own debug log (issue 19 item 2).

    python benchmarks/family_reference.py [--page spring] [--moves 3]

Starts the app (benchmarks.app_process.AppServer) with STREAMLIT_LOGGER_LEVEL=debug, opens the page with one
protocol client (benchmarks/streamlit_client.py: it keeps cacheable messages and names their hashes on each rerun,
as the browser does), waits for the preview family, then moves the swept setting one slider step at a time. For
each move it prints the KiB received and the element kind of every message the server logged as "Sending cached
message ref": the page link's family (a bidi_component) must be among them on every swept move.
"""
from __future__ import annotations

import argparse
import asyncio
import re
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.app_process import AppServer  # noqa: E402
from benchmarks.streamlit_client import StreamlitSession  # noqa: E402
from lcsm_explorer.app.lessons import lesson  # noqa: E402

REF = re.compile(r"Sending cached message ref \(hash=(\w+)\)")


async def swept_moves(url: str, log: Path, page: str, moves: int, wait_s: float) -> None:
    name = lesson(page).sweep.setting
    async with StreamlitSession(url, timeout_s=300) as tab:
        await tab.open_page(page)
        await asyncio.sleep(wait_s)                       # the family, computed off the request path
        await tab.open_page(page)
        for n in range(moves):
            seen = len(REF.findall(log.read_text()))
            run, _ = await tab.move_setting(page, name, 1)
            value = next(c["value"] for c in tab.instrument(page)["controls"] if c["name"] == name)
            kinds = []
            for digest in REF.findall(log.read_text())[seen:]:
                msg = tab._cache.get(digest)
                kinds.append(msg.delta.new_element.WhichOneof("type") if msg is not None else "?")
            print(f"{page} swept move {n + 1} ({name}={value}): {run.bytes / 1024:.0f} KiB received; "
                  f"sent as references: {kinds}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--page", default="spring")
    parser.add_argument("--moves", type=int, default=3)
    parser.add_argument("--wait", type=float, default=8.0, help="seconds for the family to be computed")
    args = parser.parse_args()
    data = Path(tempfile.mkdtemp(prefix="lcsm-family-reference-"))
    server = AppServer(data, data / "server.log", env={"STREAMLIT_LOGGER_LEVEL": "debug"}).start()
    try:
        asyncio.run(swept_moves(server.url, data / "server.log", args.page, args.moves, args.wait))
    finally:
        server.stop()


if __name__ == "__main__":
    main()
