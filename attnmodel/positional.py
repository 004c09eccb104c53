"""Demo 4: the sinusoidal positional encoding and the worked d = 4 table."""

from __future__ import annotations

import numpy as np
import param

from ._params import StrictInteger
from .core import sinusoidal_encoding
from .formatting import number
from .i18n import DEFAULT_LANG, Refusal, text


class EvenInteger(StrictInteger):
    """An integer that must be even (sin/cos come in pairs)."""

    def _validate_value(self, val, allow_None):
        super()._validate_value(val, allow_None)
        if val is not None and val % 2:
            raise Refusal("positional.odd_d_model", value=val)


# The worked example of the notes: "el perro mordió", three contiguous tokens, d = 4. The tokens
# only label the rows (the embeddings are the example's numbers): each language names them in
# its catalogue (positional.worked_tokens: "the dog bit" in English), these are the Spanish ones.
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
            raise Refusal("positional.position_out_of_range", last=self.n_positions - 1)
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
        """Rows x, PE(pos), x + PE(pos) for the three tokens, with the comment column (Spanish)."""
        return self.worked_rows()

    def worked_rows(self, lang: str = DEFAULT_LANG) -> list[dict]:
        """:attr:`worked_table` with its tokens and comments in ``lang`` (same numbers)."""
        tokens = worked_tokens(lang)
        pe = sinusoidal_encoding(len(tokens), WORKED_D)
        rows = []
        for pos, (token, x) in enumerate(zip(tokens, WORKED_EMBEDDINGS, strict=True)):
            rows.append(
                {
                    "vector": f"x({token})",
                    "values": x.copy(),
                    "comment": text("positional.comment_embedding", lang, token=token),
                }
            )
            rows.append(
                {
                    "vector": f"PE({pos})",
                    "values": pe[pos].copy(),
                    "comment": _pe_comment(pos, lang),
                }
            )
            rows.append(
                {
                    "vector": f"x({token}) + PE({pos})",
                    "values": x + pe[pos],
                    "comment": text("positional.comment_sum", lang, token=token, pos=pos),
                }
            )
        return rows


def worked_tokens(lang: str = DEFAULT_LANG) -> tuple[str, ...]:
    """The three tokens of the worked example as ``lang`` names them (Spanish: WORKED_TOKENS)."""
    tokens = tuple(text("positional.worked_tokens", lang).split())
    if len(tokens) != len(WORKED_TOKENS):  # a catalogue bug, not a user's input
        raise KeyError(f"positional.worked_tokens ({lang}) debe tener {len(WORKED_TOKENS)} tokens")
    return tokens


def _pe_comment(pos: int, lang: str = DEFAULT_LANG) -> str:
    if pos == 0:
        return text("positional.comment_pe0", lang)
    return text("positional.comment_pe", lang, pos=pos, angle=number(pos / 100, lang=lang))
