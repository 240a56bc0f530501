"""Every erratum in the sources: its numeric check confirms it on random fp64 data (or it says it has none:
a notation error), its card quotes the seed verbatim, and its proof never calls the code the card is about."""
import importlib
import inspect
import os
from pathlib import Path
from types import CodeType

import pytest

from lcsm_core import errata_demos as demos
from lcsm_core.errata import (
    BY_ID,
    ERRATA,
    KINDS,
    NAMING,
    NO_NUMERIC_CHECK,
    NOTATION,
    SEED_FILES,
    UNDEFINED,
    WRONG,
    check_errata,
)
from lcsm_core.errata_demos import FAILS_ABOVE, HOLDS_BELOW

SEEDS = (0, 1, 7)
SEED_DIR = Path(os.environ.get("LCSM_SEEDS", Path(__file__).resolve().parents[3] / "shared" / "seeds"))


def demonstrations(erratum_id: str):
    return [BY_ID[erratum_id].demonstrate(seed) for seed in SEEDS]


def facts(demo) -> dict:
    return dict(demo.facts)


def test_the_list_is_complete_and_every_numeric_check_confirms_its_erratum():
    assert [e.id for e in ERRATA] == ["note-expand", "lcsm-eq9", "lcsm-table1-retnet", "lcsm-5.3-labels",
                                      "lcsm-5.3-order", "lcsm-3.1-codes", "longhorn-table4-gla", "lru-exponent-sign",
                                      "lcsm-table1-dss", "lcsm-2.3-s4", "lcsm-2.3-tnn", "lcsm-table4-duplicate",
                                      "lcsm-table6-duplicate", "lru-power-angle", "longhorn-appc-scalar",
                                      "longhorn-3-orientation", "longhorn-4-deltanet-eigenvalues",
                                      "longhorn-table4-longhorn", "note-cosformer-real-part", "note-mamba-shapes",
                                      "lcsm-table1-caption", "lcsm-3.2-codes", "lcsm-table7-m2"]
    assert len(ERRATA) + 3 == 26          # with the three backward lines of backward_formulas.py
    for seed in SEEDS:
        rows = check_errata(seed)
        assert all(row["confirmed"] for row in rows if row["numeric"]), [row["id"] for row in rows
                                                                          if row["numeric"] and not row["confirmed"]]
        assert all(row["confirmed"] is None for row in rows if not row["numeric"])
    for e in ERRATA:
        assert e.kind in KINDS and e.printed != e.corrected and e.why and e.location and e.quote
        assert bool(e.measure) == (e.kind != NOTATION), e.id      # a notation error has no error to measure


def test_every_card_has_an_independent_proof_or_says_it_has_none():
    """Done means: each erratum with a numeric check, or the words 'no numeric check: a notation error'."""
    assert NO_NUMERIC_CHECK == "no numeric check: a notation error"
    notation = [e.id for e in ERRATA if e.kind == NOTATION]
    assert notation == ["lcsm-2.3-s4", "lcsm-table4-duplicate", "lcsm-table1-caption", "lcsm-3.2-codes"]
    for e in ERRATA:
        if e.kind == NOTATION:
            demo = e.demonstrate(0) if e.demonstrate else demos.Demonstration()
            assert demo.printed_error is None and demo.corrected_error is None, e.id
        else:
            assert e.demonstrate is not None, e.id


def reached_names(function) -> set[str]:
    """Every global and attribute name a check's code uses, through the helpers of errata_demos it calls."""
    names: set[str] = set()
    seen: set[str] = set()
    todo: list[CodeType] = [function.__code__]
    while todo:
        code = todo.pop()
        names |= set(code.co_names)
        todo += [const for const in code.co_consts if isinstance(const, CodeType)]
        for name in code.co_names:
            helper = getattr(demos, name, None)
            if inspect.isfunction(helper) and helper.__module__ == demos.__name__ and name not in seen:
                seen.add(name)
                todo.append(helper.__code__)
    return names


