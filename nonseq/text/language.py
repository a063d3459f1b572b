"""The language of a page's text: py3langid (langid.py's model, which ships inside the package).

The writer's checks (the parser, the stop words, the rules for time and attribution) read English only, so a
page in another language is left out of the plan rather than said unchecked (`writing.plan`). The whole of
a page's retrieved text is read at once: on the 181 local-web pages, the classifier's first choice for a page
is its language for every one of them (161 English, 20 in seven other languages), while 2 of 906 English
windows of 800 characters (a list of tour dates, a box score) were read as another language.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from nonseq.errors import ConfigError

#: Fewer letters than this say too little to tell a language by.
MIN_LETTERS = 200


@cache
def _identifier() -> Any:
    """The language identifier, loaded once (a clear error when the package is missing)."""
    try:
        from py3langid.langid import MODEL_FILE, LanguageIdentifier
    except ImportError:
        raise ConfigError("the language identifier is not installed: pip install 'py3langid>=0.4'") from None
    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def language(text: str) -> str:
    """The ISO 639-1 code of the text's language ("en", "id"), or "" when it has too few letters to tell."""
    if len(re.findall(r"[^\W\d_]", text)) < MIN_LETTERS:
        return ""
    return str(_identifier().classify(text)[0])
