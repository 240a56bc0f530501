"""Colour arithmetic for the accessibility tests: WCAG 2.2 contrast ratios, colour-vision deficiency as Machado,
Oliveira and Fernandes (2009) simulate it, and CIEDE2000 colour differences.

- `contrast(a, b)`: WCAG's (L1 + 0.05) / (L2 + 0.05) of two opaque colours' relative luminances;
- `simulated(color, deficiency)`: the colour a protanope, deuteranope or tritanope sees (Machado et al.'s matrices
  at severity 1, applied to linear RGB, as Chromium's `Emulation.setEmulatedVisionDeficiency` filters do);
- `delta_e(a, b)`: CIEDE2000 (Sharma, Wu and Dalal 2005) between two colours in CIELAB (D65);
- `resolved(color, theme)`: a figure's colour as the browser draws it in Streamlit's light or dark theme — the
  theme placeholders of figure_style (INK, PAPER) replaced, an rgba colour blended over what lies beneath.
"""
from __future__ import annotations

import math
import re

import numpy as np

from lcsm_explorer.app.kit.figure_style import INK, PAPER

DEFICIENCIES = ("protanopia", "deuteranopia", "tritanopia")
MACHADO = {                 # Machado, Oliveira & Fernandes 2009, Table 1, severity 1.0 (linear RGB)
    "protanopia": np.array([[0.152286, 1.052583, -0.204868],
                            [0.114503, 0.786281, 0.099216],
                            [-0.003882, -0.048116, 1.051998]]),
    "deuteranopia": np.array([[0.367322, 0.860646, -0.227968],
                              [0.280085, 0.672501, 0.047413],
                              [-0.011820, 0.042940, 0.968881]]),
    "tritanopia": np.array([[1.255528, -0.076749, -0.178779],
                            [-0.078411, 0.930809, 0.147602],
                            [0.004733, 0.691367, 0.303900]]),
}
# What INK and PAPER become in Streamlit 1.67's default themes: of the text colours its chart element (gray90,
# gray10) and the lesson instrument (the component's --st-text-color) draw, the one of lower contrast.
# tests/browser/test_colour_vision_browser.py reads the drawn colours back from both.
THEMES = {"light": {INK: "#2F2D2B", PAPER: "#FFFFFF"}, "dark": {INK: "#EDEBE8", PAPER: "#171614"}}
NAMED = {"white": "#FFFFFF", "black": "#000000"}
RGBA = re.compile(r"^rgba?\(\s*([\d.]+)\s*,\s*([\d.]+)\s*,\s*([\d.]+)\s*(?:,\s*([\d.]+)\s*)?\)$")


def rgba(color: str) -> tuple[np.ndarray, float]:
    """(sRGB in 0..1, alpha) of "#rgb", "#rrggbb", "rgb(...)", "rgba(...)" or "white"/"black"."""
    text = NAMED.get(color.strip().lower(), color.strip())
    if text.startswith("#"):
        digits = text[1:]
        if len(digits) == 3:
            digits = "".join(d * 2 for d in digits)
        return np.array([int(digits[i:i + 2], 16) for i in (0, 2, 4)]) / 255, 1.0
    found = RGBA.match(text)
    if not found:
        raise ValueError(f"not a colour: {color!r}")
    r, g, b, a = found.groups()
    return np.array([float(r), float(g), float(b)]) / 255, 1.0 if a is None else float(a)


def hex_color(rgb: np.ndarray) -> str:
    return "#%02X%02X%02X" % tuple(int(round(255 * c)) for c in np.clip(rgb, 0, 1))


def resolved(color: str, theme: str, beneath: str | None = None, opacity: float = 1.0) -> str:
    """`color` as drawn in `theme` ("light", "dark") at `opacity`: a placeholder replaced, an alpha blended over
    `beneath` (default: the theme's background)."""
    colours = THEMES[theme]
    rgb, alpha = rgba(colours.get(color.upper(), color))
    alpha *= opacity
    if alpha < 1:
        under, _ = rgba(resolved(beneath or PAPER, theme))
        rgb = alpha * rgb + (1 - alpha) * under
    return hex_color(rgb)


