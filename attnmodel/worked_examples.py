"""The worked examples of the lecture ("el apunte"), rendered from the models.

``docs/ejemplos-trabajados.md`` is this module's output; a test renders it again and compares,
so the document can never drift from the code. Regenerate with ``make docs``.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

from .capital import COUNTRY_SLOT, DIMENSIONS, W_K, W_Q, W_V, CapitalWalkthrough, U
from .explorer import POSITION_WEIGHT, SCORE_SCALE, TOKEN_DIM, AttentionExplorer
from .formatting import es_number, es_percent
from .multihead import MultiHeadDemo
from .positional import PositionalEncodingDemo
from .scaling import N_KEYS, ScalingDemo
from .self_attention import SelfAttention

DOC_PATH = Path(__file__).resolve().parent.parent / "docs" / "ejemplos-trabajados.md"


def matrix_md(m, row_labels=None, col_labels=None, decimals: int = 4) -> str:
    """A Markdown table of a matrix with Spanish decimals."""
    m = np.atleast_2d(np.asarray(m, dtype=float))
    row_labels = row_labels or [str(i + 1) for i in range(m.shape[0])]
    col_labels = col_labels or [str(j + 1) for j in range(m.shape[1])]
    lines = [
        "| | " + " | ".join(col_labels) + " |",
        "|---|" + "---:|" * m.shape[1],
    ]
    for label, row in zip(row_labels, m, strict=True):
        lines.append(f"| {label} | " + " | ".join(es_number(v, decimals) for v in row) + " |")
    return "\n".join(lines)


def _self_attention() -> str:
    m = SelfAttention()
    tok = ["token 1", "token 2", "token 3"]
    out = [
        "## 4.2.6 · Autoatención sobre tres tokens (demo 1)",
        "",
        "Embeddings de dimensión 2; los valores de fábrica de la demo son estos.",
        "",
        "Entrada $X$:",
        "",
        matrix_md(m.X, tok, decimals=0),
        "",
        "Proyecciones:",
        "",
        "$W_Q$:",
        "",
        matrix_md(m.W_Q, decimals=0),
        "",
        "$W_K$:",
        "",
        matrix_md(m.W_K, decimals=0),
        "",
        "$W_V$:",
        "",
        matrix_md(m.W_V, decimals=0),
        "",
        "$Q = XW_Q$, $K = XW_K$, $V = XW_V$:",
        "",
        matrix_md(np.hstack([m.Q, m.K, m.V]), tok, ["Q₁", "Q₂", "K₁", "K₂", "V₁", "V₂"], 0),
        "",
        f"Puntajes $QK^\\top/\\sqrt{{d_k}}$ con $d_k = {m.d_k}$ "
        "(sin dividir son enteros: se pueden comprobar a mano):",
        "",
        matrix_md(m.Q @ m.K.T, tok, tok, 0),
        "",
        matrix_md(m.scores, tok, tok),
        "",
        "Pesos $A = \\text{softmax}(\\cdot)$ — cada fila suma 1:",
        "",
        matrix_md(m.weights, tok, tok),
        "",
        "Salida $Z = AV$:",
        "",
        matrix_md(m.Z, tok, ["dim 1", "dim 2"]),
        "",
    ]
    m.causal = True
    out += [
        "Con máscara causal la fila del token 1 es "
        f"({', '.join(es_number(v, 0) for v in m.weights[0])}): "
        "sin nada que mirar salvo a sí mismo, el softmax no tiene elección.",
        "",
        matrix_md(m.weights, tok, tok),
        "",
    ]
    m.causal = False
    base_gradient = m.gradient
    m.preset = "puntajes grandes"
    m.scaled = False
    out += [
        "**Preset 1 · puntajes grandes.** Los mismos $W$ con embeddings tres veces más largos: "
        "los puntajes son nueve veces mayores. Sin dividir por $\\sqrt{d_k}$:",
        "",
        matrix_md(m.weights, tok, tok),
        "",
        "Tamaño del gradiente del softmax por fila (norma de su jacobiano): "
        + ", ".join(es_number(g, 5) for g in m.gradient)
        + " (con el ejemplo 4.2.6: "
        + ", ".join(es_number(g, 4) for g in base_gradient)
        + ").",
        "",
    ]
    m.preset = "W_K = W_Q"
    m.scaled = True
    out += [
        "**Preset 2 · $W_K = W_Q$.** Los puntajes pasan a ser $QQ^\\top$ y la diagonal domina:",
        "",
        matrix_md(m.weights, tok, tok),
        "",
    ]
    return "\n".join(out)


def _scaling() -> str:
    rows = [
        "| $d_k$ | desviación del puntaje | √d_k | entropía media sin escalar (bits) | "
        "entropía media con escalado (bits) | gradiente medio sin escalar | "
        "gradiente medio con escalado |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for d_k in (1, 4, 16, 64, 256, 1024):
        s = ScalingDemo(d_k=d_k)
        rows.append(
            f"| {d_k} | {es_number(s.score_std)} | {es_number(math.sqrt(d_k))} | "
            f"{es_number(s.entropy_unscaled)} | {es_number(s.entropy_scaled)} | "
            f"{es_number(s.gradient_unscaled, 3)} | {es_number(s.gradient_scaled, 3)} |"
        )
    s = ScalingDemo()
    return "\n".join(
        [
            "## ¿Por qué dividir por √d_k? (demo 1, segunda parte)",
            "",
            f"Consultas y llaves con componentes independientes de varianza 1; {N_KEYS} llaves "
            f"por consulta, {s.n_trials} consultas por fila de la tabla (semilla 0): entropías y "
            "gradientes son medias sobre ellas. La entropía máxima "
            f"con {N_KEYS} llaves es 3 bits.",
            "",
            *rows,
            "",
            f"Valores por defecto de la demo ($d_k = {s.d_k}$): puntaje típico "
            f"{es_number(s.score_std)}, entropía media {es_number(s.entropy_unscaled)} bits sin "
            f"escalar y {es_number(s.entropy_scaled)} bits con escalado (media de {s.n_trials} "
            "consultas).",
            "",
            "Las barras de la demo son la primera consulta. Sin escalar: "
            + ", ".join(es_percent(p, 1) for p in s.weights_unscaled)
            + ". Con escalado: "
            + ", ".join(es_percent(p, 1) for p in s.weights_scaled)
            + ". La entropía de esa sola consulta, que la demo muestra bajo sus barras: "
            f"{es_number(s.sample_entropy_unscaled)} bits sin escalar y "
            f"{es_number(s.sample_entropy_scaled)} bits con escalado.",
            "",
        ]
    )


def _multihead() -> str:
    m = MultiHeadDemo()
    out = [
        "## Varias cabezas (demo 2)",
        "",
        f"Frase por defecto: «{m.sentence}». $d_{{model}} = {m.d_model}$, "
        f"$h = {m.n_heads}$ cabezas de dimensión $d_{{model}}/h = {m.d_k}$. Patrones "
        "ilustrativos: en un modelo real estos roles emergen del entrenamiento.",
        "",
    ]
    tokens = m.tokens
    for k, (name, weights) in enumerate(zip(m.head_names, m.weights, strict=True), start=1):
        top = [
            f"{tokens[i]} → {tokens[int(np.argmax(row))]} ({es_percent(row.max())})"
            for i, row in enumerate(weights)
        ]
        out += [f"**Cabeza {k} · {name}:** " + "; ".join(top) + ".", ""]
    out += [
        "Suma de todas las cabezas (promedio de las matrices de pesos, lo que ve la capa "
        "siguiente):",
        "",
        matrix_md(m.combined, tokens, tokens, 2),
        "",
    ]
    m.n_heads = 1
    single = m.weights[0]
    top = [f"{tokens[i]} → {tokens[int(np.argmax(row))]}" for i, row in enumerate(single)]
    out += [
        f"Con una sola cabeza de dimensión {m.d_k} las cuatro relaciones comparten una "
        "distribución: " + "; ".join(top) + ".",
        "",
    ]
    return "\n".join(out)


def _positional() -> str:
    p = PositionalEncodingDemo()
    table = [
        "| Vector | dim 0 | dim 1 | dim 2 | dim 3 | Comentario |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for row in p.worked_table:
        values = " | ".join(es_number(v, 4) for v in row["values"])
        table.append(f"| {row['vector']} | {values} | {row['comment']} |")
    sim = p.similarity_normalised
    return "\n".join(
        [
            "## Codificación posicional (demo 3)",
            "",
            "$PE_{(pos,2i)} = \\sin(pos/10000^{2i/d})$, "
            "$PE_{(pos,2i+1)} = \\cos(pos/10000^{2i/d})$.",
            "",
            "### El ejemplo del apunte: tres tokens contiguos con $d = 4$",
            "",
            *table,
            "",
            f"### Similitud en función de la distancia ($d = {p.d_model}$, "
            f"{p.n_positions} posiciones)",
            "",
            "$PE_{pos}\\cdot PE_{pos+\\Delta}$ dividido por su valor en $\\Delta = 0$ "
            f"($d/2 = {p.d_model // 2}$); es el mismo para toda posición de partida:",
            "",
            "| Δ | " + " | ".join(str(d) for d in range(0, 11)) + " |",
            "|---|" + "---:|" * 11,
            "| similitud | " + " | ".join(es_number(v, 3) for v in sim[:11]) + " |",
            "",
        ]
    )


def _capital() -> str:
    m = CapitalWalkthrough()
    tok = m.tokens
    dims = list(DIMENSIONS)
    out = [
        "## «La capital de ___ es …» — el recorrido completo (demo 4)",
        "",
        "$d_{model} = 3$; dimensiones: 0 «lugar», 1 «función», 2 «identidad» "
        "(+1 Francia, −1 Italia).",
        "",
        f"**Paso 1 · tokens:** {' · '.join(tok)}",
        "",
        "**Paso 2 · embeddings** (identidad de Francia = "
        f"{es_number(m.identity, 2, signed=True)}):",
        "",
        matrix_md(m.embeddings, tok, dims, 2),
        "",
        "**Paso 3 · + posición.** El par seno/coseno de la frecuencia más alta va en las "
        "dimensiones 0–1; la dimensión de identidad no recibe posición.",
        "",
        matrix_md(m.positional, tok, dims),
        "",
        matrix_md(m.with_position, tok, dims),
        "",
        "**Paso 4 · Q, K, V.** $W_Q$ convierte «soy palabra funcional» en «busco un lugar»; "
        "$W_K$ solo ofrece «lugar» (ignora la identidad); $W_V = I$.",
        "",
        "$W_Q$:",
        "",
        matrix_md(W_Q, dims, dims, 0),
        "",
        "$W_K$:",
        "",
        matrix_md(W_K, dims, dims, 0),
        "",
        "$W_V$:",
        "",
        matrix_md(W_V, dims, dims, 0),
        "",
        f"Consulta de «es»: ({', '.join(es_number(v) for v in m.Q[4])}). Llaves:",
        "",
        matrix_md(m.K, tok, dims),
        "",
        "**Paso 5 · puntajes** de «es» contra los 5 tokens, divididos por $\\sqrt{3}$:",
        "",
        matrix_md(m.scores[None, :], ["es"], tok),
        "",
        "**Paso 6 · softmax:** la fila de atención de «es»:",
        "",
        matrix_md(m.attention_row[None, :], ["es"], tok),
        "",
        "**Paso 7 · vector mezclado** $z = \\sum_j a_j v_j$: "
        f"({', '.join(es_number(v, 4) for v in m.mixed)}).",
        "",
        "**Paso 8 · logits → probabilidades.** Vectores de salida:",
        "",
        matrix_md(U, m.vocabulary, dims),
        "",
    ]
    rows = [
        "| identidad | país | " + " | ".join(m.vocabulary) + " | predicción | p | −ln p |",
        "|---:|---|" + "---:|" * len(m.vocabulary) + "---|---:|---:|",
    ]
    logit_rows = [
        "| identidad | " + " | ".join(m.vocabulary) + " |",
        "|---:|" + "---:|" * len(m.vocabulary),
    ]
    for country, identity in (("Francia", 0.90), ("Francia", 0.0), ("Italia", -0.90)):
        m.country = country
        m.identity = identity
        probs = " | ".join(es_number(p, 4) for p in m.probability_vector)
        rows.append(
            f"| {es_number(identity, 2, signed=True)} | {country} | {probs} | {m.prediction} | "
            f"{es_number(m.probability, 4)} | {es_number(m.loss, 4)} |"
        )
        logit_rows.append(
            f"| {es_number(identity, 2, signed=True)} | "
            + " | ".join(es_number(v, 4) for v in m.logits)
            + " |"
        )
    m.country = "Francia"
    slopes = m.identity_slopes
    a_country = m.attention_row[COUNTRY_SLOT]
    out += [
        "Logits:",
        "",
        *logit_rows,
        "",
        "Probabilidades:",
        "",
        *rows,
        "",
        "La fila de atención es la misma en las tres filas: la llave no lee la identidad. "
        "Las seis palabras «resto» tienen vector de salida nulo, así que su logit es 0 "
        "exactamente.",
        "",
        "**Por qué 0,34 y no 0,38.** Cada logit cambia con la identidad con pendiente "
        f"$a_{{país}}\\cdot u_{{palabra,2}}$: la atención de «es» sobre el país "
        f"({es_number(a_country, 4)}) por la componente de identidad del vector de salida. "
        f"Para París es {es_number(a_country, 4)} × 1,00 = {es_number(slopes['París'], 4)}; "
        f"para Roma, {es_number(a_country, 4)} × (−0,61) = {es_number(slopes['Roma'], 4)}. "
        "Los vectores de salida de París y Roma coinciden en «lugar» (por eso empatan con "
        "identidad 0) pero no son simétricos en «identidad»: la misma |identidad| empuja más "
        "a París que a Roma. La asimetría está en la capa de salida, no en la atención.",
        "",
    ]
    return "\n".join(out)


def _explorer() -> str:
    m = AttentionExplorer()
    tokens = m.tokens
    header = "| Consulta | " + " | ".join(tokens) + " |"
    rule = "|---|" + "---:|" * len(tokens)

    def percent_row(label, row):
        return f"| {label} | " + " | ".join(es_percent(p) for p in row) + " |"

    out = [
        "## Explorador: cómo decide un Transformer qué mirar",
        "",
        f"Frase «{m.sentence}», token que consulta: el segundo «gato» (índice {m.focus}), "
        f"$T = {es_number(m.temperature, 0)}$, con posición y sin máscara. Cada palabra es un "
        f"vector unitario de dimensión {TOKEN_DIM} hecho con sus trigramas de letras; la "
        f"posición suma un vector sinusoidal de longitud {es_number(POSITION_WEIGHT)}; el "
        f"puntaje es ${es_number(SCORE_SCALE)}\\,v_i\\cdot v_j$ y $Q = K = V$ = el vector.",
        "",
        "Fila del segundo «gato» (porcentajes redondeados):",
        "",
        header,
        rule,
        percent_row("gato", m.row),
        "",
        "Con un decimal: "
        + ", ".join(f"{t} {es_percent(p, 1)}" for t, p in zip(tokens, m.row, strict=True))
        + ".",
        "",
        "El mapa completo:",
        "",
        header,
        rule,
        *(percent_row(t, r) for t, r in zip(tokens, m.weights, strict=True)),
        "",
    ]
    for temperature in (0.1, 3.0):
        m.temperature = temperature
        out += [
            f"Con $T = {es_number(temperature, 1)}$: "
            + ", ".join(f"{t} {es_percent(p)}" for t, p in zip(tokens, m.row, strict=True))
            + ".",
            "",
        ]
    m.temperature = 1.0
    m.causal = True
    out += [
        "Con máscara causal la fila del segundo «gato» solo ve su pasado: "
        + ", ".join(f"{t} {es_percent(p)}" for t, p in zip(tokens, m.row, strict=True))
        + ".",
        "",
    ]
    return "\n".join(out)


def render() -> str:
    sections = [
        "# Ejemplos trabajados — Clase 04: Atención y Transformers",
        "",
        "Este documento es el «apunte» que cita la clase: cada número de los valores por "
        "defecto de cada demo, calculado por los modelos de `attnmodel/`. Se genera con "
        "`make docs` y una prueba lo vuelve a calcular, así que no puede desfasarse del "
        "código. Decimales con coma; los números se redondean al mostrar.",
        "",
        _self_attention(),
        _scaling(),
        _multihead(),
        _positional(),
        _capital(),
        _explorer(),
    ]
    return "\n".join(sections).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", type=Path, help="escribir en este archivo en vez de stdout")
    args = parser.parse_args(argv)
    text = render()
    if args.write:
        args.write.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
