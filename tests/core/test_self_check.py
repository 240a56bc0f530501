"""`lcsm-explorer check`: its checks pass on this core and a wrong form is caught by name."""
import io

from lcsm_core import self_check


def test_the_quick_checks_pass_and_say_so(monkeypatch):
    monkeypatch.setattr(self_check, "CHECKS", {k: self_check.CHECKS[k] for k in ("forms", "backward", "kernel")})
    out = io.StringIO()
    assert self_check.run_checks(out)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("ok    forms") and lines[1].startswith("ok    backward")
    assert lines[2].startswith(("ok    kernel", "skip  kernel")) and lines[-1] == "the core checks out"


def test_a_form_that_drifts_fails_its_line_and_the_run(monkeypatch):
    real = self_check.eos_scan

    def drifting(*states, form="recurrent", **options):
        y, m = real(*states, form=form, **options)
        return (y + 1e-6, m) if form == "chunked" else (y, m)
    monkeypatch.setattr(self_check, "eos_scan", drifting)
    checks = {"forms": self_check.check_forms, "backward": self_check.check_manual_backward}
    monkeypatch.setattr(self_check, "CHECKS", checks)
    out = io.StringIO()
    assert not self_check.run_checks(out)
    first, second, verdict = out.getvalue().splitlines()
    assert first.startswith("FAIL  forms") and "a form differs from the reference by" in first
    assert second.startswith("ok    backward") and "FAILED" in verdict
