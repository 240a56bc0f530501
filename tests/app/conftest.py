"""Every app test writes learners' progress, classes and runs into a store of its own, never into the
repository's data/runs.sqlite (lcsm_explorer.app.kit.progress writes each right answer to the run store's file)."""
from __future__ import annotations

import pytest


@pytest.fixture(autouse=True, scope="session")
def _private_run_store(tmp_path_factory):
    folder = tmp_path_factory.mktemp("run-store")
    patch = pytest.MonkeyPatch()
    patch.setenv("LCSM_DATA_DIR", str(folder))
    yield folder
    patch.undo()


@pytest.fixture(autouse=True, scope="session")
def _validated_figures():
    """Figures built in tests are validated by plotly (a mistyped property fails); the server skips that
    (lcsm_explorer.app.kit.figure_style.VALIDATE; tests/app/test_figure_validation.py shows the JSON is the same)."""
    from lcsm_explorer.app.kit import figure_style
    figure_style.VALIDATE = True
    yield


@pytest.fixture(autouse=True, scope="session")
def _components_scanned_once():
    """Each AppTest scans every installed distribution's metadata for Streamlit components (~0.3 s a page opened,
    hundreds of pages a run); what is installed does not change while the tests run, so the first scan is kept.
    Where a Streamlit release moves the scanner, nothing is patched and each AppTest scans as before."""
    import functools
    try:
        from streamlit.components.v2 import manifest_scanner
        scan = manifest_scanner.scan_component_manifests
    except (ImportError, AttributeError):
        yield
        return
    patch = pytest.MonkeyPatch()
    patch.setattr(manifest_scanner, "scan_component_manifests", functools.lru_cache(maxsize=1)(scan))
    yield
    patch.undo()
