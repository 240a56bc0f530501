"""plotly.js and KaTeX for the lesson instrument, from the installed packages' own files, served by the app itself.

plotly's Python package ships the plotly.js bundle it writes figures for (`plotly/package_data/plotly.min.js`);
KaTeX is Debian's libjs-katex (`/usr/share/javascript/katex`, installed by scripts/install.sh). `routes()` serves
both under `VENDOR_PREFIX` through `st.App(routes=...)` (app/serve.py), with a long cache lifetime: the browser
loads each once. Nothing comes from a CDN; the app works offline. Where KaTeX is missing, the instrument shows each
equation as readable text (`instrument.js`) and the start-up log says so.
"""
from __future__ import annotations

import logging
import os
from pathlib import Path

import plotly

VENDOR_PREFIX = "/lcsm-vendor"
PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
KATEX_DIR = Path(os.environ.get("LCSM_KATEX_DIR", "/usr/share/javascript/katex"))
VENDOR_URLS = dict(plotly=f"{VENDOR_PREFIX}/plotly.min.js", katex_js=f"{VENDOR_PREFIX}/katex/katex.min.js",
                   katex_css=f"{VENDOR_PREFIX}/katex/katex.min.css")
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

    found = [Route(VENDOR_URLS["plotly"], plotly_js)]
    if katex_installed():
        found.append(Mount(f"{VENDOR_PREFIX}/katex", app=StaticFiles(directory=KATEX_DIR, follow_symlink=True)))
    else:
        logging.getLogger(__name__).warning("KaTeX not found in %s (apt-get install libjs-katex): the lesson "
                                            "equations are shown as text", KATEX_DIR)
    return found
