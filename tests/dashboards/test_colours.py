"""Colour: categories stay apart under each colour-vision deficiency, lines stand out on white.

The simulation is Machado, Oliveira & Fernandes (2009) at full severity, applied in linear
RGB; the distance is CIEDE2000 (Sharma, Wu & Dalal 2005) in CIELAB (D65). Both written out
here, from the papers, independent of the code under test.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from attnmodel.capital import CapitalWalkthrough
from attnmodel.multihead import MultiHeadDemo
from attnmodel.scaling import ScalingDemo
from dashboards.components.style import CATEGORY_COLORS, contrast
from dashboards.demos import multihead
from dashboards.demos.capital import numbers as capital_numbers
from dashboards.demos.positional import PositionalView
from dashboards.demos.scaling import numbers

from c04_views import drawn, js_views

DEFICIENCIES = {
    "normal": np.eye(3),
    "protanopia": np.array(
        [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
         [-0.003882, -0.048116, 1.051998]]
    ),
    "deuteranopia": np.array(
        [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
         [-0.011820, 0.042940, 0.968881]]
    ),
    "tritanopia": np.array(
        [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602],
         [0.004733, 0.691367, 0.303900]]
    ),
}  # fmt: skip
# Colours shown together on one screen, each group told apart by colour.
GROUPS = {
    # The four heads' arcs and swatches, as multihead.js draws them.
    "multihead heads": tuple(
        js_views().render("multihead", multihead.numbers(MultiHeadDemo()))[f"plot_{k}"]["color"]
        for k in range(1, 5)
    ),
    # The similarity curves' colours, as positional.js draws them.
    "positional curves": tuple(
        s["color"] for s in drawn(PositionalView().figures)["similarity"]["series"]
    ),
    # París's and Roma's bars (the six other words share a grey), as capital.js draws them.
    "capital words": tuple(
        row["color"]
        for row in js_views().render("capital", capital_numbers(CapitalWalkthrough()))[
            "probability_bars"
        ]["rows"]
        if row["label"] in ("París", "Roma")
    ),
    # The two bar charts' colours, as scaling.js draws them.
    "scaling": tuple(
        js_views().render("scaling", numbers(ScalingDemo()))[f"{side}_bars"]["color"]
        for side in ("unscaled", "scaled")
    ),
}
# Below ~10 CIEDE2000 units two line colours are easily taken for one another.
MIN_DELTA_E = 10.0


def linear_rgb(color: str) -> np.ndarray:
    v = np.array([int(color[i : i + 2], 16) for i in (1, 3, 5)]) / 255
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)


def lab(rgb: np.ndarray) -> np.ndarray:
    xyz = np.array(
        [[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750],
         [0.0193339, 0.1191920, 0.9503041]]
    ) @ np.clip(rgb, 0, 1)  # fmt: skip
    t = xyz / np.array([0.95047, 1.0, 1.08883])
    f = np.where(t > (6 / 29) ** 3, np.cbrt(t), t / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def ciede2000(lab1: np.ndarray, lab2: np.ndarray) -> float:
    (l1, a1, b1), (l2, a2, b2) = lab1, lab2
    c_bar = (np.hypot(a1, b1) + np.hypot(a2, b2)) / 2
    g = 0.5 * (1 - np.sqrt(c_bar**7 / (c_bar**7 + 25**7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1p = np.degrees(np.arctan2(b1, a1p)) % 360
    h2p = np.degrees(np.arctan2(b2, a2p)) % 360
    dh = h2p - h1p
    if c1p * c2p == 0:
        dh = 0.0
    elif dh > 180:
        dh -= 360
    elif dh < -180:
        dh += 360
    d_l, d_c = l2 - l1, c2p - c1p
    d_h = 2 * np.sqrt(c1p * c2p) * np.sin(np.radians(dh / 2))
    l_bar, cp_bar = (l1 + l2) / 2, (c1p + c2p) / 2
    if c1p * c2p == 0:
        h_bar = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        h_bar = (h1p + h2p) / 2
    elif h1p + h2p < 360:
        h_bar = (h1p + h2p + 360) / 2
    else:
        h_bar = (h1p + h2p - 360) / 2
    t = (
        1
        - 0.17 * np.cos(np.radians(h_bar - 30))
        + 0.24 * np.cos(np.radians(2 * h_bar))
        + 0.32 * np.cos(np.radians(3 * h_bar + 6))
        - 0.20 * np.cos(np.radians(4 * h_bar - 63))
    )
    d_theta = 30 * np.exp(-(((h_bar - 275) / 25) ** 2))
    r_c = 2 * np.sqrt(cp_bar**7 / (cp_bar**7 + 25**7))
    s_l = 1 + 0.015 * (l_bar - 50) ** 2 / np.sqrt(20 + (l_bar - 50) ** 2)
    s_c, s_h = 1 + 0.045 * cp_bar, 1 + 0.015 * cp_bar * t
    r_t = -np.sin(np.radians(2 * d_theta)) * r_c
    return float(
        np.sqrt(
            (d_l / s_l) ** 2 + (d_c / s_c) ** 2 + (d_h / s_h) ** 2 + r_t * (d_c / s_c) * (d_h / s_h)
        )
    )


def test_ciede2000_reproduces_sharma_et_al_table():
    """Three pairs of the published test data (Sharma, Wu & Dalal 2005, table 1)."""
    pairs = [
        ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
        ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
        ((22.7233, 20.0904, -46.6940), (23.0331, 14.9730, -42.5619), 2.0373),
    ]
    for lab1, lab2, expected in pairs:
        assert ciede2000(np.array(lab1), np.array(lab2)) == pytest.approx(expected, abs=1e-4)


@pytest.mark.parametrize("deficiency", DEFICIENCIES)
@pytest.mark.parametrize("group", GROUPS)
def test_categories_stay_apart_under_each_deficiency(group, deficiency):
    simulate = DEFICIENCIES[deficiency]
    colours = GROUPS[group]
    for a, b in itertools.combinations(colours, 2):
        distance = ciede2000(lab(simulate @ linear_rgb(a)), lab(simulate @ linear_rgb(b)))
        assert distance >= MIN_DELTA_E, (group, deficiency, a, b, distance)


def test_the_palette_can_draw_lines_on_white():
    """WCAG 1.4.11: a line or a mark needs 3:1 against its background."""
    for colour in CATEGORY_COLORS:
        assert contrast(colour, "#ffffff") >= 3.0, colour
