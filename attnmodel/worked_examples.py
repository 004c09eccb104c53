"""The worked examples of the lecture ("el apunte"), rendered from the models, in each language.

``docs/ejemplos-trabajados.md`` (Spanish) and ``docs/worked-examples.md`` (English) are this
module's output; a test renders them again and compares, so the documents can never drift from
the code. Regenerate both with ``make docs``. The prose is the ``[worked]`` table of the text
catalogues; the numbers are written as the language writes them
(:func:`attnmodel.formatting.number`). The models' own words (tokens, sentences, countries,
output words) are Spanish data: an English document keeps them, each marked
``<span lang="es">…</span>`` (:func:`kept`), and glosses every Spanish example once.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

from . import i18n
from .capital import (
    COUNTRIES,
    COUNTRY_SLOT,
    QUERY,
    VOCABULARY,
    W_K,
    W_Q,
    W_V,
    CapitalWalkthrough,
    U,
)
from .explorer import POSITION_WEIGHT, SCORE_SCALE, TOKEN_DIM, AttentionExplorer
from .formatting import number, percent
from .multihead import RELATIONS, MultiHeadDemo
from .positional import WORKED_D, WORKED_TOKENS, PositionalEncodingDemo
from .scaling import N_KEYS, ScalingDemo
from .self_attention import SelfAttention
from .training import FACTS, HELD_OUT, ROLES, TRAINING_COUNTRIES, TrainingDemo, corpus

DOCS = Path(__file__).resolve().parent.parent / "docs"
# The document of each language.
DOC_PATHS = {"es": DOCS / "ejemplos-trabajados.md", "en": DOCS / "worked-examples.md"}
DOC_PATH = DOC_PATHS[i18n.DEFAULT_LANG]
# The language of the models' words: a document in another language keeps them, marked.
EXAMPLES_LANG = "es"
# Catalogue keys of the labels of attnmodel.multihead.RELATION_NAMES and capital.DIMENSIONS.
DIMENSION_KEYS = ("place", "function", "identity")


def kept(word: str, lang: str = i18n.DEFAULT_LANG) -> str:
    """A word of the models' examples as ``lang``'s document shows it: as is in Spanish, marked
    ``<span lang="es">`` in any other language (kept on purpose, not left untranslated)."""
    return word if lang == EXAMPLES_LANG else f'<span lang="{EXAMPLES_LANG}">{word}</span>'


def matrix_md(m, row_labels=None, col_labels=None, decimals: int = 4, lang: str = "es") -> str:
    """A Markdown table of a matrix, its numbers written as ``lang`` writes them."""
    m = np.atleast_2d(np.asarray(m, dtype=float))
    row_labels = row_labels or [str(i + 1) for i in range(m.shape[0])]
    col_labels = col_labels or [str(j + 1) for j in range(m.shape[1])]
    lines = [
        "| | " + " | ".join(col_labels) + " |",
        "|---|" + "---:|" * m.shape[1],
    ]
    for label, row in zip(row_labels, m, strict=True):
        cells = " | ".join(number(v, decimals, lang=lang) for v in row)
        lines.append(f"| {label} | {cells} |")
    return "\n".join(lines)


class _Writer:
    """The words and numbers of one language's document."""

    def __init__(self, lang: str):
        self.lang = lang

    def t(self, key: str, **values) -> str:
        return i18n.text(f"worked.{key}", self.lang, **values)

    def num(self, x: float, decimals: int = 2, signed: bool = False) -> str:
        return number(x, decimals, signed, self.lang)

    def nums(self, xs, decimals: int = 2) -> str:
        return ", ".join(self.num(x, decimals) for x in xs)

    def pct(self, p: float, decimals: int = 0) -> str:
        return percent(p, decimals, self.lang)

    def kept(self, word: str) -> str:
        return kept(word, self.lang)

    def matrix(self, m, row_labels=None, col_labels=None, decimals: int = 4) -> str:
        return matrix_md(m, row_labels, col_labels, decimals, self.lang)