@pytest.mark.parametrize("erratum", [e for e in ERRATA if e.about], ids=lambda e: e.id)
def test_no_proof_calls_the_code_its_card_is_about(erratum):
    """The truth is computed another way: a card about the project's LRU eigenvalues, code reader, Longhorn,
    DeltaNet or rotating attention never calls them (nor eos_scan, for the rotations) on its way to a verdict."""
    for dotted in erratum.about:
        module, name = dotted.rsplit(".", 1)
        assert hasattr(importlib.import_module(module), name), dotted       # the guard names real code
        assert name not in reached_names(erratum.demonstrate), f"{erratum.id} calls {dotted}"


def test_the_checks_module_imports_none_of_the_code_its_circular_proofs_used():
    source = inspect.getsource(demos)
    assert "lru_eigenvalues" not in source and "parse_code" not in source


def test_the_guard_sees_a_call():
    """A guard on the walker itself: a name used only inside a helper is found."""
    assert "eos_scan" in reached_names(demos.new_memory_outer_product)
    assert "_matrix_exponential" in reached_names(demos.lru_power_angle)   # via _damped_springs


@pytest.mark.skipif(not SEED_DIR.is_dir(), reason=f"the seed files are not at {SEED_DIR}")
@pytest.mark.parametrize("erratum", ERRATA, ids=lambda e: e.id)
def test_every_quote_is_verbatim_from_its_seed(erratum):
    assert erratum.quote_file in set(SEED_FILES.values()) | {"lcsm-paper-html.txt"}
    assert erratum.quote in (SEED_DIR / erratum.quote_file).read_text(encoding="utf-8"), erratum.id


def test_note_new_memory_is_the_outer_product():
    e = BY_ID["note-expand"]
    assert e.source == "MNet note" and "New Version" in e.location and "expand" in e.location
    assert r"\mathbf e_t^{\top}\mathbf i_t" in e.printed
    for demo in demonstrations(e.id):
        assert demo.printed_error is None and "size" in demo.printed_failure      # (k,)·(d,) with k ≠ d
        assert demo.corrected_error < HOLDS_BELOW
        assert next(iter(facts(demo).values())) > FAILS_ABOVE                     # k = d: a scalar, not the memory


def test_eq9_ones_vector_has_the_memory_width():
    e = BY_ID["lcsm-eq9"]
    assert e.source == "LCSM paper" and "Eq. (9)" in e.location and "§2.2" in e.location
    assert r"\mathbf 1_{\{k\}}" in e.printed and r"\mathbf 1_{\{d\}}" in e.corrected
    for demo in demonstrations(e.id):
        assert demo.printed_error is None and "must match the size" in demo.printed_failure   # torch's broadcast
        assert demo.corrected_error < HOLDS_BELOW
        assert all(value < HOLDS_BELOW for value in facts(demo).values())        # k = d agrees; Diag(ō) with ψ = ×


def test_table1_retnet_oscillation_is_k_by_d():
    e = BY_ID["lcsm-table1-retnet"]
    assert "Table 1" in e.location and "TNL/RetNet" in e.location
    assert r"\mathbf J^{(k)}" in e.printed and r"\mathbf J^{(kd)}" in e.corrected
    for demo in demonstrations(e.id):
        assert demo.printed_error is None and "must match the size" in demo.printed_failure
        assert demo.corrected_error < HOLDS_BELOW


