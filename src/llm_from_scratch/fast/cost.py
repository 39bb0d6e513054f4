"""What one attention head costs: multiply-adds and bytes as exact functions of B, T, d_k and d_v."""

from __future__ import annotations

from dataclasses import dataclass

FLOAT_BYTES = 8


@dataclass(frozen=True)
class HeadCost:
    """Multiply-adds and bytes of one head on [B, T, d_k] queries and keys and [B, T, d_v] values."""

    batch: int
    tokens: int
    key_width: int
    value_width: int

    @property
    def score_entries(self) -> int:
        """Entries of one [B, T, T] matrix: scores, scaled scores or weights."""
        return self.batch * self.tokens * self.tokens

    @property
    def score_multiply_adds(self) -> int:
        """QKᵀ: one d_k-long dot product per (query, key) pair."""
        return self.score_entries * self.key_width

    @property
    def mixture_multiply_adds(self) -> int:
        """AV: each of T×T weights scales a d_v-wide value row."""
        return self.score_entries * self.value_width

    @property
    def forward_multiply_adds(self) -> int:
        return self.score_multiply_adds + self.mixture_multiply_adds

    @property
    def backward_multiply_adds(self) -> int:
        """dA = dO Vᵀ, dV = Aᵀ dO, dQ = dS K, dK = dSᵀ Q: each product of the forward pass, twice."""
        return 2 * self.forward_multiply_adds

    @property
    def score_bytes(self) -> int:
        return FLOAT_BYTES * self.score_entries

    @property
    def record_bytes(self) -> int:
        """What the record keeps: raw scores, scaled scores, weights (all [B, T, T]) and the output."""
        return 3 * self.score_bytes + FLOAT_BYTES * self.batch * self.tokens * self.value_width

    @property
    def input_bytes(self) -> int:
        return FLOAT_BYTES * self.batch * self.tokens * (2 * self.key_width + self.value_width)


BYTE_UNITS = ("B", "KiB", "MiB", "GiB")
MIB = 2**20


def size(nbytes: float, units: tuple[str, str, str, str] = BYTE_UNITS) -> str:
    """Bytes in the largest binary unit that keeps the number at or above 1: 768 B, 1.5 KiB, 256 MiB
    (``units`` names B, KiB, MiB and GiB in another language)."""
    for unit in units[:-1]:
        if nbytes < 1024:
            return f"{nbytes:.4g} {unit}"
        nbytes /= 1024
    return f"{nbytes:.4g} {units[-1]}"