def _self_attention(w: _Writer) -> str:
    m = SelfAttention()
    tok = ["token 1", "token 2", "token 3"]
    out = [
        w.t("self_attention.heading"),
        "",
        w.t("self_attention.lead"),
        "",
        w.t("self_attention.input"),
        "",
        w.matrix(m.X, tok, decimals=0),
        "",
        w.t("self_attention.projections"),
        "",
        "$W_Q$:",
        "",
        w.matrix(m.W_Q, decimals=0),
        "",
        "$W_K$:",
        "",
        w.matrix(m.W_K, decimals=0),
        "",
        "$W_V$:",
        "",
        w.matrix(m.W_V, decimals=0),
        "",
        "$Q = XW_Q$, $K = XW_K$, $V = XW_V$:",
        "",
        w.matrix(np.hstack([m.Q, m.K, m.V]), tok, ["Q₁", "Q₂", "K₁", "K₂", "V₁", "V₂"], 0),
        "",
        w.t("self_attention.scores", d_k=m.d_k),
        "",
        w.matrix(m.Q @ m.K.T, tok, tok, 0),
        "",
        w.matrix(m.scores, tok, tok),
        "",
        w.t("self_attention.weights"),
        "",
        w.matrix(m.weights, tok, tok),
        "",
        w.t("self_attention.output"),
        "",
        w.matrix(m.Z, tok, ["dim 1", "dim 2"]),
        "",
    ]
    m.causal = True
    out += [
        w.t("self_attention.causal", row=w.nums(m.weights[0], 0)),
        "",
        w.matrix(m.weights, tok, tok),
        "",
    ]
    m.causal = False
    base_gradient = m.gradient
    m.preset = "puntajes grandes"
    m.scaled = False
    out += [
        w.t("self_attention.large_scores"),
        "",
        w.matrix(m.weights, tok, tok),
        "",
        w.t(
            "self_attention.gradient",
            large=w.nums(m.gradient, 5),
            base=w.nums(base_gradient, 4),
        ),
        "",
    ]
    m.preset = "W_K = W_Q"
    m.scaled = True
    out += [
        w.t("self_attention.wk_equals_wq"),
        "",
        w.matrix(m.weights, tok, tok),
        "",
    ]
    return "\n".join(out)


