"""plotly.js and KaTeX for the lesson instrument, from the installed packages' own files, served by the app itself.

plotly's Python package ships the plotly.js bundle it writes figures for (`plotly/package_data/plotly.min.js`);
KaTeX is Debian's libjs-katex (`/usr/share/javascript/katex`, installed by scripts/install.sh). `routes()` serves
both under `VENDOR_PREFIX`, with the lesson instrument's own script and style sheet (their digest in the URL), through
`st.App(routes=...)` (app/serve.py), with a long cache lifetime: the browser loads each once. Nothing comes from a
CDN; the app works offline. Where KaTeX is missing, the instrument shows each equation as readable text
(`instrument.js`) and the start-up log says so.
"""
from __future__ import annotations

import hashlib
import logging
import os
from pathlib import Path

import plotly

VENDOR_PREFIX = "/lcsm-vendor"
PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
KATEX_DIR = Path(os.environ.get("LCSM_KATEX_DIR", "/usr/share/javascript/katex"))
KIT = Path(__file__).parent
# The instrument's own scripts and style sheet: fetched once per version (the file's digest in the URL), not sent
# inside every mount's message (Streamlit puts a component's inline code in each element it sends, on every move).
OWN_FILES = {"instrument.js": "text/javascript", "chart_words.js": "text/javascript", "instrument.css": "text/css"}
VERSION = hashlib.sha256(b"".join((KIT / name).read_bytes() for name in OWN_FILES)).hexdigest()[:12]
VENDOR_URLS = dict(plotly=f"{VENDOR_PREFIX}/plotly.min.js", katex_js=f"{VENDOR_PREFIX}/katex/katex.min.js",
                   katex_css=f"{VENDOR_PREFIX}/katex/katex.min.css",
                   instrument_js=f"{VENDOR_PREFIX}/instrument.js?v={VERSION}",
                   instrument_css=f"{VENDOR_PREFIX}/instrument.css?v={VERSION}")
CACHE = "public, max-age=86400"


def katex_installed() -> bool:
    return (KATEX_DIR / "katex.min.js").is_file() and (KATEX_DIR / "katex.min.css").is_file()


def routes() -> list:
    """Starlette routes for plotly.min.js and KaTeX's folder (its fonts are relative to its style sheet)."""
    from starlette.responses import FileResponse
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    async def plotly_js(request):
        return FileResponse(PLOTLY_JS, media_type="text/javascript", headers={"Cache-Control": CACHE})

    def own(name: str):
        async def serve(request):
            return FileResponse(KIT / name, media_type=OWN_FILES[name], headers={"Cache-Control": CACHE})
        return serve

    found = [Route(VENDOR_URLS["plotly"], plotly_js)]
    found += [Route(f"{VENDOR_PREFIX}/{name}", own(name)) for name in OWN_FILES]
    if katex_installed():
        found.append(Mount(f"{VENDOR_PREFIX}/katex", app=StaticFiles(directory=KATEX_DIR, follow_symlink=True)))
    else:
        logging.getLogger(__name__).warning("KaTeX not found in %s (apt-get install libjs-katex): the lesson "
                                            "equations are shown as text", KATEX_DIR)
    return found
