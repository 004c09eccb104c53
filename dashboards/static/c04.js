/* C04 core: what every demo's drawing shares: texts, numbers, and the maths of free input.
 *
 * Loaded by every page, first: served pages from /c04/ (dashboards/app/session.py), the export
 * inlined before each demo's dashboards/static/demos/<demo>.js. C04.t and C04.fmt write what
 * every demo's drawing shows, live and offline. tests/ui/test_twin_core.py (run in Chromium)
 * holds each part to its Python counterpart:
 *
 *   C04.t     <- attnmodel/i18n.py (text), on the catalogue the export embeds (#c04-text)
 *   C04.fmt   <- attnmodel/formatting.py (number, large_number, percent, parse_es_number): plain
 *                JavaScript, by the rules that module's docstring states and Python implements
 *                too (toFixed's rounding, half away from zero; one pattern for a typed number),
 *                not an imitation of Python's f-strings or float(); same texts, same values
 *   C04.html  <- dashboards/components/markup.py (esc)
 *   C04.spec  the specs markup.js draws (tests/c04_testing.py computes the expected ones)
 *   C04.embedded  what the export embeds for each demo (#c04-states), parsed once
 *   C04.math  <- attnmodel/core.py (softmax, scaled_dot_product_attention,
 *                sinusoidal_encoding, softmax_jacobian_norm, letter_trigrams,
 *                trigram_vectors with its hash_words), a line-by-line port with the same order
 *                of floating-point operations, within 1e-12; it refuses what core.py refuses,
 *                with the same catalogue message (the value as JS writes it)
 *
 * Matrices are arrays of arrays of numbers (Float64 arithmetic). Sums follow numpy: a row summed
 * along its contiguous axis uses numpy's pairwise summation (C04.math.sum), reproduced exactly.
 * What cannot be reproduced bit for bit (BLAS matmul/dot with FMA, SIMD exp/log/pow/sin in numpy
 * vs V8's Math.*) differs by a few ulps and stays far inside 1e-12 on the lecture's inputs.
 *
 * Plain script, no modules, no network: defines window.C04.
 */