def _linear(rgb: np.ndarray) -> np.ndarray:
    return np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)


def _gamma(linear: np.ndarray) -> np.ndarray:
    linear = np.clip(linear, 0, 1)
    return np.where(linear <= 0.0031308, 12.92 * linear, 1.055 * linear ** (1 / 2.4) - 0.055)


def luminance(color: str) -> float:
    return float(_linear(rgba(color)[0]) @ np.array([0.2126, 0.7152, 0.0722]))


def contrast(a: str, b: str) -> float:
    low, high = sorted((luminance(a), luminance(b)))
    return (high + 0.05) / (low + 0.05)


def simulated(color: str, deficiency: str) -> str:
    """`color` as seen with `deficiency` ("protanopia", "deuteranopia", "tritanopia"; "normal": unchanged)."""
    if deficiency == "normal":
        return hex_color(rgba(color)[0])
    return hex_color(_gamma(MACHADO[deficiency] @ _linear(rgba(color)[0])))


def lab(color: str) -> np.ndarray:
    """CIELAB (D65) of an sRGB colour."""
    xyz = np.array([[0.4124564, 0.3575761, 0.1804375],
                    [0.2126729, 0.7151522, 0.0721750],
                    [0.0193339, 0.1191920, 0.9503041]]) @ _linear(rgba(color)[0])
    xyz = xyz / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > 216 / 24389, np.cbrt(xyz), (24389 / 27 * xyz + 16) / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def ciede2000(lab1: np.ndarray, lab2: np.ndarray) -> float:
    """ΔE00 of two CIELAB colours (Sharma, Wu & Dalal 2005, with kL = kC = kH = 1)."""
    (l1, a1, b1), (l2, a2, b2) = lab1, lab2
    c_mean = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_mean ** 7 / (c_mean ** 7 + 25 ** 7)))
    a1, a2 = (1 + g) * a1, (1 + g) * a2
    c1, c2 = math.hypot(a1, b1), math.hypot(a2, b2)
    h1 = math.degrees(math.atan2(b1, a1)) % 360 if c1 else 0.0
    h2 = math.degrees(math.atan2(b2, a2)) % 360 if c2 else 0.0
    dh = 0.0 if c1 * c2 == 0 else (h2 - h1 + 180) % 360 - 180 if abs(h2 - h1) > 180 else h2 - h1
    d_l, d_c, d_h = l2 - l1, c2 - c1, 2 * math.sqrt(c1 * c2) * math.sin(math.radians(dh / 2))
    l_mean, c_mean = (l1 + l2) / 2, (c1 + c2) / 2
    if c1 * c2 == 0:
        h_mean = h1 + h2
    elif abs(h1 - h2) <= 180:
        h_mean = (h1 + h2) / 2
    else:
        h_mean = (h1 + h2 + 360) / 2 if h1 + h2 < 360 else (h1 + h2 - 360) / 2
    t = (1 - 0.17 * math.cos(math.radians(h_mean - 30)) + 0.24 * math.cos(math.radians(2 * h_mean))
         + 0.32 * math.cos(math.radians(3 * h_mean + 6)) - 0.20 * math.cos(math.radians(4 * h_mean - 63)))
    s_l = 1 + 0.015 * (l_mean - 50) ** 2 / math.sqrt(20 + (l_mean - 50) ** 2)
    s_c, s_h = 1 + 0.045 * c_mean, 1 + 0.015 * c_mean * t
    r_t = (-2 * math.sqrt(c_mean ** 7 / (c_mean ** 7 + 25 ** 7))
           * math.sin(math.radians(60 * math.exp(-(((h_mean - 275) / 25) ** 2)))))
    return math.sqrt((d_l / s_l) ** 2 + (d_c / s_c) ** 2 + (d_h / s_h) ** 2 + r_t * (d_c / s_c) * (d_h / s_h))


def delta_e(a: str, b: str, deficiency: str = "normal") -> float:
    """CIEDE2000 between two colours as seen with `deficiency`."""
    return ciede2000(lab(simulated(a, deficiency)), lab(simulated(b, deficiency)))