def test_appendix_labels_are_a_naming_inconsistency_not_a_wrong_formula():
    """With Cosformer's own single angle, Eq. (14) reproduces Cosformer to rounding: the formulas hold, the
    notation under each heading is the other method's."""
    e = BY_ID["lcsm-5.3-labels"]
    assert e.kind == NAMING and "Appendix 5.3" in e.location and "(14)" in e.location and "(15)" in e.location
    assert "naming inconsistency" in e.why and "Not a wrong formula" in e.why
    for demo in demonstrations(e.id):
        f = facts(demo)
        assert f["(14) with Cosformer's one angle vs Cosformer's recurrence (§2.3)"] < 1e-13
        assert f["(15) vs LRPE's recurrence with its k angles all equal"] < HOLDS_BELOW
        assert f["(14) with LRPE's k angles vs LRPE's recurrence (Eq. 10)"] < HOLDS_BELOW
        assert f["(15) vs Cosformer's recurrence (§2.3)"] < HOLDS_BELOW
        assert f["(15)'s one θ vs LRPE with k different angles: (15) cannot carry them"] > FAILS_ABOVE
        assert demo.printed_holds and demo.corrected_holds


def test_appendix_lambda_acts_on_the_key_side():
    e = BY_ID["lcsm-5.3-order"]
    assert "Appendix 5.3" in e.location and "Eq. (14)" in e.location and "third line" in e.location
    assert r"\Lambda^{t-s}\,\mathbf v_s" in e.printed and r"\mathbf k_s^\top\,\Lambda^{t-s}" in e.corrected
    for demo in demonstrations(e.id):
        assert demo.printed_error is None and "mismatch" in demo.printed_failure
        assert demo.corrected_error < HOLDS_BELOW
        assert next(iter(facts(demo).values())) > FAILS_ABOVE                     # k = d: runs, but wrong


def test_code_1100_reads_e_and_o_in_table_4s_numbers():
    e = BY_ID["lcsm-3.1-codes"]
    assert "§3.1" in e.location and "1-1-0-0" in e.location and "24.91" in e.why
    for demo in demonstrations(e.id):
        f = facts(demo)
        assert f["test ppl of 1-1-0-0 (data-dependent e, o)"] == 24.91                  # the best two-state code
        assert f["test ppl of 0-1-1-0 (data-dependent o, s)"] == 26.21                  # what the words name
        assert demo.printed_error == pytest.approx(26.21 - 24.91) and demo.corrected_error == 0.0


def test_s4_sizes_are_a_notation_error():
    e = BY_ID["lcsm-2.3-s4"]
    assert e.kind == NOTATION and "§2.3" in e.location and "S4" in e.location
    f = facts(e.demonstrate(0))
    assert f["entries of B u_tᵀ with u_t ∈ ℝᵏ (k = 3)"] == 9 and f["entries of S4's memory in Table 1, k × 1"] == 3


def test_tnn_recurrence_is_a_bank_of_channels():
    e = BY_ID["lcsm-2.3-tnn"]
    assert "TNN" in e.location and r"\mathbf B\mathbf u_t^{\top}" in e.printed
    for demo in demonstrations(e.id):
        assert demo.printed_error is None and "shapes cannot be multiplied" in demo.printed_failure
        assert demo.corrected_error < HOLDS_BELOW
        assert facts(demo)["the printed readout m_tᵀC: rows × columns"] == 16.0         # d × d, not a d-vector


def test_table4_duplicate_code_has_no_numeric_check_but_the_other_repeats_agree():
    e = BY_ID["lcsm-table4-duplicate"]
    assert e.kind == NOTATION and "Table 4" in e.location
    f = facts(e.demonstrate(0))
    assert f["test-ppl gap between Table 4's two 0-0-0-0 rows"] == pytest.approx(30.5 - 29.1)
    assert f["largest gap between the other codes the paper prints twice (1-1-1-0, 1-10-1-0)"] == 0.0


def test_table6_first_row_is_the_1110_of_the_other_tables():
    e = BY_ID["lcsm-table6-duplicate"]
    assert e.kind == WRONG and "Table 6" in e.location
    for demo in demonstrations(e.id):
        assert demo.printed_error == pytest.approx(46.07 - 44.04) and demo.corrected_error == 0.0
        assert facts(demo)["second row's parameters (M)"] == facts(demo)["the activation rows' parameters (M)"]


