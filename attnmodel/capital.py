"""Demo 5: "La capital de ___ es …", the eight steps of the Clase 4 appendix, computed.

A one-layer, one-head toy with d_model = 3 whose weights were written by hand so that every step
can be read:

- dimension 0, "lugar": how much a token names a place;
- dimension 1, "función": how much it is a grammatical (function) word;
- dimension 2, "identidad": +1 is fully France, −1 fully Italy, 0 is neither.

Position uses the sine/cosine pair of the highest frequency in dimensions 0–1 and leaves
dimension 2 alone, so adding it never blurs the identity. The key projection ignores dimension 2,
hence the attention row of "es" is the same for every country and identity: what changes is the
content that travels through it (the value of the country token).

Why p(Roma | −0.90) ≈ 0.34 but p(París | +0.90) ≈ 0.38: the output (unembedding) vectors of París
and Roma agree on dimensions 0–1, so at identity 0 their logits are equal to the last bit; but on
the identity axis París has component +1.00 and Roma only −0.61. Each logit moves with slope
a_país · u_word[2] (attention on the country × the word's identity component), so the same
|identity| pushes París further than Roma. The asymmetry lives in the unembedding, not in the
attention.
"""

from __future__ import annotations

import math

import numpy as np
import param

from ._params import RealNumber
from .core import scaled_dot_product_attention, sinusoidal_encoding, softmax
from .i18n import text

D_MODEL = 3
COUNTRY_SLOT = 3  # index of "___" in the sentence
QUERY = 4  # "es": the last token predicts the next word
COUNTRIES = {"Francia": 0.90, "Italia": -0.90}
DIMENSIONS = ("lugar", "función", "identidad")

# Step 2: embeddings (identity of the country is filled in from the parameter).
_EMBEDDINGS = {
    "La": (0.0, 1.0, 0.0),
    "capital": (1.0, 0.5, 0.0),
    "de": (0.0, 1.0, 0.0),
    "es": (0.0, 1.0, 0.0),
}
_COUNTRY_EMBEDDING = (2.0, 0.0)  # lugar, función; identidad comes from `identity`

# Step 4: projections. "es" (a function word) asks for places; keys offer "lugar" only, so no key
# sees the identity; values pass the whole vector through.
W_Q = np.array([[0.0, 0.0, 0.0], [12.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
W_K = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
W_V = np.eye(D_MODEL)

# Step 8: output vectors. París and Roma share the "capital" component 0.5 on "lugar"; only the
# identity component differs, and not symmetrically. The six other words have zero vectors.
VOCABULARY = ("París", "Roma", "grande", "bonita", "antigua", "famosa", "una", "muy")
U = np.zeros((len(VOCABULARY), D_MODEL))
U[0] = (0.5, 0.0, 1.00)  # París
U[1] = (0.5, 0.0, -0.61)  # Roma


def positional_encoding(n_positions: int) -> np.ndarray:
    """Sinusoidal PE of the highest-frequency pair in dims 0–1; dim 2 (identity) gets none."""
    # -> [n_positions, 3]
    pe = np.zeros((n_positions, D_MODEL))
    pe[:, :2] = sinusoidal_encoding(n_positions, 2)
    return pe


class CapitalWalkthrough(param.Parameterized):
    """The full forward pass for "La capital de <país> es", one named step per property."""

    # The docs are the catalogue's (the country's is its select's tooltip, in the page's language).
    country = param.Selector(
        default="Francia", objects=list(COUNTRIES), doc=text("capital.country_help")
    )
    identity = RealNumber(0.90, bounds=(-1.0, 1.0), doc=text("capital.identity_help"))

    def __init__(self, **params):
        super().__init__(**params)
        # Watchers do not run for constructor arguments: a country given alone sets its identity.
        if "country" in params and "identity" not in params:
            self._country_sets_identity()

    @param.depends("country", watch=True)
    def _country_sets_identity(self):
        self.identity = COUNTRIES[self.country]

    @property
    def vocabulary(self) -> list[str]:
        return list(VOCABULARY)

    # 1) tokens
    @property
    def tokens(self) -> list[str]:
        return ["La", "capital", "de", self.country, "es"]

    # 2) embeddings
    @property
    def embeddings(self) -> np.ndarray:
        """[5, 3]."""
        rows = [_EMBEDDINGS[t] for t in ("La", "capital", "de")]
        rows.append((*_COUNTRY_EMBEDDING, self.identity))
        rows.append(_EMBEDDINGS["es"])
        return np.array(rows, dtype=float)

    # 3) + position
    @property
    def positional(self) -> np.ndarray:
        return positional_encoding(5)

    @property
    def with_position(self) -> np.ndarray:
        """[5, 3]: x + PE."""
        return self.embeddings + self.positional

    # 4) Q, K, V
    @property
    def Q(self) -> np.ndarray:
        return self.with_position @ W_Q

    @property
    def K(self) -> np.ndarray:
        return self.with_position @ W_K

    @property
    def V(self) -> np.ndarray:
        return self.with_position @ W_V

    def _attention(self):
        h = self.with_position
        return scaled_dot_product_attention(h[QUERY : QUERY + 1] @ W_Q, h @ W_K, h @ W_V)

    # 5) scores of "es" against the five tokens (divided by sqrt(3))
    @property
    def scores(self) -> np.ndarray:
        return self._attention().scores[0]

    # 6) softmax row of "es"
    @property
    def attention_row(self) -> np.ndarray:
        return self._attention().weights[0]

    # 7) mixed vector: what "es" carries to the output
    @property
    def mixed(self) -> np.ndarray:
        return self._attention().output[0]

    # 8) logits -> probabilities
    @property
    def logits(self) -> np.ndarray:
        """[8], in vocabulary order: u_word · mixed."""
        return U @ self.mixed

    @property
    def probability_vector(self) -> np.ndarray:
        return softmax(self.logits)

    @property
    def probabilities(self) -> dict[str, float]:
        return dict(zip(VOCABULARY, map(float, self.probability_vector), strict=True))

    @property
    def prediction(self) -> str:
        """The most probable word; an exact tie (identity 0) names both words, in Spanish
        ("París o Roma (empate)", the catalogue's ``capital.readout.tie``)."""
        p = self.probability_vector
        top = [word for word, pw in zip(VOCABULARY, p, strict=True) if pw == p.max()]
        if len(top) == 1:
            return top[0]
        return text("capital.readout.tie", words=text("capital.readout.or").join(top))

    @property
    def probability(self) -> float:
        """Probability of the prediction."""
        return float(np.max(self.probability_vector))

    @property
    def loss(self) -> float:
        """Cross-entropy if the prediction is the right word: −ln p."""
        return -math.log(self.probability)

    @property
    def identity_slopes(self) -> dict[str, float]:
        """d logit / d identity for París and Roma: attention on the country × U[word, 2]."""
        a = float(self.attention_row[COUNTRY_SLOT])
        return {"París": a * float(U[0, 2]), "Roma": a * float(U[1, 2])}
