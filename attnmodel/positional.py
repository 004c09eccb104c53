"""Demo 4: the sinusoidal positional encoding and the worked d = 4 table."""

from __future__ import annotations

import numpy as np
import param

from ._params import StrictInteger
from .core import sinusoidal_encoding
from .formatting import es_number


class EvenInteger(StrictInteger):
    """An integer that must be even (sin/cos come in pairs)."""

    def _validate_value(self, val, allow_None):
        super()._validate_value(val, allow_None)
        if val is not None and val % 2:
            raise ValueError(f"d_model debe ser par (pares seno/coseno), no {val}.")


# The worked example of the notes: "el perro mordió", three contiguous tokens, d = 4.
WORKED_TOKENS = ("el", "perro", "mordió")
WORKED_EMBEDDINGS = np.array(
    [
        [0.20, -0.10, 0.40, 0.30],
        [0.50, 0.30, -0.20, 0.10],
        [-0.30, 0.60, 0.10, -0.40],
    ]
)
WORKED_D = 4


class PositionalEncodingDemo(param.Parameterized):
    """PE[pos, 2i] = sin(pos / 10000^(2i/d)), PE[pos, 2i+1] = cos(pos / 10000^(2i/d))."""

    n_positions = StrictInteger(50, bounds=(2, 512), doc="Número de posiciones (filas).")
    d_model = EvenInteger(64, bounds=(2, 512), doc="Dimensión del modelo (columnas), par.")

    @property
    def encoding(self) -> np.ndarray:
        """[n_positions, d_model]."""
        return sinusoidal_encoding(self.n_positions, self.d_model)

    @property
    def deltas(self) -> np.ndarray:
        return np.arange(self.n_positions)

    def similarity_from(self, pos: int) -> np.ndarray:
        """PE_pos · PE_(pos+Δ) for Δ = 0 .. n_positions - 1 - pos."""
        if not 0 <= pos < self.n_positions:
            raise ValueError(f"La posición debe estar entre 0 y {self.n_positions - 1}.")
        pe = self.encoding
        return pe[pos:] @ pe[pos]

    @property
    def similarity(self) -> np.ndarray:
        """PE_pos · PE_(pos+Δ) for Δ = 0, 1, ...: the same for every pos (it is Σ_i cos(Δ ω_i))."""
        return self.similarity_from(0)

    @property
    def similarity_normalised(self) -> np.ndarray:
        """The similarity divided by its value at Δ = 0 (d_model / 2): 1 means identical."""
        return self.similarity / (self.d_model / 2)

    @property
    def worked_table(self) -> list[dict]:
        """Rows x, PE(pos), x + PE(pos) for the three tokens, with the comment column."""
        pe = sinusoidal_encoding(len(WORKED_TOKENS), WORKED_D)
        rows = []
        for pos, (token, x) in enumerate(zip(WORKED_TOKENS, WORKED_EMBEDDINGS, strict=True)):
            rows.append(
                {
                    "vector": f"x({token})",
                    "values": x.copy(),
                    "comment": f"Embedding de «{token}»: qué palabra es.",
                }
            )
            rows.append(
                {
                    "vector": f"PE({pos})",
                    "values": pe[pos].copy(),
                    "comment": _pe_comment(pos),
                }
            )
            rows.append(
                {
                    "vector": f"x({token}) + PE({pos})",
                    "values": x + pe[pos],
                    "comment": f"Lo que entra a la atención: «{token}» en la posición {pos}.",
                }
            )
        return rows


def _pe_comment(pos: int) -> str:
    if pos == 0:
        return "Posición 0: sen 0 = 0 y cos 0 = 1 en cada par."
    return (
        f"Dims 0–1 giran {pos} rad (alta frecuencia); "
        f"dims 2–3 solo {es_number(pos / 100)} rad (baja frecuencia)."
    )