def test_lru_angle_turns_k_times():
    e = BY_ID["lru-power-angle"]
    assert e.source == "LRU article" and r"e^{ik\theta_j}" in e.corrected
    for demo in demonstrations(e.id):
        assert demo.printed_error > FAILS_ABOVE and demo.corrected_error < HOLDS_BELOW
        assert facts(demo)["|xₖ| vs e^(−kν): the modulus is right either way, error"] < HOLDS_BELOW


def test_longhorn_appendix_c_divides_by_a_number():
    e = BY_ID["longhorn-appc-scalar"]
    assert e.source == "Longhorn paper" and "Appendix C" in e.location and "{I + " in e.printed
    for demo in demonstrations(e.id):
        assert demo.printed_error > FAILS_ABOVE and demo.corrected_error < HOLDS_BELOW
        assert facts(demo)["read as (I + βkᵀk)⁻¹, i.e. the scalar after all: error"] < HOLDS_BELOW


def test_longhorn_predicts_with_s_k():
    e = BY_ID["longhorn-3-orientation"]
    assert "§3" in e.location and "S^{\\top}k_t" in e.printed
    for demo in demonstrations(e.id):
        assert demo.printed_error is None and "size mismatch" in demo.printed_failure
        assert demo.corrected_error < HOLDS_BELOW
        assert facts(demo)["d = m: Sᵀk's residual vs the fitted one, error"] > FAILS_ABOVE


def test_longhorn_gla_objective_needs_minus_two():
    e = BY_ID["longhorn-table4-gla"]
    assert e.source == "Longhorn paper" and "Table 4" in e.location and "GLA" in e.location
    assert r"\;+\; 2\langle" in e.printed and r"\;-\; 2\langle" in e.corrected
    for demo in demonstrations(e.id):
        f = facts(demo)
        assert demo.printed_error > FAILS_ABOVE and demo.corrected_error < HOLDS_BELOW
        assert f["printed objective: largest gradient at GLA's update"] > FAILS_ABOVE
        assert f["corrected objective: largest gradient at GLA's update"] < HOLDS_BELOW


def test_lru_exponent_has_a_minus_by_the_physics_of_a_damped_spring():
    e = BY_ID["lru-exponent-sign"]
    assert e.source == "LRU article" and "Equation (5)" in e.location
    assert e.printed == r"\lambda_j = e^{\nu_j + i\theta_j}"
    for demo in demonstrations(e.id):
        f = facts(demo)
        assert f["smallest |λ| as printed"] > 1 > f["largest |λ| of the springs' exp(AΔ)"]
        assert f["smallest ν = cΔ/2m (positive damping)"] > 0
        assert demo.printed_error > FAILS_ABOVE and demo.corrected_error < HOLDS_BELOW


def test_dss_row_sums_rows_instead_of_scaling_them():
    e = BY_ID["lcsm-table1-dss"]
    assert "Table 1" in e.location and "DSS" in e.location
    for demo in demonstrations(e.id):
        assert demo.printed_error > FAILS_ABOVE and demo.corrected_error < HOLDS_BELOW
        assert facts(demo)["ψ = × with Diag(a) through the core, error"] < HOLDS_BELOW


def test_deltanet_eigenvalues_never_exceed_one_the_unstable_one_falls_below_minus_one():
    e = BY_ID["longhorn-4-deltanet-eigenvalues"]
    assert e.source == "Longhorn paper" and "Related Work" in e.location and ">>>1" in e.quote
    for demo in demonstrations(e.id):
        f = facts(demo)
        assert f["largest eigenvalue over all draws, minus 1"] < 1e-12                  # none above 1
        assert f["largest eigenvalue outside the unit disc (all are below −1)"] < -1
        assert f["smallest β‖k‖² among those draws (> 2)"] > 2
        assert 0.1 < f["share of draws with an eigenvalue outside the unit disc"] < 0.9
        assert demo.printed_error > 2 and demo.corrected_error < HOLDS_BELOW


