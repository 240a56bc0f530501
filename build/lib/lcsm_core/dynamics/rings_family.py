"""Lesson 3's preview family in one call: `ring_study` at many rings, the impulse responses in one EOS scan.

Each member's ring, horizons and picks are `ring_study`'s own (`ring_parts`: a few arrays of N numbers); what
costs is λᵗ of the three picked eigenvalues over up to 3000 steps, which the reference scans step by step. A
single mode's impulse response has a closed form, λᵗ = exp(t log λ) (`impulse_powers`), a few milliseconds for a
whole family where its scans cost a hundred. A member equals `ring_study` at its settings to rounding
(tests/dynamics/test_families.py).
"""
from __future__ import annotations

import numpy as np

from .eigen_responses import impulse_powers
from .rings import RingStudy, ring_parts


def ring_study_family(n, r_min, r_max, max_phase, seed=0) -> list[RingStudy | None]:
    """[`ring_study(n_j, r_min_j, r_max_j, max_phase_j, seed_j)`], the arguments broadcast against each other
    (one of them is usually the swept setting); None for a member `ring_study` refuses (ValueError)."""
    members = [tuple(x.item() for x in params) for params in zip(*np.broadcast_arrays(n, r_min, r_max, max_phase,
                                                                                        seed))]
    parts, lengths = [], []                       # each member's fields and impulse length (None, 0: refused)
    for n_j, low, high, phase, seed_j in members:
        try:
            fields, steps = ring_parts(int(n_j), low, high, phase, int(seed_j))
        except ValueError:
            fields, steps = None, 0
        parts.append(fields)
        lengths.append(steps)
    return [None if fields is None else
            RingStudy(**fields, impulse=impulse_powers(fields["eigenvalues"][fields["picked"]], steps))
            for fields, steps in zip(parts, lengths)]
