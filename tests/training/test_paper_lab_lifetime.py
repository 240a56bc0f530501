"""The paper lab's pool workers die with the process that launched them (kill -9 or SIGTERM of the server), and
the store then marks the cells they were running "interrupted" (issue 24 item 4)."""
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from lcsm_serving import RunStore

PARENT = textwrap.dedent("""
    import sys, time
    from lcsm_core.paper_lab import GridSpec
    from lcsm_serving.paper_lab import GridRunner
    lab = GridRunner(sys.argv[1], workers=2)
    spec = GridSpec(ablation="tau", seq_lens=(16,), kv_pairs=2, d_model=8, expand_dim=8, lrs=(1e-2,),
                    steps=1_000_000, batch_size=4, eval_every=10)
    lab.launch(spec)
    print("launched", flush=True)
    time.sleep(600)
""")


def children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(entry))
    return out


def alive(pid: int) -> bool:
    """Running (a zombie waiting for a reaper counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_pool_workers_die_with_their_parent_and_their_cells_read_interrupted(tmp_path, subprocess_env, sig):
    db = tmp_path / "lab.sqlite"
    parent = subprocess.Popen([sys.executable, "-c", PARENT, str(db)], env=subprocess_env, stdout=subprocess.PIPE,
                              text=True)
    try:
        assert parent.stdout.readline().strip() == "launched"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:                      # both workers up and training a cell
            store = RunStore(db)
            running = [r for r in store.list_runs() if r.status == "running"]
            store.close()
            if len(running) == 2:
                break
            time.sleep(0.5)
        assert len(running) == 2, "the workers never started their cells"
        workers = [pid for pid in children(parent.pid) if alive(pid)]
        assert len(workers) >= 2
        os.kill(parent.pid, sig)
        parent.wait(timeout=30)           # its death is the kernel's (no handler); a loaded CI box took > 10 s once
        time.sleep(5)
        assert [pid for pid in workers if alive(pid)] == []
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
    store = RunStore(db)                                         # a restart: the store is opened again
    statuses = sorted(r.status for r in store.list_runs())
    store.close()
    assert "running" not in statuses and statuses.count("interrupted") == len(statuses) == 7
