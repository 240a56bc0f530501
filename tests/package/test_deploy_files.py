"""deploy/: the systemd unit passes `systemd-analyze verify` (its ExecStart pointed at this install's command),
the compose file is a web tier and a trainer service sharing one data volume, and every command line they hold
is one `lcsm-explorer` accepts."""
import functools
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
UNIT = DEPLOY / "lcsm-explorer.service"
INSTALLED = "/opt/lcsm-explorer/venv/bin/lcsm-explorer"


def unit_values(key: str) -> list[str]:
    text = UNIT.read_text(encoding="utf-8").replace("\\\n", " ")
    return [line.split("=", 1)[1].strip() for line in text.splitlines() if line.startswith(f"{key}=")]


@functools.cache
def options_of(command: str) -> frozenset[str]:
    """The --options `lcsm-explorer COMMAND --help` lists."""
    out = subprocess.run([sys.executable, "-m", "lcsm_explorer", command, "--help"], capture_output=True, text=True,
                         timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return frozenset(word.strip(",[]") for word in out.stdout.split() if word.startswith("--"))


def assert_accepted(argv: list[str]) -> None:
    assert argv[0].endswith("lcsm-explorer"), argv
    given = {a for a in argv[2:] if a.startswith("--")}
    assert given <= options_of(argv[1]), given - options_of(argv[1])


def test_the_unit_runs_serve_with_tls_and_keeps_state_in_one_folder():
    exec_start, = unit_values("ExecStart")
    argv = shlex.split(exec_start)
    assert argv[0] == INSTALLED and argv[1] == "serve" and {"--tls-cert", "--tls-key", "--http-port"} <= set(argv)
    assert_accepted(argv)
    assert "LCSM_DATA_DIR=/var/lib/lcsm-explorer" in unit_values("Environment")
    assert unit_values("ReadWritePaths") == ["/var/lib/lcsm-explorer"] and unit_values("KillMode") == ["mixed"]


def test_systemd_analyze_verifies_the_unit(tmp_path):
    if shutil.which("systemd-analyze") is None:
        pytest.skip("no systemd-analyze here: the unit's keys are checked by the test above only")
    command = shutil.which("lcsm-explorer") or str(Path(sys.executable).with_name("lcsm-explorer"))
    if not Path(command).exists():
        pytest.skip("the lcsm-explorer command is not installed beside this Python (bash scripts/install.sh)")
    unit = tmp_path / UNIT.name
    unit.write_text(UNIT.read_text(encoding="utf-8").replace(INSTALLED, command), encoding="utf-8")
    result = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and not result.stderr.strip(), result.stderr


def test_the_compose_file_is_a_web_tier_and_a_trainer_sharing_one_volume():
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text(encoding="utf-8"))
    services = compose["services"]
    assert set(services) == {"web", "trainer"} and "lcsm-data" in compose["volumes"]
    build = services["trainer"]["build"]
    assert (DEPLOY / build["context"] / build["dockerfile"]).resolve() == DEPLOY / "Dockerfile"
    for service in services.values():
        assert service["image"] == "lcsm-explorer" and service["environment"]["LCSM_DATA_DIR"] == "/data"
        assert "lcsm-data:/data" in service["volumes"]
        assert_accepted(service["command"])
    assert services["trainer"]["command"][1] == "service"
    web = services["web"]
    assert web["command"][1] == "serve" and web["environment"]["LCSM_TRAINER"] == "external"
    assert {"--tls-cert", "--tls-key"} <= set(web["command"]) and "443:443" in web["ports"]
    dockerfile = (DEPLOY / "Dockerfile").read_text(encoding="utf-8")
    assert "haproxy" in dockerfile and "-c constraints.txt" in dockerfile
