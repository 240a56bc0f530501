"""Lesson 10 · Check the math: the paper's printed backward formulas against autograd."""
import pandas as pd
import streamlit as st

from lcsm_core.backward_check import compare_backward
from lcsm_core.backward_formulas import check_all


@st.cache_data
def formula_rows(seed: int) -> list[dict]:
    return check_all(seed=seed)


@st.cache_data
def live_comparison(psi, T, k, d, complex_o, seed):
    return compare_backward(psi, T, k, d, complex_o, seed)


st.title("✅ Check the math")
st.markdown(
    "The LCSM paper (appendix 5.1, eqs. 11–12) prints the backward pass of the EOS recurrence, and the note it "
    "grew from marks the same lines *(need check)*. Here every printed line is evaluated on random data and "
    "compared with PyTorch's autograd. Three of the ten do not hold; the corrected forms are what the core's "
    "hand-written backward uses."
)
st.latex(r"\text{Type 1: } \mathbf m_t = \mathbf f_t \odot \mathbf m_{t-1} + \mathbf e_t\mathbf i_t^\top"
         r"\qquad \text{Type 2: } \mathbf m_t = \mathbf f_t\,\mathbf m_{t-1} + \mathbf e_t\mathbf i_t^\top"
         r"\qquad \mathbf y_t = \mathbf m_t^\top \mathbf s_t")

seed = st.sidebar.number_input("random problem (seed)", 0, 10_000, 0, key="seed")
rows = formula_rows(int(seed))
for row in rows:
    kind = "Type 1 (ψ = ⊙)" if row["psi"] == "elementwise" else "Type 2 (ψ = ×)"
    with st.container(border=True):
        head, verdict = st.columns([4, 1])
        head.markdown(f"**{kind} — ${row['quantity']}$**")
        if row["printed_holds"]:
            verdict.success(f"holds · error {row['printed_error']:.1e}")
        else:
            verdict.error(f"wrong · error {row['printed_error']:.2g}")
        st.caption("as printed")
        st.latex(row["printed"])
        if not row["printed_holds"]:
            st.caption(f"corrected (error {row['corrected_error']:.1e})")
            st.latex(row["corrected"])
        st.caption(row["note"])

st.subheader("Run it yourself: the core's hand-written backward vs autograd")
st.markdown("For complex oscillations every multiplier in the backward is conjugated (PyTorch's convention: the "
            "gradient of a real loss is taken with respect to the conjugate).")
c1, c2, c3, c4, c5 = st.columns(5)
psi = c1.selectbox("ψ", ["elementwise", "matrix"], key="psi")
T = c2.slider("T", 1, 64, 8, key="T")
k = c3.slider("k", 1, 16, 4, key="k")
d = c4.slider("d", 1, 16, 3, key="d")
complex_o = c5.toggle("complex o", key="complex")
result = live_comparison(psi, T, k, d, complex_o, int(seed))
st.dataframe(pd.DataFrame({"state": [f"d{n}" for n in result["errors"]],
                           "max |manual − autograd|": list(result["errors"].values())}), hide_index=True)
if result["gradcheck"]:
    st.success(f"torch.autograd.gradcheck passes (fp64). Largest gradient entry: {result['scale']:.3g}.")
else:
    st.error("gradcheck failed: the hand-written backward disagrees with finite differences.")
