"""Linear dynamics behind lessons 1–5: spring–mass–damper, discretization, LRU rings,
LRU parameterization stability and information propagation.

Every response here is computed by `lcsm_core.eos_scan` on the diagonalized discrete
system (see `eos_bridge`); python-control supplies the LTI objects, poles and the
discretization. No streamlit or plotly imports.
"""
from .discretize import METHODS, discretize, euler_stability_limit
from .eos_bridge import diagonalize, eos_response
from .lru_init import RingInit, lru_eigenvalues, lru_ring_init, memory_horizon
from .spring import SpringRegime, spring_mass_damper, spring_regime

__all__ = [
    "METHODS", "discretize", "euler_stability_limit", "diagonalize", "eos_response",
    "RingInit", "lru_eigenvalues", "lru_ring_init", "memory_horizon",
    "SpringRegime", "spring_mass_damper", "spring_regime",
]
