"""attnmodel: the models and the maths of "Clase 04 — Atención y Transformers".

Pure numpy (``core``) and one ``param.Parameterized`` class per demo. Nothing here imports Panel,
so the same objects drive the live lecture, the offline handout and the tests.
"""

from .block import BlockDemo
from .capital import CapitalWalkthrough
from .explorer import AttentionExplorer
from .minilm import MiniLMDemo, PretrainedMiniLM
from .multihead import MultiHeadDemo
from .next_word import NextWordDemo
from .positional import PositionalEncodingDemo
from .scaling import ScalingDemo
from .self_attention import SelfAttention
from .training import TrainingDemo, TrainingRun

__all__ = [
    "AttentionExplorer",
    "BlockDemo",
    "CapitalWalkthrough",
    "MiniLMDemo",
    "MultiHeadDemo",
    "NextWordDemo",
    "PositionalEncodingDemo",
    "PretrainedMiniLM",
    "ScalingDemo",
    "SelfAttention",
    "TrainingDemo",
    "TrainingRun",
]
