"""Step-by-step formulas for each method, written from its paper, not from the EOS core.

Each takes a layer (fp64) and x (B, T, D) and returns what the layer's EOS part
(`layer.mix`) must return: y (B, T, d).
"""

import torch
import torch.nn.functional as F


def _loop(T, update, read, state):
    ys = []
    for t in range(T):
        state = update(state, t)
        ys.append(read(state, t))
    return torch.stack(ys, dim=1)


def kv_memory(q, k, v, transition):
    """S_t = transition(S_{t-1}, t) + k_t v_tᵀ ; y_t = S_tᵀ q_t  (S: B × k × d)."""
    B, T, n = k.shape
    S0 = torch.zeros(B, n, v.shape[-1], dtype=q.dtype)
    return _loop(T, lambda S, t: transition(S, t) + k[:, t, :, None] * v[:, t, None, :],
                 lambda S, t: torch.einsum("bnd,bn->bd", S, q[:, t]), S0)


def linear_attention(layer, x):
    q, k, v = layer.qkv(x)
    return kv_memory(q, k, v, lambda S, t: S)


def retnet(layer, x):
    q, k, v = layer.qkv(x)
    return kv_memory(q, k, v, lambda S, t: float(layer.decay) * S)


def cosformer(layer, x):
    """LCSM appendix 5.3: y_t = Σ_{s≤t} cos((t−s)θ) v_s k_sᵀ q_t."""
    q, k, v = layer.qkv(x)
    T = x.shape[1]
    idx = torch.arange(T, dtype=x.dtype)
    weight = torch.cos((idx[:, None] - idx[None, :]) * float(layer.theta)) * (idx[:, None] >= idx[None, :])
    return torch.einsum("ts,bsn,btn,bsd->btd", weight, k, q, v)


def lrpe(layer, x):
    """y_t = Σ_{s≤t} v_s k_sᵀ diag(cos((t−s)Θ)) q_t."""
    q, k, v = layer.qkv(x)
    T = x.shape[1]
    idx = torch.arange(T, dtype=x.dtype)
    lag = (idx[:, None] - idx[None, :])
    cos = torch.cos(lag[..., None] * layer.theta.detach()) * (lag >= 0)[..., None]    # (T, T, n)
    return torch.einsum("tsn,bsn,btn,bsd->btd", cos, k, q, v)


def gla(layer, x):
    q, k, v = layer.qkv(x)
    g = torch.sigmoid(layer.gate_proj(x)) ** (1 / layer.tau)
    return kv_memory(q, k, v, lambda S, t: g[:, t, :, None] * S)


def dur(layer, x):
    q, k, v = layer.qkv(x)
    g = torch.sigmoid(layer.gate_proj(x)) ** (1 / layer.tau)
    g_bar = torch.sigmoid(layer.value_gate_proj(x)) ** (1 / layer.tau)
    return kv_memory(q, k, v, lambda S, t: g[:, t, :, None] * g_bar[:, t, None, :] * S)


def mamba(layer, x):
    """h_t = exp(Δ_t A) ⊙ h_{t−1} + (Δ_t u_t) B_t ; y_t = hᵀ C_t, per channel c."""
    u = layer.in_proj(x)[..., : layer.d_model]
    delta = F.softplus(layer.delta_proj(u))
    A = -torch.exp(layer.A_log)                    # (n, d)
    Bt, Ct = layer.B_proj(u), layer.C_proj(u)
    h0 = torch.zeros(x.shape[0], *A.shape, dtype=x.dtype)
    return _loop(x.shape[1],
                 lambda h, t: torch.exp(delta[:, t, None, :] * A) * h + Bt[:, t, :, None] * (delta * u)[:, t, None, :],
                 lambda h, t: torch.einsum("bnd,bn->bd", h, Ct[:, t]), h0)


def hgrn(layer, x):
    lam = torch.sigmoid(layer.forget_proj(x)) * (1 - layer.lower_bound) + layer.lower_bound
    c = F.silu(layer.input_proj(x))
    gate = torch.sigmoid(layer.output_gate_proj(x))
    return _loop(x.shape[1], lambda h, t: lam[:, t] * h + (1 - lam[:, t]) * c[:, t], lambda h, t: h * gate[:, t],
                 torch.zeros(x.shape[0], layer.d_model, dtype=x.dtype))


def rwkv4(layer, x):
    """Without the denominator: m_t = exp(−w) m_{t−1} + exp(k_t) v_t ; y_t = m_t r_t, per channel."""
    w = torch.exp(layer.w_log)
    k, v, r = layer.key_proj(x), layer.value_proj(x), torch.sigmoid(layer.receptance_proj(x))
    return _loop(x.shape[1], lambda m, t: torch.exp(-w) * m + torch.exp(k[:, t]) * v[:, t],
                 lambda m, t: m * r[:, t], torch.zeros(x.shape[0], layer.d_model, dtype=x.dtype))


def _tustin(A, B, dt):
    I = torch.eye(A.shape[0], dtype=A.dtype)
    inv = torch.linalg.inv(I - dt / 2 * A)
    return inv @ (I + dt / 2 * A), inv @ (dt * B)


def s4(layer, x):
    """Per channel c: h = Ā_c h + B̄_c u_c ; y_c = C_c · h  (bilinear discretization)."""
    def channel(c):
        Abar, Bbar = _tustin(layer.A, layer.B, torch.exp(layer.log_dt[c]))
        return _loop(x.shape[1], lambda h, t: h @ Abar.T + x[:, t, c, None] * Bbar,
                     lambda h, t: h @ layer.C[c], torch.zeros(x.shape[0], layer.expand_dim, dtype=x.dtype))
    return torch.stack([channel(c) for c in range(layer.d_model)], dim=-1)


