"""python -m llm_from_scratch.ch27 [--lang ru|en]: print the chapter's report."""

import argparse
import sys

from ..book.text import LANGUAGES, set_language
from .sections import render_report

parser = argparse.ArgumentParser(prog="python -m llm_from_scratch.ch27", description="Chapter 27's text report.")
parser.add_argument("--lang", choices=LANGUAGES, default=LANGUAGES[0], help="language of the report (default: ru)")
set_language(parser.parse_args().lang)
sys.stdout.write(render_report())