def _scaling(w: _Writer) -> str:
    columns = ("std", "entropy_unscaled", "entropy_scaled", "gradient_unscaled", "gradient_scaled")
    names = [w.t(f"scaling.col_{c}") for c in columns]
    rows = [
        "| $d_k$ | " + " | ".join([names[0], "√d_k", *names[1:]]) + " |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for d_k in (1, 4, 16, 64, 256, 1024):
        s = ScalingDemo(d_k=d_k)
        rows.append(
            f"| {d_k} | {w.num(s.score_std)} | {w.num(math.sqrt(d_k))} | "
            f"{w.num(s.entropy_unscaled)} | {w.num(s.entropy_scaled)} | "
            f"{w.num(s.gradient_unscaled, 3)} | {w.num(s.gradient_scaled, 3)} |"
        )
    s = ScalingDemo()
    return "\n".join(
        [
            w.t("scaling.heading"),
            "",
            w.t(
                "scaling.lead",
                keys=N_KEYS,
                trials=s.n_trials,
                seed=s.seed,
                max_bits=w.num(math.log2(N_KEYS), 0),
            ),
            "",
            *rows,
            "",
            w.t(
                "scaling.defaults",
                d_k=s.d_k,
                std=w.num(s.score_std),
                unscaled=w.num(s.entropy_unscaled),
                scaled=w.num(s.entropy_scaled),
                trials=s.n_trials,
            ),
            "",
            w.t(
                "scaling.bars",
                unscaled=", ".join(w.pct(p, 1) for p in s.weights_unscaled),
                scaled=", ".join(w.pct(p, 1) for p in s.weights_scaled),
                sample_unscaled=w.num(s.sample_entropy_unscaled),
                sample_scaled=w.num(s.sample_entropy_scaled),
            ),
            "",
        ]
    )


def _multihead(w: _Writer) -> str:
    m = MultiHeadDemo()
    out = [
        w.t("multihead.heading"),
        "",
        w.t(
            "multihead.lead",
            sentence=w.kept(m.sentence),
            d_model=m.d_model,
            heads=m.n_heads,
            d_k=m.d_k,
        ),
        "",
    ]
    tokens = [w.kept(t) for t in m.tokens]
    for k, weights in enumerate(m.weights):
        top = [
            f"{tokens[i]} → {tokens[int(np.argmax(row))]} ({w.pct(row.max())})"
            for i, row in enumerate(weights)
        ]
        name = i18n.text(f"multihead.relation.{RELATIONS[k]}", w.lang)
        out += [w.t("multihead.head", number=k + 1, name=name, top="; ".join(top)), ""]
    out += [
        w.t("multihead.combined"),
        "",
        w.matrix(m.combined, tokens, tokens, 2),
        "",
    ]
    m.n_heads = 1
    single = m.weights[0]
    top = [f"{tokens[i]} → {tokens[int(np.argmax(row))]}" for i, row in enumerate(single)]
    out += [w.t("multihead.single", d_k=m.d_k, top="; ".join(top)), ""]
    return "\n".join(out)


def _positional(w: _Writer) -> str:
    p = PositionalEncodingDemo()
    table = [
        f"| Vector | dim 0 | dim 1 | dim 2 | dim 3 | {w.t('positional.col_comment')} |",
        "|---|---:|---:|---:|---:|---|",
    ]
    # worked_table: for each token, the rows x(token), PE(pos) and x(token) + PE(pos).
    for i, row in enumerate(p.worked_table):
        pos, kind = divmod(i, 3)
        token = w.kept(WORKED_TOKENS[pos])
        if kind == 0:
            vector, comment = f"x({token})", w.t("positional.comment_embedding", token=token)
        elif kind == 1:
            vector = f"PE({pos})"
            comment = (
                w.t("positional.comment_pe0")
                if pos == 0
                else w.t("positional.comment_pe", pos=pos, slow=w.num(pos / 100))
            )
        else:
            vector = f"x({token}) + PE({pos})"
            comment = w.t("positional.comment_sum", token=token, pos=pos)
        values = " | ".join(w.num(v, 4) for v in row["values"])
        table.append(f"| {vector} | {values} | {comment} |")
    sim = p.similarity_normalised
    return "\n".join(
        [
            w.t("positional.heading"),
            "",
            "$PE_{(pos,2i)} = \\sin(pos/10000^{2i/d})$, "
            "$PE_{(pos,2i+1)} = \\cos(pos/10000^{2i/d})$.",
            "",
            w.t("positional.example", d=WORKED_D),
            "",
            *table,
            "",
            w.t("positional.similarity", d=p.d_model, positions=p.n_positions),
            "",
            w.t("positional.similarity_lead", half=p.d_model // 2),
            "",
            "| Δ | " + " | ".join(str(d) for d in range(0, 11)) + " |",
            "|---|" + "---:|" * 11,
            f"| {w.t('positional.similarity_row')} | "
            + " | ".join(w.num(v, 3) for v in sim[:11])
            + " |",
            "",
        ]
    )


def _capital(w: _Writer) -> str:
    m = CapitalWalkthrough()
    tok = [w.kept(t) for t in m.tokens]
    query = tok[QUERY]
    vocabulary = [w.kept(v) for v in m.vocabulary]
    dim_names = {k: i18n.text(f"capital.dimension.{k}", w.lang) for k in DIMENSION_KEYS}
    dims = list(dim_names.values())
    first_country, second_country = (w.kept(c) for c in COUNTRIES)
    out = [
        w.t("capital.heading"),
        "",
        w.t(
            "capital.dimensions",
            d_model=len(dims),
            first=first_country,
            second=second_country,
            **dim_names,
        ),
        "",
        w.t("capital.step1", tokens=" · ".join(tok)),
        "",
        w.t(
            "capital.step2",
            country=tok[COUNTRY_SLOT],
            identity=w.num(m.identity, 2, signed=True),
        ),
        "",
        w.matrix(m.embeddings, tok, dims, 2),
        "",
        w.t("capital.step3"),
        "",
        w.matrix(m.positional, tok, dims),
        "",
        w.matrix(m.with_position, tok, dims),
        "",
        w.t("capital.step4", place=dim_names["place"]),
        "",
        "$W_Q$:",
        "",
        w.matrix(W_Q, dims, dims, 0),
        "",
        "$W_K$:",
        "",
        w.matrix(W_K, dims, dims, 0),
        "",
        "$W_V$:",
        "",
        w.matrix(W_V, dims, dims, 0),
        "",
        w.t("capital.query", token=query, vector=w.nums(m.Q[QUERY])),
        "",
        w.matrix(m.K, tok, dims),
        "",
        w.t("capital.step5", token=query, n=len(tok)),
        "",
        w.matrix(m.scores[None, :], [query], tok),
        "",
        w.t("capital.step6", token=query),
        "",
        w.matrix(m.attention_row[None, :], [query], tok),
        "",
        w.t("capital.step7", vector=w.nums(m.mixed, 4)),
        "",
        w.t("capital.step8"),
        "",
        w.matrix(U, vocabulary, dims),
        "",
    ]
    identity = dim_names["identity"]
    rows = [
        f"| {identity} | {w.t('capital.col_country')} | "
        + " | ".join(vocabulary)
        + f" | {w.t('capital.col_prediction')} | p | −ln p |",
        "|---:|---|" + "---:|" * len(vocabulary) + "---|---:|---:|",
    ]
    logit_rows = [
        f"| {identity} | " + " | ".join(vocabulary) + " |",
        "|---:|" + "---:|" * len(vocabulary),
    ]
    france, italy = COUNTRIES
    probabilities = {}
    for country, value in ((france, 0.90), (france, 0.0), (italy, -0.90)):
        m.country = country
        m.identity = value
        probabilities[value] = m.probabilities
        p = m.probability_vector
        top = [w.kept(word) for word, pw in zip(VOCABULARY, p, strict=True) if pw == p.max()]
        prediction = top[0] if len(top) == 1 else w.t("capital.tie", first=top[0], second=top[1])
        cells = " | ".join(w.num(x, 4) for x in p)
        rows.append(
            f"| {w.num(value, 2, signed=True)} | {w.kept(country)} | {cells} | {prediction} | "
            f"{w.num(m.probability, 4)} | {w.num(m.loss, 4)} |"
        )
        logit_rows.append(
            f"| {w.num(value, 2, signed=True)} | "
            + " | ".join(w.num(x, 4) for x in m.logits)
            + " |"
        )
    m.country = france
    slopes = m.identity_slopes
    attention = w.num(m.attention_row[COUNTRY_SLOT], 4)
    paris, rome = VOCABULARY[:2]
    out += [
        "Logits:",
        "",
        *logit_rows,
        "",
        w.t("capital.probabilities"),
        "",
        *rows,
        "",
        w.t("capital.same_row"),
        "",
        w.t(
            "capital.why",
            low=w.num(probabilities[-0.90][rome]),
            high=w.num(probabilities[0.90][paris]),
            token=query,
            attention=attention,
            first=w.kept(paris),
            second=w.kept(rome),
            u_first=w.num(U[0, 2]),
            u_second=w.num(U[1, 2]),
            slope_first=w.num(slopes[paris], 4),
            slope_second=w.num(slopes[rome], 4),
            place=dim_names["place"],
            identity=identity,
        ),
        "",
    ]
    return "\n".join(out)


def _explorer(w: _Writer) -> str:
    m = AttentionExplorer()
    tokens = [w.kept(t) for t in m.tokens]
    focus = tokens[m.focus]
    header = f"| {w.t('explorer.col_query')} | " + " | ".join(tokens) + " |"
    rule = "|---|" + "---:|" * len(tokens)

    def percent_row(label, row):
        return f"| {label} | " + " | ".join(w.pct(p) for p in row) + " |"

    def labelled(row, decimals: int = 0) -> str:
        return ", ".join(f"{t} {w.pct(p, decimals)}" for t, p in zip(tokens, row, strict=True))

    out = [
        w.t("explorer.heading"),
        "",
        w.t(
            "explorer.lead",
            sentence=w.kept(m.sentence),
            token=focus,
            index=m.focus,
            temperature=w.num(m.temperature, 0),
            dim=TOKEN_DIM,
            length=w.num(POSITION_WEIGHT),
            scale=w.num(SCORE_SCALE),
        ),
        "",
        w.t("explorer.row", token=focus),
        "",
        header,
        rule,
        percent_row(focus, m.row),
        "",
        w.t("explorer.one_decimal", row=labelled(m.row, 1)),
        "",
        w.t("explorer.full_map"),
        "",
        header,
        rule,
        *(percent_row(t, r) for t, r in zip(tokens, m.weights, strict=True)),
        "",
    ]
    for temperature in (0.1, 3.0):
        m.temperature = temperature
        out += [
            w.t("explorer.temperature", temperature=w.num(temperature, 1), row=labelled(m.row)),
            "",
        ]
    m.temperature = 1.0
    m.causal = True
    out += [w.t("explorer.causal", token=focus, row=labelled(m.row)), ""]
    return "\n".join(out)


# The training steps the document shows (all of them are checkpoints of the default run).
TRAINING_STEPS = (0, 25, 50, 100, 200)


def _training(w: _Writer) -> str:
    m = TrainingDemo()
    train, held = corpus()
    roles = [w.t(f"training.role_{r}") for r in ROLES]
    header = (
        f"| {w.t('training.col_step')} | {w.t('training.col_loss')} | p({w.kept(m.capital)}) | "
        + " | ".join(w.t("training.col_head", n=h + 1) for h in range(len(m.heads)))
        + " |"
    )
    out = [
        w.t("training.heading"),
        "",
        w.t(
            "training.lead",
            sentences=len(train),
            countries=len(TRAINING_COUNTRIES),
            held=" · ".join(f"{w.kept(c)}–{w.kept(FACTS[c])}" for c in HELD_OUT),
            held_sentences=len(held),
            seed=m.seed,
            steps=m.checkpoints[-1],
        ),
        "",
        w.t(
            "training.table",
            capital=w.kept(m.capital),
            probe=w.kept(m.prompt),
            roles=", ".join(roles),
        ),
        "",
        header,
        "|---:|---:|---:|" + "---|" * len(m.heads),
    ]
    for step in TRAINING_STEPS:
        m.step = step
        cells = [f"{w.t(f'training.role_{role}')} {w.pct(share)}" for role, share in m.roles]
        out.append(
            f"| {step} | {w.num(m.loss, 4)} | {w.num(m.capital_probability, 4)} | "
            + " | ".join(cells)
            + " |"
        )
    out.append("")
    row = m.attention[m.country_head, -1]
    out += [
        w.t(
            "training.row",
            step=m.step,
            query=w.kept(m.tokens[-1]),
            probe=w.kept(m.prompt),
            n=m.country_head + 1,
            row=", ".join(f"{w.kept(t)} {w.pct(p)}" for t, p in zip(m.tokens, row, strict=True)),
        ),
        "",
    ]
    for country in HELD_OUT:
        m.country = country
        out += [
            w.t(
                "training.held_out",
                probe=w.kept(m.prompt),
                capital=w.kept(m.capital),
                p=w.num(m.capital_probability, 4),
                prediction=w.kept(m.prediction),
                p_prediction=w.num(m.probabilities[m.prediction], 4),
            ),
            "",
        ]
    return "\n".join(out)


def render(lang: str = i18n.DEFAULT_LANG) -> str:
    """The whole document in ``lang``."""
    w = _Writer(lang)
    sections = [
        w.t("title"),
        "",
        w.t("intro"),
        "",
        _self_attention(w),
        _scaling(w),
        _multihead(w),
        _positional(w),
        _capital(w),
        _training(w),
        _explorer(w),
    ]
    return "\n".join(sections).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--lang", choices=i18n.languages(), default=i18n.DEFAULT_LANG, help="idioma del documento"
    )
    parser.add_argument("--write", type=Path, help="escribir en este archivo en vez de stdout")
    args = parser.parse_args(argv)
    text = render(args.lang)
    if args.write:
        args.write.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
