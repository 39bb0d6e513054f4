"""The engine a learner reads: plain numpy, each primitive's forward beside its backward.

tensor.py       the Tensor and reverse-mode differentiation (``backward``)
functions.py    the primitives: transpose, matmul, add, mul, exp, log_softmax, sum
attention.py    the head: its inputs checked once, then six primitives
closed_form.py  the one softmax of arrays (array_softmax), and the head and its backward as formulas on numpy arrays
gradcheck.py    central differences, to check any gradient coordinate by coordinate

Nothing here knows of chapters, threads or kept buffers; speed lives beside it, in ``llm_from_scratch.fast``.
"""

from .attention import SelfAttentionError, SelfAttentionForward, scaled_dot_product_self_attention
from .tensor import Tensor

__all__ = ["SelfAttentionError", "SelfAttentionForward", "Tensor", "scaled_dot_product_self_attention"]
