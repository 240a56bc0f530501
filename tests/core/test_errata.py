"""Every erratum in the sources: its printed form fails (or cannot be formed), its corrected form holds on
random fp64 data, and its card names where it is printed."""
import pytest

from lcsm_core.errata import BY_ID, ERRATA, check_errata
from lcsm_core.errata_demos import FAILS_ABOVE, HOLDS_BELOW

SEEDS = (0, 1, 7)


def demonstrations(erratum_id: str):
    return [BY_ID[erratum_id].demonstrate(seed) for seed in SEEDS]


def facts(demo) -> dict:
    return dict(demo.facts)


def test_the_list_is_complete_and_every_erratum_is_confirmed():
    assert [e.id for e in ERRATA] == ["note-expand", "lcsm-eq9", "lcsm-table1-retnet", "lcsm-5.3-labels",
                                      "lcsm-5.3-order", "lcsm-3.1-codes", "longhorn-table4-gla", "lru-exponent-sign",
                                      "lcsm-table1-dss", "lcsm-2.3-s4", "lcsm-2.3-tnn", "lcsm-table4-duplicate",
                                      "lcsm-table6-duplicate", "lru-power-angle", "longhorn-appc-scalar",
                                      "longhorn-3-orientation"]
    for seed in SEEDS:
        rows = check_errata(seed)
        assert all(row["confirmed"] for row in rows), [row["id"] for row in rows if not row["confirmed"]]
    for e in ERRATA:
        assert e.printed != e.corrected and e.why and e.measure and e.location


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
        assert demo.printed_error is None and "must broadcast" in demo.printed_failure
        assert demo.corrected_error < HOLDS_BELOW
        assert all(value < HOLDS_BELOW for value in facts(demo).values())        # k = d agrees; Diag(ō) with ψ = ×


def test_table1_retnet_oscillation_is_k_by_d():
    e = BY_ID["lcsm-table1-retnet"]
    assert "Table 1" in e.location and "TNL/RetNet" in e.location
    assert r"\mathbf J^{(k)}" in e.printed and r"\mathbf J^{(kd)}" in e.corrected
    for demo in demonstrations(e.id):
        assert demo.printed_error is None and "must broadcast" in demo.printed_failure
        assert demo.corrected_error < HOLDS_BELOW


def test_appendix_derivations_belong_to_the_other_method():
    e = BY_ID["lcsm-5.3-labels"]
    assert "Appendix 5.3" in e.location and "(14)" in e.location and "(15)" in e.location
    for demo in demonstrations(e.id):
        f = facts(demo)
        assert f["(14) vs LRPE's recurrence (Eq. 10)"] < HOLDS_BELOW
        assert f["(15) vs Cosformer's recurrence (§2.3)"] < HOLDS_BELOW
        assert f["(14) vs Cosformer's recurrence (§2.3)"] > FAILS_ABOVE
        assert f["(15) vs LRPE's recurrence (Eq. 10)"] > FAILS_ABOVE
        assert demo.printed_fails and demo.corrected_holds


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


def test_s4_channel_reads_and_writes_numbers():
    e = BY_ID["lcsm-2.3-s4"]
    assert "§2.3" in e.location and "S4" in e.location
    for demo in demonstrations(e.id):
        assert demo.printed_error is None and "3×3" in demo.printed_failure and "3×1" in demo.printed_failure
        assert demo.corrected_error < HOLDS_BELOW
        assert facts(demo)["a bank of d SISO SSMs vs one k×d memory through the core, error"] < HOLDS_BELOW


def test_tnn_recurrence_is_a_bank_of_channels():
    e = BY_ID["lcsm-2.3-tnn"]
    assert "TNN" in e.location and r"\mathbf B\mathbf u_t^{\top}" in e.printed
    for demo in demonstrations(e.id):
        assert demo.printed_error is None and "shapes cannot be multiplied" in demo.printed_failure
        assert demo.corrected_error < HOLDS_BELOW
        assert facts(demo)["the printed readout m_tᵀC: rows × columns"] == 16.0         # d × d, not a d-vector


@pytest.mark.parametrize("erratum_id,gap", [("lcsm-table4-duplicate", 30.5 - 29.1),
                                            ("lcsm-table6-duplicate", 46.07 - 44.04)])
def test_one_code_printed_twice_is_two_models(erratum_id, gap):
    e = BY_ID[erratum_id]
    assert "Table" in e.location
    for demo in demonstrations(erratum_id):
        assert demo.printed_error == pytest.approx(gap) and demo.corrected_error == 0.0
    table6 = facts(BY_ID["lcsm-table6-duplicate"].demonstrate(0))
    assert table6["first row vs Table 5's 1-1-1-0, largest gap"] == 0.0
    assert table6["second row's parameters (M)"] == 46.07
    assert facts(BY_ID["lcsm-table4-duplicate"].demonstrate(0))[
        "§3.1 'all data-independent is worse': first minus second row (> 0)"] > 0


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


def test_lru_exponent_has_a_minus():
    e = BY_ID["lru-exponent-sign"]
    assert e.source == "LRU article" and "Equation (5)" in e.location
    assert e.printed == r"\lambda_j = e^{\nu_j + i\theta_j}"
    for demo in demonstrations(e.id):
        f = facts(demo)
        assert f["smallest |λ| as printed"] > 1 > f["largest |λ| corrected"]
        assert demo.printed_error > FAILS_ABOVE and demo.corrected_error < HOLDS_BELOW


def test_dss_row_sums_rows_instead_of_scaling_them():
    e = BY_ID["lcsm-table1-dss"]
    assert "Table 1" in e.location and "DSS" in e.location
    for demo in demonstrations(e.id):
        assert demo.printed_error > FAILS_ABOVE and demo.corrected_error < HOLDS_BELOW
        assert facts(demo)["ψ = × with Diag(a) through the core, error"] < HOLDS_BELOW


@pytest.mark.parametrize("seed", range(20))
def test_verdicts_do_not_depend_on_the_draw(seed):
    assert all(row["confirmed"] for row in check_errata(seed))
