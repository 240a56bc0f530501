"""A commit's tree in a folder of its own (`git archive`: nothing of the working tree), for benchmarks that run an
older tree beside the current one."""
from __future__ import annotations

import subprocess
import tarfile
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def export(commit: str, into: Path) -> Path:
    """The commit's tree, extracted into `into/<first 12 hex digits>`."""
    archive = subprocess.run(["git", "archive", "--format=tar", commit], cwd=ROOT, capture_output=True, check=True)
    folder = into / commit[:12]
    folder.mkdir()
    with tarfile.open(fileobj=BytesIO(archive.stdout)) as tar:
        tar.extractall(folder, filter="data")
    return folder
