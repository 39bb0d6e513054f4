"""The former name of ``lab_settings``, kept so that ``python -m llm_from_scratch.book.server`` still writes the
settings and the settings an earlier version wrote, which name ``llm_from_scratch.book.server.PromptKernelConnection``,
still find their class."""

from .lab_settings import PromptKernelConnection, main

__all__ = ["PromptKernelConnection", "main"]

if __name__ == "__main__":
    main()