def test_longhorn_row_ones_matrix_is_d_by_m():
    e = BY_ID["longhorn-table4-longhorn"]
    assert "Table 4" in e.location and "Longhorn row" in e.location and "1_{m\\times n}" in e.printed
    for demo in demonstrations(e.id):
        assert demo.printed_error is None and "must match the size" in demo.printed_failure
        assert demo.corrected_error < HOLDS_BELOW
        assert facts(demo)["d = m = n: the printed form runs and holds, error"] < HOLDS_BELOW


def test_note_real_part_is_not_the_complex_sum():
    e = BY_ID["note-cosformer-real-part"]
    assert e.source == "MNet note" and "Cosformer" in e.location and "Proof" in e.location
    for demo in demonstrations(e.id):
        f = facts(demo)
        assert demo.printed_error > FAILS_ABOVE and demo.corrected_error < HOLDS_BELOW
        assert f["largest |imaginary part| of the printed sum"] == pytest.approx(demo.printed_error)
        assert f["the Lrpe explanation's same line, Rel{[kv]ₜ} = Σ Λᵗ⁻ˢ kₛvₛᵀ: error"] > FAILS_ABOVE


def test_note_mamba_forget_state_has_the_memory_shape():
    e = BY_ID["note-mamba-shapes"]
    assert e.source == "MNet note" and "Mamba" in e.location and r"k\times e" in e.printed
    for demo in demonstrations(e.id):
        assert demo.printed_error is None and "must match the size" in demo.printed_failure
        assert demo.corrected_error < HOLDS_BELOW


@pytest.mark.parametrize("erratum_id,printed,corrected", [("lcsm-table1-caption", "subscript } i", "subscript } t"),
                                                          ("lcsm-3.2-codes", r"1\text{-}1\text{-}1 \text",
                                                           r"1\text{-}1\text{-}1\text{-}0")])
def test_label_errors_are_notation_errors(erratum_id, printed, corrected):
    e = BY_ID[erratum_id]
    assert e.kind == NOTATION and e.demonstrate is None and printed in e.printed and corrected in e.corrected


def test_m2_names_its_readings_and_checks_the_one_built():
    e = BY_ID["lcsm-table7-m2"]
    assert e.kind == UNDEFINED and e.quote_file == "lcsm-paper-html.txt" and r"\bar{\mathbf{k}}" in e.quote
    assert r"\hat{\mathbf k}_t\hat{\mathbf k}_t^{\top}" in e.corrected and r"\le 2" in e.detail
    for demo in demonstrations(e.id):
        f = facts(demo)
        assert demo.printed_error is None and "never defined" in demo.printed_failure
        assert demo.corrected_error < HOLDS_BELOW
        assert f["the core's M2: largest |eigenvalue − {0, 1}| (numpy eigvalsh)"] < HOLDS_BELOW
        assert f["the core's M2 vs FWP's delta rule (Eq. 13) with β = 1, unit keys: error"] < HOLDS_BELOW
        assert f["second projection: largest spectral radius of two stable steps in a row"] > 1
        readings = {row["reading of k̄"]: row for row in demo.table}
        assert len(readings) == 4 and all(float(row["|1 − k̄ᵀk − numpy's eigenvalue|"]) < 1e-9 for row in demo.table)
        built = readings["built here: I − k̂ k̂ᵀ, expand k̂"]
        assert built["unstable draws"] == "0%" and built["largest ‖o‖₂ of a stable draw"] == 1.0
        assert readings["k̄ = W̄x, a second projection"]["largest ‖o‖₂ of a stable draw"] > 1   # not symmetric
        assert readings["k̄ = k/‖k‖: I − k k̂ᵀ = I − ‖k‖ k̂ k̂ᵀ"]["unstable draws"] != "0%"


@pytest.mark.parametrize("seed", range(20))
def test_verdicts_do_not_depend_on_the_draw(seed):
    assert all(row["confirmed"] for row in check_errata(seed) if row["numeric"])
