"""The wheel, installed as a school would: built from this checkout, installed with the constraints file into a fresh
virtual environment in a temporary folder outside the checkout, then `lcsm-explorer check` and `lcsm-explorer
serve` from there, with Home and one lesson opened in chromium through it.

The venv reaches the dependencies already installed for this interpreter through a .pth line (pip then finds them
satisfied and downloads nothing; a path added that way runs none of its own .pth files, so this checkout's
editable install stays out). Every lcsm module the server loads must come from the venv, which the test checks."""
import os
import subprocess
import sys
import sysconfig

import pytest

from benchmarks.app_process import free_port
from tests.browser.app_server import ROOT, needs_chromium, wait_healthy, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.slow, needs_chromium, pytest.mark.xdist_group("installed_package")]


def sh(*args, timeout=600, **kw):
    result = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=timeout, **kw)
    assert result.returncode == 0, f"{' '.join(map(str, args))}\n{result.stdout[-2000:]}\n{result.stderr[-3000:]}"
    return result


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(the venv's bin folder, a folder outside the checkout to run in)."""
    where = tmp_path_factory.mktemp("school")
    assert not where.resolve().is_relative_to(ROOT)
    wheels = where / "wheels"
    sh(sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", wheels, ROOT)
    wheel, = wheels.glob("lcsm_explorer-*.whl")
    venv = where / "venv"
    sh(sys.executable, "-m", "venv", venv)
    python = venv / "bin" / "python"
    site = sh(python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))").stdout.strip()
    ours = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
    (venv / site / "_deps_of_the_test_interpreter.pth").write_text("\n".join(sorted(ours)) + "\n")
    sh(python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-c", ROOT / "constraints.txt",
       wheel, cwd=where)
    return venv / "bin", where


def test_the_installed_package_imports_from_the_venv_and_its_check_passes(installed):
    bin_dir, where = installed
    found = sh(bin_dir / "python", "-c", "import lcsm_core, lcsm_serving, lcsm_explorer.app.kit.render as r, "
               "lcsm_explorer.kernels as k; print(r.__file__, k.__file__, lcsm_serving.__file__)", cwd=where)
    assert str(ROOT) not in found.stdout and found.stdout.count(str(bin_dir.parent)) == 3, found.stdout
    generic = sh(bin_dir / "python", "-c", "import importlib.util as u; print([n for n in ('app', 'kernels', "
                 "'lessons') if u.find_spec(n)])", cwd=where)
    assert generic.stdout.strip() == "[]"
    check = sh(bin_dir / "lcsm-explorer", "check", cwd=where, timeout=300)
    assert "the core checks out" in check.stdout, check.stdout


def test_lcsm_explorer_serve_from_the_venv_opens_home_and_a_lesson(installed, browser, tmp_path):
    bin_dir, where = installed
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LCSM_DATA_DIR")}
    env.update(LCSM_WEB_PROCESSES="1", LCSM_DATA_DIR=str(tmp_path / "data"))
    log = tmp_path / "serve.log"
    with open(log, "w") as out:
        server = subprocess.Popen([bin_dir / "lcsm-explorer", "serve", "--port", str(port)], cwd=where, env=env,
                                  stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, server, log, 120)
        page = browser.new_page()
        try:
            for path, heading in (("/", "LCSM Explorer"), ("/spring", "spring")):
                page.goto(url + path)
                wait_idle(page)
                assert heading.lower() in page.locator("h1").first.inner_text().lower(), path
                assert page.locator('[data-testid="stException"]').count() == 0, path
        finally:
            page.close()
        assert "Traceback" not in log.read_text()
    finally:
        os.killpg(server.pid, 15)
        server.wait(30)
