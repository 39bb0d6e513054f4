"""Chapter 27's content: its examples and evidence, its exercises and their judges, its sections, figures and
widgets, and the one module its notebooks import (``notebook``). It is built on the book (``llm_from_scratch.book``)
and on the engine: the engine's public API (``Tensor``, the head and its error) for what the cells run, and, where a
judge, a check or a figure needs them, its closed form (``engine.closed_form``), its gradient check
(``engine.gradcheck``), its stages (``engine.attention``) and the speed beside it (``llm_from_scratch.fast``)."""