def s5(layer, x):
    Abar, Bbar = _tustin(layer.A, layer.B, torch.exp(layer.log_dt))
    return _loop(x.shape[1], lambda h, t: h @ Abar.T + x[:, t] @ Bbar.T, lambda h, t: h @ layer.C.T,
                 torch.zeros(x.shape[0], layer.expand_dim, dtype=x.dtype))


def dss(layer, x):
    """Per channel c, diagonal complex A = a (shared), zero-order hold with the channel's own Δ_c:
    h_n = exp(Δ_c a_n) h_n + (exp(Δ_c a_n) − 1)/a_n B_cn u_c ; y_c = Re Σ_n C_cn h_n."""
    a = torch.complex(-torch.exp(layer.a_real_log), layer.a_imag)

    def channel(c):
        lam = torch.exp(torch.exp(layer.log_dt[c]) * a)
        b = (lam - 1) / a * layer.B[c]
        Cc = layer.C[c].to(torch.complex128)
        return _loop(x.shape[1], lambda h, t: lam * h + b * x[:, t, c, None], lambda h, t: (h @ Cc).real,
                     torch.zeros(x.shape[0], layer.expand_dim, dtype=torch.complex128))
    return torch.stack([channel(c) for c in range(layer.d_model)], dim=-1)


def tnn(layer, x):
    """LCSM §2.3: m_t = A m_{t−1} + B ⊙ (1 u_tᵀ) with B ∈ R^{k×d} (a column per channel), y_t = m_tᵀ J."""
    lam = torch.exp(-torch.exp(layer.rate_log))
    B = layer.B.T                                  # (k, d)
    h0 = torch.zeros(x.shape[0], layer.expand_dim, layer.d_model, dtype=x.dtype)
    return _loop(x.shape[1], lambda h, t: lam[:, None] * h + B * x[:, t, None, :], lambda h, t: h.sum(1), h0)


def lru(layer, x):
    """LRU: h_t = λ ⊙ h_{t−1} + γ ⊙ (B x_t) ; y_t = Re(C h_t)   (+ D x_t outside the EOS part)."""
    lam = torch.exp(torch.complex(-torch.exp(layer.nu_log), torch.exp(layer.theta_log)))
    gamma = torch.exp(layer.gamma_log)
    Bc, Cc = layer.B.to(torch.complex128), layer.C.to(torch.complex128)
    return _loop(x.shape[1], lambda h, t: lam * h + gamma * (x[:, t].to(torch.complex128) @ Bc.T),
                 lambda h, t: (h @ Cc.T).real, torch.zeros(x.shape[0], layer.expand_dim, dtype=torch.complex128))


def deltanet(layer, x):
    """FWP / delta rule (LCSM eq. 13): W_t = W_{t−1} + β_t k_t (v_t − W_{t−1}ᵀ k_t)ᵀ ; y_t = W_tᵀ q_t."""
    q, k, v, beta = layer.keys(x)
    W0 = torch.zeros(x.shape[0], layer.expand_dim, layer.d_model, dtype=x.dtype)

    def update(W, t):
        error = v[:, t] - torch.einsum("bnd,bn->bd", W, k[:, t])
        return W + beta[:, t, :, None] * k[:, t, :, None] * error[:, None, :]
    return _loop(x.shape[1], update, lambda W, t: torch.einsum("bnd,bn->bd", W, q[:, t]), W0)


def _householder_memory(q, k, v, e):
    I = torch.eye(k.shape[-1], dtype=k.dtype)
    return kv_memory(q, e, v, lambda S, t: (I - k[:, t, :, None] * k[:, t, None, :]) @ S)


def m1(layer, x):
    q, k, v = layer.qkv(x)
    return _householder_memory(q, k, v, k)


def m2(layer, x):
    q, k, v = layer.qkv(x)
    k = k / k.norm(dim=-1, keepdim=True)
    return _householder_memory(q, k, v, k)


def m3(layer, x):
    q, k, v = layer.qkv(x)
    return kv_memory(q, k, v, lambda S, t: (1 - k[:, t, :, None]) * S)


def longhorn(layer, x):
    """Longhorn Algorithm 1: S_t = (1 − ε_t ⊗ k_t²) ⊙ S_{t−1} + (ε_t ⊙ x_t) ⊗ k_t,  ε_t = β_t / (1 + β_t k_tᵀk_t).

    S is d × m in the paper; here its transpose m × d, y_t = S_t q_t.
    """
    q, k, v = layer.qkv(x)
    beta = torch.sigmoid(layer.beta_proj(x))
    eps = beta / (1 + beta * (k * k).sum(-1, keepdim=True))
    S0 = torch.zeros(x.shape[0], layer.d_model, layer.expand_dim, dtype=x.dtype)

    def update(S, t):
        A = 1 - eps[:, t, :, None] * (k[:, t] ** 2)[:, None, :]
        return A * S + (eps[:, t] * v[:, t])[:, :, None] * k[:, t, None, :]
    return _loop(x.shape[1], update, lambda S, t: torch.einsum("bdm,bm->bd", S, q[:, t]), S0)


FORMULAS = {f.__name__: f for f in (linear_attention, retnet, cosformer, lrpe, gla, dur, mamba, hgrn, rwkv4, s4,
                                     s5, dss, tnn, lru, deltanet, m1, m2, m3, longhorn)}
