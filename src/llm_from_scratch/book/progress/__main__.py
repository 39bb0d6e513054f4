"""``python -m llm_from_scratch.book.progress export FILE... --csv``: the teacher's table (``book.export``)."""

import sys

from ..export import main

sys.exit(main())
