"""python -m llm_from_scratch.ch27: print the chapter's report."""

import sys

from .report import render_report

sys.stdout.write(render_report())
