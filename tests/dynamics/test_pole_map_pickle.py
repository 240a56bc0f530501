"""A comparison's pole map travels as the numbers that fix it, not its grid points (the preview worker pickles a
family's results to the web process): small, and the same pictures after the trip."""
import pickle

import numpy as np

from lcsm_core.dynamics.discretize import euler_stability_circle, pole_map_around, pole_map_grid
from lcsm_core.dynamics.discretize_comparison import compare_discretizations


def test_a_pole_map_pickles_small_and_draws_the_same_grid_after_the_trip():
    cmp = compare_discretizations(1.0, 0.2, 1.0, 0.1)
    drawn = cmp.pole_map.lines                     # drawn once before the trip: nothing of it may travel
    sent = pickle.dumps(cmp.pole_map, pickle.HIGHEST_PROTOCOL)
    assert len(sent) < 1024                        # 14 lines × 120 points × 2 sides would be ~55 KB
    back = pickle.loads(sent)
    assert len(back.lines) == len(drawn) == 14
    for (s_got, z_got), (s_ref, z_ref) in zip(back.lines, drawn):
        assert s_got.tobytes() == s_ref.tobytes() and z_got.tobytes() == z_ref.tobytes()
    assert back.euler_circle.tobytes() == euler_stability_circle(cmp.dt).tobytes()


def test_pole_map_grid_is_the_lines_one_by_one():
    """The one-array grid equals the readable loop it replaced, to the bit: vertical lines Re s = σ over one
    turn (|Im s| ≤ π/Δ), then horizontal lines Im s = ω from the leftmost σ to 0, each with its image e^{sΔ}."""
    for dt, poles in ((0.02, [-0.1 + 1j, -0.1 - 1j]), (0.37, [-3.0, -0.5]), (2.0, [-0.01 + 3j, -0.01 - 3j])):
        pole_map = pole_map_around(np.array(poles), dt)
        w = np.linspace(-np.pi / dt, np.pi / dt, 120)
        x = np.linspace(float(np.min(pole_map.sigmas)), 0.0, 120)
        expected = [sigma + 1j * w for sigma in pole_map.sigmas] + [x + 1j * omega for omega in pole_map.omegas]
        got = pole_map_grid(dt, pole_map.sigmas, pole_map.omegas)
        assert len(got) == len(expected)
        for (s, z), s_ref in zip(got, expected):
            assert s.tobytes() == s_ref.tobytes()
            assert z.tobytes() == np.exp(s_ref * dt).tobytes()