(function (root) {
  "use strict";

  const MINUS = "\u2212"; // the typographic minus, as attnmodel.formatting.MINUS

  // ---------------------------------------------------------------------------------------------
  // The value a C04.math refusal quotes: JSON's text of it (a number as JS writes it). The page's
  // controls never give C04.math a value it refuses (bounded sliders, typed words as strings):
  // these are messages for a developer, so they do not imitate Python's repr().
  function quoted(value) {
    if (typeof value === "number" || typeof value === "bigint") return String(value);
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text;
  }

  // ---------------------------------------------------------------------------------------------
  // C04.t: attnmodel/i18n.py's text(). The export embeds the page language's catalogue (the same
  // attnmodel/locales/<lang>.toml) as JSON in <script id="c04-text">, so each string exists once;
  // its $$…$$ formulas are already MathML there (dashboards/components/mathml.py, fields kept),
  // so nothing is typeset here. FIELD is i18n.FIELD, written again because a pattern cannot be
  // shared across languages.

  // A page in one language has one catalogue; a notebook shows views in several, and embeds
  // each other language's as #c04-text-<lang> (dashboards/app/notebook.py): while a view of
  // that language draws (C04.inLanguage, around a Board's drawing), C04.t reads that one.
  const TEXT_ID = "c04-text";
  const FIELD = /(?<![\w^\\])\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
  const catalogues = new Map(); // language ("" the page's) -> its entries, parsed once
  let drawing = "";
  const FIELDS = new Map(); // template -> Set of its field names, found once (every number asks)

  function parsed(id) {
    const node = root.document ? root.document.getElementById(id) : null;
    return node ? JSON.parse(node.textContent) : null;
  }

  function entries() {
    let found = catalogues.get(drawing);
    if (found === undefined) {
      found = drawing ? parsed(`${TEXT_ID}-${drawing}`) : null;
      if (!found) {
        found = catalogues.get("") || parsed(TEXT_ID);
        if (!found) throw new Error(`C04.t: la página no tiene el catálogo de textos (#${TEXT_ID}).`);
        catalogues.set("", found);
      }
      catalogues.set(drawing, found);
    }
    return found;
  }

  /** fn() with C04.t in ``lang``'s catalogue when the page has one of its own, else the page's. */
  function inLanguage(lang, fn) {
    const before = drawing;
    drawing = lang || "";
    try {
      return fn();
    } finally {
      drawing = before;
    }
  }

  /** i18n.text(key, **values): the catalogue's text with its {fields} filled (as String(v)). */
  function t(key, values = {}) {
    const template = entries()[key];
    if (typeof template !== "string") {
      throw new Error(`C04.t: ${JSON.stringify(key)} no está en el catálogo.`);
    }
    if (!FIELDS.has(template)) {
      FIELDS.set(template, new Set(Array.from(template.matchAll(FIELD), (m) => m[1])));
    }
    const wanted = FIELDS.get(template);
    const given = Object.keys(values);
    if (wanted.size !== given.length || !given.every((k) => wanted.has(k))) {
      const expected = JSON.stringify([...wanted].sort());
      throw new Error(`C04.t: campos ${expected} ≠ valores en ${JSON.stringify(key)}.`);
    }
    return wanted.size ? template.replace(FIELD, (_, name) => String(values[name])) : template;
  }

  /** Catalogue text `key` as C04.markup label segments, the
   * catalogue's own text and markup as {html} pieces, each {field} replaced by its label. */
  function rich(key, fields = {}) {
    const template = entries()[key];
    if (typeof template !== "string") {
      throw new Error(`C04.rich: ${JSON.stringify(key)} no está en el catálogo.`);
    }
    const parts = template.split(FIELD); // text, field name, text, … (the group is kept)
    const names = new Set(parts.filter((_, i) => i % 2 === 1));
    const given = Object.keys(fields);
    if (names.size !== given.length || !given.every((k) => names.has(k))) {
      const expected = JSON.stringify([...names].sort());
      throw new Error(`C04.rich: campos ${expected} ≠ valores en ${JSON.stringify(key)}.`);
    }
    const out = [];
    parts.forEach((part, i) => {
      if (part) out.push(i % 2 ? fields[part] : { html: part });
    });
    return out;
  }

  /** The spec of C04.markup.readout: one big number with its label and unit. */
  function readoutSpec(label, value, unit = "", testid = null) {
    return { testid, label, value, unit };
  }

  /** An announcer spec: a change's key figure, a11y.announce.<key>. */
  function announceSpec(key, fields = {}) {
    return { text: rich(`a11y.announce.${key}`, fields) };
  }

  /** The first index within 1e-9 of the largest value: the page's weights and Python's agree to
   * 1e-12, so a tie must not be broken by the last bit (the parity tests keep ties as ties). */
  function firstMax(values) {
    let top = -Infinity;
    for (const v of values) if (Number(v) > top) top = Number(v);
    for (let i = 0; i < values.length; i++) if (Number(values[i]) >= top - 1e-9) return i;
    return -1;
  }

  /** attnmodel.formatting.number: 3.14159 -> "3,14" (es) / "3.14" (en); never "−0,00". The
   * exact binary value rounded half away from zero (toFixed: 0.125 -> "0,13"); from 1e21 on,
   * where toFixed writes an exponent and every double is an integer, its exact digits. */
  function number(x, decimals = 2, signed = false) {
    x = Number(x);
    if (!(Number.isInteger(decimals) && decimals >= 0 && decimals <= 100)) {
      throw new RangeError(`C04.fmt.number: decimales fuera de 0..100: ${decimals}`);
    }
    if (Number.isNaN(x)) return "—";
    if (x === Infinity || x === -Infinity) return x < 0 ? "−∞" : signed ? "+∞" : "∞";
    const size = Math.abs(x);
    const digits = size < 1e21
      ? size.toFixed(decimals)
      : BigInt(size).toString() + (decimals > 0 ? "." + "0".repeat(decimals) : "");
    const zero = !/[1-9]/.test(digits);
    const sign = zero ? "" : x < 0 ? MINUS : signed ? "+" : "";
    return sign + digits.replace(".", t("format.decimal"));
  }

  const SUPERSCRIPTS = "⁰¹²³⁴⁵⁶⁷⁸⁹";

  /** attnmodel.formatting.large_number: number(x, decimals) below 10^6 in magnitude; from 10^6
   * on, 5 significant digits times a power of ten: 8.12345e24 -> "8,1235×10²⁴" (es). */
  function large(x, decimals = 2) {
    x = Number(x);
    if (!Number.isFinite(x) || Math.abs(x) < 1e6) return number(x, decimals);
    const [mantissa, exponent] = Math.abs(x).toExponential(4).split("e");
    const power = Array.from(String(Number(exponent)), (d) => SUPERSCRIPTS[d]).join("");
    const sign = x < 0 ? MINUS : "";
    return `${sign}${mantissa.replace(".", t("format.decimal"))}×10${power}`;
  }

  /** attnmodel.formatting.percent: 0.391 -> "39 %" (es) / "39%" (en). */
  function percent(p, decimals = 0) {
    return t("format.percent", { value: number(100 * p, decimals) });
  }

  // A typed number (a matrix cell, an exercise's answer): attnmodel/formatting.py's
  // NUMBER_PATTERN, matched whole once the characters of SPACES_PATTERN are dropped, wherever they
  // are (test_twin_core checks that the two texts are Python's): ASCII digits, a sign (+, - or −),
  // one "," or "." as the decimal separator, an optional exponent.
  const NUMBER_PATTERN = String.raw`[+\-\u2212]?(?:[0-9]+(?:[.,][0-9]*)?|[.,][0-9]+)(?:[eE][+\-\u2212]?[0-9]+)?`;
  const SPACES_PATTERN = String.raw`[ \t\n\r\u00a0\u2009\u202f]`;
  const NUMBER = new RegExp(`^(?:${NUMBER_PATTERN})$`);
  const SPACES = new RegExp(SPACES_PATTERN, "g");
  const MAX_NUMBER_CHARS = 64; // attnmodel.formatting.MAX_NUMBER_CHARS, in code points

  /** attnmodel.formatting.parse_es_number of a text: a number, or throws Error with the page's
   * message (too long, empty, not a number, not finite). */
  function parseNumber(text) {
    text = String(text);
    if (Array.from(text).length > MAX_NUMBER_CHARS) {
      throw new Error(t("input.number_too_long", { max_chars: MAX_NUMBER_CHARS }));
    }
    const cleaned = text.replace(SPACES, "");
    if (!cleaned) throw new Error(t("input.empty"));
    if (!NUMBER.test(cleaned)) throw new Error(t("input.not_a_number", { text }));
    const value = Number(cleaned.replaceAll(MINUS, "-").replace(",", "."));
    if (!Number.isFinite(value)) throw new Error(t("input.not_finite", { text }));
    return value;
  }

  // ---------------------------------------------------------------------------------------------
  // C04.math: attnmodel/core.py

  // numpy's pairwise summation of a contiguous float64 run (pairwise_sum_DOUBLE, blocks of 128,
  // 8 accumulators). np.sum(row) = 0.0 + pairwise(row) (the add identity is the initial value).
  function pairwise(a, start, n) {
    if (n < 8) {
      let res = 0;
      for (let i = 0; i < n; i++) res += a[start + i];
      return res;
    }
    if (n <= 128) {
      const r = [];
      for (let j = 0; j < 8; j++) r.push(a[start + j]);
      let i = 8;
      for (; i < n - (n % 8); i += 8) {
        for (let j = 0; j < 8; j++) r[j] += a[start + i + j];
      }
      let res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
      for (; i < n; i++) res += a[start + i];
      return res;
    }
    let n2 = Math.floor(n / 2);
    n2 -= n2 % 8;
    return pairwise(a, start, n2) + pairwise(a, start + n2, n - n2);
  }

  /** np.sum of a 1-D array (numpy's pairwise order, exactly). */
  function npSum(a) {
    return 0 + pairwise(a, 0, a.length);
  }

  function isVector(x) {
    return Array.isArray(x) || ArrayBuffer.isView(x);
  }

  function isNested(x) {
    return isVector(x) && x.length > 0 && isVector(x[0]);
  }

  // The rows (last-axis slices) of a vector or a nested array, as arrays of numbers.
  function rowsOf(x) {
    if (!isNested(x)) return [Array.from(x, Number)];
    const out = [];
    for (const item of x) out.push(...rowsOf(item));
    return out;
  }

  // Put computed rows back into the shape of x (a vector gives back a vector).
  function reshapeRows(x, rows, k = { i: 0 }) {
    if (!isNested(x)) return rows[k.i++];
    return Array.from(x, (item) => reshapeRows(item, rows, k));
  }

  // Same, for one number per row (reductions along the last axis).
  function reshapeReduced(x, values, k = { i: 0 }) {
    if (!isNested(x)) return values[k.i++];
    return Array.from(x, (item) => reshapeReduced(item, values, k));
  }

  function isReal(x) {
    return typeof x === "number";
  }

  /** attnmodel.core.softmax along the last axis: -Infinity = masked (weight exactly 0). */
  function softmax(x, temperature = 1) {
    if (!(isReal(temperature) && Number.isFinite(temperature) && temperature > 0)) {
      throw new Error(t("core.temperature", { value: quoted(temperature) }));
    }
    const rows = rowsOf(x);
    for (const row of rows) {
      for (const v of row) {
        if (Number.isNaN(v) || v === Infinity) {
          throw new Error(t("core.softmax_not_finite"));
        }
      }
    }
    for (const row of rows) {
      if (row.every((v) => v === -Infinity)) {
        throw new Error(t("core.softmax_all_masked"));
      }
    }
    const out = rows.map((row) => {
      let max = -Infinity;
      for (const v of row) if (v > max) max = v;
      const e = row.map((v) => {
        // shift first, then scale (a shifted row is <= 0, its maximum exactly 0)
        let scaled = (v === -Infinity ? -Infinity : v - max) / temperature;
        if (Number.isNaN(scaled)) scaled = -Infinity;
        return Math.exp(scaled);
      });
      const total = npSum(e);
      return e.map((v) => v / total);
    });
    return reshapeRows(x, out);
  }

  /** attnmodel.core.softmax_jacobian_norm along the last axis: ||diag(p) - pp^T||_F. */
  function softmaxJacobianNorm(p) {
    const values = rowsOf(p).map((row) => {
      const s2 = npSum(row.map((v) => v * v));
      const s3 = npSum(row.map((v) => v ** 3));
      return Math.sqrt(Math.max(s2 - 2 * s3 + s2 * s2, 0));
    });
    return reshapeReduced(p, values);
  }

  function matrix(a) {
    return Array.from(a, (row) => Array.from(row, Number));
  }

  /** a @ b for matrices (arrays of arrays), summing k = 0, 1, ... in order. */
  function matmul(a, b) {
    const n = a.length;
    const inner = b.length;
    const m = inner > 0 ? b[0].length : 0;
    const out = [];
    for (let i = 0; i < n; i++) {
      const ai = a[i];
      if (ai.length !== inner) {
        throw new Error(`matmul: ${ai.length} columnas ≠ ${inner} filas.`);
      }
      const row = new Array(m);
      for (let j = 0; j < m; j++) {
        let s = 0;
        for (let k = 0; k < inner; k++) s += ai[k] * b[k][j];
        row[j] = s;
      }
      out.push(row);
    }
    return out;
  }

  function transpose(a) {
    const n = a.length;
    const m = n > 0 ? a[0].length : 0;
    const out = [];
    for (let j = 0; j < m; j++) {
      const row = new Array(n);
      for (let i = 0; i < n; i++) row[i] = a[i][j];
      out.push(row);
    }
    return out;
  }

  function is2d(a) {
    if (!isVector(a) || a.length === 0 || !isVector(a[0])) return false;
    const width = a[0].length;
    return Array.prototype.every.call(a, (row) => isVector(row) && row.length === width
      && Array.prototype.every.call(row, (v) => !isVector(v)));
  }

  const FLOAT_MAX = Number.MAX_VALUE;

  /** attnmodel.core.scaled_dot_product_attention -> {scores, weights, output}. */
  function sdpa(query, key, value, options = {}) {
    const causal = Boolean(options.causal);
    const scale = options.scale === undefined ? true : Boolean(options.scale);
    const temperature = options.temperature === undefined ? 1 : options.temperature;
    if (!is2d(query) || !is2d(key) || !is2d(value)) {
      throw new Error(t("core.attention_ndim"));
    }
    const q = matrix(query);
    const k = matrix(key);
    const v = matrix(value);
    if (![q, k, v].every((mm) => mm.every((row) => row.every(Number.isFinite)))) {
      throw new Error(t("core.attention_finite"));
    }
    const dk = q[0].length;
    if (dk !== k[0].length) {
      throw new Error(t("core.attention_d_k", { query: dk, key: k[0].length }));
    }
    if (k.length !== v.length) {
      throw new Error(t("core.attention_rows", { key: k.length, value: v.length }));
    }
    if (causal && q.length > k.length) {
      throw new Error(t("core.causal_keys"));
    }
    // 1) score every query against every key
    let scores = matmul(q, transpose(k));
    if (scale) {
      const root = Math.sqrt(dk);
      scores = scores.map((row) => row.map((s) => s / root));
    }
    // Products of huge but finite entries can overflow; saturate instead of poisoning the row.
    scores = scores.map((row) => row.map((s) => {
      if (Number.isNaN(s)) return 0;
      if (s === Infinity) return FLOAT_MAX;
      if (s === -Infinity) return -FLOAT_MAX;
      return s;
    }));
    // 2) mask the future: -Infinity means weight exactly 0 after the softmax
    if (causal) scores = scores.map((row, i) => row.map((s, j) => (j <= i ? s : -Infinity)));
    // 3) normalise each row into a distribution
    const weights = softmax(scores, temperature);
    // 4) mix the values
    const output = matmul(weights, v);
    return { scores, weights, output };
  }

  function positiveInt(value, name) {
    if (!isReal(value) || !Number.isFinite(value) || value < 1 || !Number.isInteger(value)) {
      throw new Error(t("core.positive_int", { name, value: quoted(value) }));
    }
    return value;
  }

  /** attnmodel.core.sinusoidal_encoding: rows of PE[pos, 2i] = sin, PE[pos, 2i+1] = cos. */
  function sinusoidalEncoding(nPositions, dModel, base = 10000) {
    nPositions = positiveInt(nPositions, "n_positions");
    dModel = positiveInt(dModel, "d_model");
    if (!(isReal(base) && Number.isFinite(base) && base > 1)) {
      throw new Error(t("core.base", { value: quoted(base) }));
    }
    const denominators = new Float64Array(dModel);
    for (let j = 0; j < dModel; j++) {
      const twoI = 2 * Math.floor(j / 2);
      denominators[j] = Math.pow(base, twoI / dModel);
    }
    const out = [];
    for (let pos = 0; pos < nPositions; pos++) {
      const row = new Float64Array(dModel);
      for (let j = 0; j < dModel; j++) {
        const angle = pos / denominators[j];
        row[j] = j % 2 === 0 ? Math.sin(angle) : Math.cos(angle);
      }
      out.push(row);
    }
    return out;
  }

  // unicodedata.combining(c) != 0, asked of the browser's own normaliser: a character with a
  // canonical combining class 0 < ccc < 240 is reordered before U+0345 (the only ccc = 240) by
  // NFD. Only called on characters of an NFKD string, which do not decompose further.
  const combiningCache = new Map();
  function isCombining(ch) {
    const cp = ch.codePointAt(0);
    if (cp < 0x300) return false;
    if (cp === 0x345) return true;
    let known = combiningCache.get(cp);
    if (known === undefined) {
      known = ("\u0345" + ch).normalize("NFD") === ch + "\u0345";
      combiningCache.set(cp, known);
    }
    return known;
  }

  function normaliseToken(token) {
    // Lower case and strip accents so "Está" and "esta" share trigrams.
    const decomposed = token.toLowerCase().normalize("NFKD");
    let out = "";
    for (const ch of decomposed) if (!isCombining(ch)) out += ch;
    return out;
  }

  function trigramsOf(padded) {
    const cps = Array.from(padded); // Python indexes code points, not UTF-16 units
    const out = [];
    for (let i = 0; i < cps.length - 2; i++) out.push(cps[i] + cps[i + 1] + cps[i + 2]);
    return out;
  }

  /** attnmodel.core.letter_trigrams: "gato" -> ["#ga", "gat", "ato", "to#"]. */
  function letterTrigrams(token) {
    return trigramsOf(`#${normaliseToken(token)}#`);
  }

  /** str.encode("utf-8", "surrogatepass"): lone surrogates become 3-byte sequences. */
  function utf8SurrogatePass(s) {
    const out = [];
    for (const ch of s) {
      const cp = ch.codePointAt(0);
      if (cp < 0x80) out.push(cp);
      else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 0x3f));
      else if (cp < 0x10000) {
        out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
      } else {
        out.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3f), 0x80 | ((cp >> 6) & 0x3f),
          0x80 | (cp & 0x3f));
      }
    }
    return Uint8Array.from(out);
  }

  /** attnmodel.core.hash_words: n uint32 words, fmix32(fnv1a(utf8(text)) + j · 0x9E3779B9).
   * The same integer arithmetic modulo 2**32 on both sides (numpy uint32, Math.imul). */
  function hashWords(text, n) {
    let h = 0x811c9dc5;
    for (const byte of utf8SurrogatePass(text)) h = Math.imul(h ^ byte, 0x01000193) >>> 0;
    const out = new Uint32Array(n);
    for (let j = 0; j < n; j++) {
      let x = (h + Math.imul(j, 0x9e3779b9)) >>> 0;
      x = Math.imul(x ^ (x >>> 16), 0x85ebca6b) >>> 0;
      x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35) >>> 0;
      out[j] = (x ^ (x >>> 16)) >>> 0;
    }
    return out;
  }

  // [k] trigrams -> [k, d_model], each row a fixed pseudo-random unit vector.
  function trigramMatrix(trigrams, dModel, salt) {
    return trigrams.map((t) => {
      const words = hashWords(`${salt}:${t}`, dModel);
      const v = Array.from(words, (w) => (w / 2 ** 32) * 2 - 1); // uniform in [-1, 1)
      const norm = Math.sqrt(npSum(v.map((c) => c * c)));
      return v.map((c) => c / norm);
    });
  }

  const tokenCache = new Map();

  function tokenVector(token, dModel, salt) {
    const cacheKey = `${dModel}\u0000${salt}\u0000${token}`;
    const cached = tokenCache.get(cacheKey);
    if (cached) return cached;
    // A token made only of combining marks normalises to "" and has no letter trigram; fall
    // back to the trigrams of its raw characters so that every token gets a nonzero vector.
    let trigrams = letterTrigrams(token);
    if (trigrams.length === 0) trigrams = trigramsOf(`#${token}#`);
    const perTrigram = trigramMatrix(trigrams, dModel, salt);
    let total;
    if (dModel === 1) {
      // numpy sums a [k, 1] matrix along axis 0 as one contiguous run: pairwise
      total = [npSum(perTrigram.map((row) => row[0]))];
    } else {
      // along axis 0 of a [k, d > 1] matrix numpy adds the rows one after another
      total = new Array(dModel).fill(0);
      for (const row of perTrigram) for (let j = 0; j < dModel; j++) total[j] += row[j];
    }
    let sq = 0;
    for (const c of total) sq += c * c; // np.linalg.norm(1-D) is a BLAS dot: order not ours
    const norm = Math.sqrt(sq);
    // A zero sum would need trigram vectors that cancel exactly; keep the first one then.
    const vector = Float64Array.from(norm > 0 ? total.map((c) => c / norm) : perTrigram[0]);
    if (tokenCache.size >= 4096) tokenCache.clear();
    tokenCache.set(cacheKey, vector);
    return vector;
  }

  /** attnmodel.core.trigram_vectors: [n] tokens -> [n, d_model] unit rows (arrays). */
  function trigramVectors(tokens, dModel, salt = 0) {
    if (typeof dModel !== "number" || !Number.isInteger(dModel) || dModel < 1) {
      throw new Error(t("core.positive_int", { name: "d_model", value: quoted(dModel) }));
    }
    tokens = typeof tokens === "string" ? [tokens] : Array.from(tokens);
    for (const token of tokens) {
      if (typeof token !== "string" || !token) {
        throw new Error(t("core.token_text", { value: quoted(token) }));
      }
    }
    const saltText = BigInt(Math.trunc(Number(salt))).toString();
    return tokens.map((t) => Array.from(tokenVector(t, dModel, saltText)));
  }

  // ---------------------------------------------------------------------------------------------
  // C04.html: dashboards/components/markup.py

  /** html.escape(text, quote=True) of Python: the five characters. */
  function esc(text) {
    return String(text)
      .replace(/&/g, "&amp;")
      .replace(/</g, "&lt;")
      .replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;")
      .replace(/'/g, "&#x27;");
  }

  function atLeast2d(m) {
    if (!isVector(m)) return [[Number(m)]];
    if (m.length === 0 || !isVector(m[0])) return [Array.from(m, Number)];
    return Array.from(m, (row) => Array.from(row, Number));
  }

  /** dashboards.components.markup.matrix_spec: the spec of C04.markup.matrix (markup.js), texts in the
   * page's language (options.format writes a number, C04.fmt.number by default), null for −∞,
   * each row's weights when shaded, its Σ when summed. */
  function matrixSpec(matrixValue, options = {}) {
    const decimals = options.decimals === undefined ? 2 : options.decimals;
    const write = options.format || number; // (x, decimals) -> text; C04.fmt.large for one
    const m = atLeast2d(matrixValue);
    const rowLabels = Array.from(options.rowLabels);
    if (rowLabels.length !== m.length) {
      throw new Error(`matrixSpec: ${rowLabels.length} etiquetas de fila para ${m.length} filas.`);
    }
    return {
      testid: options.testid === undefined ? null : options.testid,
      title: options.title === undefined ? "" : options.title,
      cols: Array.from(options.colLabels, String),
      rows: m.map((row, r) => ({
        label: String(rowLabels[r]),
        cells: row.map((v) => (v === -Infinity ? null : write(v, decimals))),
        shade: options.shade ? row.slice() : null,
        sum: options.rowSums ? write(npSum(row.filter(Number.isFinite)), decimals) : null,
      })),
      note: options.note === undefined ? null : options.note,
    };
  }

  // ---------------------------------------------------------------------------------------------
  // Applying a render to the page (the browser side of dashboards.components.render.apply_render).

  function sameValue(a, b) {
    if (a === b) return true;
    if (isVector(a) && isVector(b)) {
      if (a.length !== b.length) return false;
      for (let i = 0; i < a.length; i++) if (!sameValue(a[i], b[i])) return false;
      return true;
    }
    return false;
  }

  // The kinds of target a render may name: a Markup-like component's spec, a Board's slot, a
  // parameter of a component of ours (a Raster's matrix).
  const KINDS = ["markup", "board", "esm"];
  const kindOf = (kind) => (kind.includes(":") ? kind.slice(0, kind.indexOf(":")) : kind);

  /**
   * Put the output of a view's render(state) on screen (a view whose boards draw specs).
   * kinds[name] is "markup" (a Markup-like component's spec, which travels as JSON text),
   * "board:<slot>" (a slot of a Board) or "esm:<parameter>" (a parameter of a component of ours,
   * on its data model: a Raster's values). Only what differs from what the page holds is set.
   */
  function apply(args, values, kinds) {
    const names = Object.keys(values);
    for (const name of names) {
      const kind = kinds[name];
      const obj = args[name];
      if (kind === undefined || obj === undefined || obj === null) {
        throw new Error(`C04.apply: no hay destino ${JSON.stringify(name)}.`);
      }
      if (!KINDS.includes(kindOf(kind))) {
        throw new Error(`tipo de destino desconocido: ${JSON.stringify(kind)}`);
      }
    }
    // A Board's slots (dashboards.components.board): gathered, each Board set once.
    const boards = new Map();
    for (const name of names) {
      const kind = kinds[name];
      const obj = args[name];
      const value = values[name];
      if (kind === "markup") {
        const text = value && Object.keys(value).length ? JSON.stringify(value) : "";
        if (obj.data.spec_json !== text) obj.data.spec_json = text;
      } else if (kind.startsWith("board:")) {
        if (!boards.has(obj)) boards.set(obj, {});
        boards.get(obj)[kind.slice(6)] = value;
      } else {
        const prop = kind.slice(4);
        const held = obj.data[prop];
        const sameShape = String(held && held.shape) === String(value && value.shape);
        if (!(sameShape && sameValue(held, value))) obj.data[prop] = value;
      }
    }
    // dashboards.components.board.Board.update_specs: the slots given, the others kept.
    for (const [board, parts] of boards) {
      const specs = board.data.specs_json ? JSON.parse(board.data.specs_json) : {};
      const text = JSON.stringify(Object.assign(specs, parts));
      if (board.data.specs_json !== text) board.data.specs_json = text;
    }
  }

  /** apply() of several slots of one Board (a view's readState setting its own controls). */
  function setSlots(board, values) {
    const targets = {};
    const kinds = {};
    for (const name of Object.keys(values)) {
      targets[name] = board;
      kinds[name] = `board:${name}`;
    }
    apply(targets, values, kinds);
  }

  const now = () => (root.performance && root.performance.now ? root.performance.now() : Date.now());

  /** readState(args) -> the boards of the view draw the state (args.draw, board.js), or, for a
   * view whose boards draw specs, render(state) -> apply(args, values, kinds); returns ms. */
  function update(demo, args, kinds) {
    const t0 = now();
    const view = C04.views[demo];
    if (!view) throw new Error(`C04.update: no hay vista registrada ${JSON.stringify(demo)}.`);
    const state = view.readState(args);
    if (args.draw) args.draw(state);
    else apply(args, view.render(state), kinds);
    const ms = now() - t0;
    C04.lastUpdate = { demo, ms };
    return ms;
  }

  // ---------------------------------------------------------------------------------------------
  // C04.embedded: a demo's part of what the export embeds (dashboards/export.py, STATES_ID), the
  // page's JSON parsed once for every demo. ``fields``: what the part must hold; ``optional``:
  // null instead of an error when the part is missing (links.js on a page without links).

  // A large part comes gzipped ({c04_gzip: base64}, dashboards/export.py packed_states): every
  // one is unpacked once, as the page loads; whenEmbedded(fn) runs fn once they are.

  const STATES_ID = "c04-states";
  const PACKED = "c04_gzip";
  let embeddedParts = null;
  let unpacking = null; // a Promise while packed parts are being unpacked

  /** The bytes a base64 text holds (the export's tables: typed arrays, gzipped parts). Native
   * where the browser has it; else a loop: Uint8Array.from with a map function took 143 ms for
   * 535 KB of base64 in a 4×-throttled page, the loop 18 ms, fromBase64 4 ms. */
  function bytes(base64) {
    if (Uint8Array.fromBase64) return Uint8Array.fromBase64(base64);
    const text = atob(base64);
    const out = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
    return out;
  }

  async function gunzip(base64) {
    const stream = new Blob([bytes(base64)]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text();
  }

  function parts() {
    if (embeddedParts === null) {
      const node = root.document ? root.document.getElementById(STATES_ID) : null;
      embeddedParts = node ? JSON.parse(node.textContent) : {};
      const packed = Object.keys(embeddedParts).filter(
        (key) => embeddedParts[key] && typeof embeddedParts[key][PACKED] === "string"
      );
      if (packed.length) {
        unpacking = Promise.all(
          packed.map(async (key) => {
            embeddedParts[key] = JSON.parse(await gunzip(embeddedParts[key][PACKED]));
          })
        ).then(() => {
          unpacking = null;
        });
      }
    }
    return embeddedParts;
  }

  function whenEmbedded(fn) {
    parts();
    if (unpacking) unpacking.then(fn);
    else fn();
  }

  function embedded(key, fields = [], optional = false) {
    const part = parts()[key];
    if (part && part[PACKED] !== undefined) {
      throw new Error(`${key}: los estados de #${STATES_ID} aún se descomprimen.`);
    }
    if (part && fields.every((field) => part[field] !== undefined && part[field] !== null)) {
      return part;
    }
    if (optional) return null;
    throw new Error(`${key}: faltan los estados en #${STATES_ID}.`);
  }

  const previous = root.C04;
  const C04 = {
    fmt: { number, large, percent, parseNumber },
    t,
    inLanguage,
    html: { esc },
    spec: { matrix: matrixSpec, readout: readoutSpec, announce: announceSpec },
    rich,
    math: {
      softmax,
      sdpa,
      sinusoidalEncoding,
      softmaxJacobianNorm,
      matmul,
      transpose,
      letterTrigrams,
      trigramVectors,
      sum: npSum,
      hashWords,
      firstMax,
    },
    views: (previous && previous.views) || {},
    embedded,
    whenEmbedded,
    bytes,
    apply,
    setSlots,
    update,
    lastUpdate: null,
  };
  root.C04 = C04;
  // The export's packed tables start unpacking now, while Bokeh draws the page.
  if (root.document && root.DecompressionStream) parts();
})(typeof window !== "undefined" ? window : globalThis);
