"""LCSM Explorer's own namespace: the Streamlit app (`lcsm_explorer.app`), the Triton kernels
(`lcsm_explorer.kernels`), the lesson texts (`lcsm_explorer/lessons`) and the `lcsm-explorer` command.

In the repository these stay the top-level folders `app/`, `kernels/` and `lessons/`; an installed wheel holds them
inside this package (pyproject.toml maps them), so nothing with a generic name such as `app` lands in
site-packages. In a checkout this package's search path also covers the repository root, so that
`lcsm_explorer.app` is `<checkout>/app` with no install at all. The core (`lcsm_core`) and serving (`lcsm_serving`)
are packages of their own. Importing this package imports nothing else."""
from pathlib import Path

_HERE = Path(__file__).resolve().parent
_CHECKOUT = _HERE.parent
if not (_HERE / "app").is_dir() and (_CHECKOUT / "app" / "streamlit_app.py").is_file():
    __path__.append(str(_CHECKOUT))        # a checkout: app/, kernels/ and lessons/ beside this folder


def lessons_dir() -> Path:
    """The lesson texts this install ships: lcsm_explorer/lessons in a wheel, <checkout>/lessons in a checkout."""
    inside = _HERE / "lessons"
    return inside if inside.is_dir() else _CHECKOUT / "lessons"
