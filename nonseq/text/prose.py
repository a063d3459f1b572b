"""The one "is this prose?" test: link lists, navigation, bios, share lines and "related" blocks are not.

A chunk of an article page is prose when most of its words sit in sentence-like lines (long enough,
ending in sentence punctuation) and it carries few page-furniture phrases (share/subscribe, "related
articles", "follow us", an author's bio). `prose_score` is in [0, 1]; `is_prose` compares it with
PROSE_MIN. Used by retrieval (a penalty before selection, so furniture never becomes a fact) and by
the knowledge base (fact extraction).
"""

from __future__ import annotations

import re

from nonseq.text.instructions import is_instruction
from nonseq.text.words import tokens

#: The score from which a text counts as prose.
PROSE_MIN = 0.5
#: Words a line needs to read as a sentence rather than a headline or a menu entry.
SENTENCE_WORDS = 2
#: Lines at least this long count as sentence-like even without end punctuation (a cut window).
LONG_LINE_WORDS = 25

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)
#: Scripts written without spaces (CJK, kana, Thai): about two characters a word.
_UNSPACED = re.compile(r"[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]")
#: How a sentence or a sentence-like line ends; a line without it is a heading or a label.
SENTENCE_END = re.compile(r"[.!?…:;。！？][\"'”’»)\]]*$")
#: A table row (tables are data, and data is a fact).
_TABLE_ROW = re.compile(r"^\|.*\|$")
#: A list item: "- x", "* x", "• x", "1) x", "1. x".
_BULLET = re.compile(r"^(?:[-*•·]|\d{1,2}[.)])\s+")
_URL = re.compile(r"https?://|www\.|\.com/|pic\.twitter", re.IGNORECASE)
#: Share of capitalised words from which a short line reads as a headline (Title Case).
TITLE_CASE = 0.6
#: Page furniture: each match is evidence the text is not article prose.
_FURNITURE = re.compile(
    r"\b(?:share (?:this|on|via)|shares?\b(?= *(?:facebook|twitter|email|whatsapp|linkedin))"
    r"|subscribe (?:to|now|for)|sign up (?:for|to)|newsletter|follow us|follow (?:him|her|them|me) on"
    r"|related (?:articles?|stories|posts|content|coverage|topics)|you (?:may|might) also like"
    r"|more (?:from|stories|on this)|read (?:more|next|also)|recommended (?:for you|stories)"
    r"|most (?:popular|read|viewed)|trending (?:now|stories)|click here|all rights reserved"
    r"|cookie (?:policy|settings|preferences)|(?:use|accept) (?:of )?cookies|privacy policy"
    r"|terms of (?:use|service)|^advertisement$|sponsored content|skip to (?:main )?content"
    r"|back to top|comments? \(\d+\)"
    r"|leave a comment|photo: |image: |getty images|contributed to this report"
    r"|(?:is|was) an? (?:senior |staff |freelance |contributing |deputy )?(?:reporter|writer|editor"
    r"|correspondent|journalist|columnist|contributor) (?:for|at|with|based)"
    r"|e-?mail (?:him|her|them) at|@\w{2,15}\b)",
    re.IGNORECASE | re.MULTILINE,
)


def _count_words(line: str) -> int:
    """Words in a line (letters and digits; unspaced scripts count two characters a word)."""
    unspaced = len(_UNSPACED.findall(line))
    return len(_WORD.findall(line)) + unspaced // 2 - (1 if unspaced else 0)


def _title_case(line: str) -> bool:
    """True when most words of the line start with a capital (a headline, a menu entry)."""
    found = [w for w in _WORD.findall(line) if w[0].isalpha()]
    return bool(found) and sum(w[0].isupper() for w in found) / len(found) >= TITLE_CASE


def _sentence_like(line: str, n_words: int) -> bool:
    """True for running text, a table row, or a list item that is not a headline or a link."""
    if n_words >= LONG_LINE_WORDS or _TABLE_ROW.match(line):
        return True
    if _BULLET.match(line):
        return n_words >= 4 and not _URL.search(line) and not _title_case(line)
    return n_words >= SENTENCE_WORDS and bool(SENTENCE_END.search(line.rstrip()))


def _logical_lines(text: str) -> list[str]:
    """Non-empty lines, hard-wrapped ones joined (a line that goes on in lower case)."""
    lines: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if (lines and line[0].islower() and not SENTENCE_END.search(lines[-1])
                and not _BULLET.match(line)):
            lines[-1] = f"{lines[-1]} {line}"
        else:
            lines.append(line)
    return lines


def prose_score(text: str) -> float:
    """How much the text reads as article prose, in [0, 1] (1: running sentences, no furniture)."""
    lines = _logical_lines(text)
    total = 0
    in_sentences = 0
    for line in lines:
        n = max(1, _count_words(line))
        total += n
        if _sentence_like(line, n):
            in_sentences += n
    if not total:
        return 0.0
    share = in_sentences / total
    furniture = len(_FURNITURE.findall(text))
    # Each furniture phrase costs more in a short text than in a long one (one "read more" in a
    # 200-word window is a hint, three in 40 words are a share bar).
    penalty = min(1.0, furniture * 12.0 / max(total, 24))
    return round(max(0.0, share * (1.0 - penalty)), 4)


def is_prose(text: str) -> bool:
    """True when the text reads as article prose rather than page furniture."""
    return prose_score(text) >= PROSE_MIN


# -- one sentence: may a source sentence be said in an article? ------------------------------
#: Words a sentence needs to be a statement (shorter: a label, a fragment).
MIN_WORDS = 5
_END = re.compile(r"[.!?…][\"'”’)\]]*$")
#: A quotation in curly or straight double quotation marks.
QUOTATION = re.compile(r"“[^“”]*”|\"[^\"]*\"|“[^“”\"]*\"|\"[^\"“”]*”")  # a pair, or a curly and a straight mark
_LABEL = re.compile(
    r"^\W*(?:title|headline|related|related articles?|source|sources|photo|photos|image|images|"
    r"picture|video|watch|listen|caption|credit|credits|note|editor'?s note|read more|see also|"
    r"update|updated|correction|advertisement|sponsored|tags?|category|filed under|share|"
    r"follow|q|a|more|also read|recommended|trending|summary|tl;?dr|keywords?|posted|published|"
    r"author|by|byline|contact|email|e-mail|phone|signal|subscribe|topics?)\s*[:|–—-]\s", re.I)
_BYLINE = re.compile(
    r"^\W*(?:by|written by|posted by|reporting by|edited by|words by|story by)\s+[A-Z]|"
    r"contributed to this report|\bis an? (?:senior |staff |contributing )?(?:reporter|writer|editor|"
    r"correspondent|columnist)\b|\bfollow (?:him|her|them|us|me) on\b|@\w+\.\w+|\bemail (?:him|her|"
    r"the (?:author|writer))\b", re.I)
_CAPTION = re.compile(
    r"\b(?:getty images|ap photo|shutterstock|istock|afp photo|reuters photo|photo credit|"
    r"image credit|photograph:|illustration:|file photo|pictured|\(photo|\(image|\(credit)\b|"
    r"/\s*(?:reuters|ap|afp|getty)\b", re.I)
_META = re.compile(
    r"\b(?:originally (?:published|appeared)|read the (?:original|full) (?:article|story)|"
    r"this (?:article|story|post|page|piece) (?:was|has been|is|first|originally)|click|"
    r"subscribe|sign up|newsletter|cookies?\b|advertis|sponsored|share this|follow us|"
    r"source number|all rights reserved|copyright|©|terms of (?:service|use)|privacy policy|"
    r"(?:log|sign) ?in (?:to|with) (?:your|our)\b|comments? (?:section|below)|leave a comment|"
    r"editor'?s note|download (?:the|our) app|"
    r"affiliate|we may earn|commission from|this website|our website|this site|tap here|"
    r"scroll (?:down|up)|javascript|your browser|updated (?:on|at)\b|last updated|"
    r"published (?:on|at)\b|related (?:articles?|stories|coverage)|more stories|"
    r"register (?:now|here|for free)|free trial|buy now|"
    r"the (?:following|above|below) (?:charts?|tables?|graphs?|graphics?|maps?|videos?|images?|photos?|figures?|"
    r"infographics?|screenshots?)\b|(?:chart|table|graph|graphic|video|image|photo|figure|infographic)s? "
    r"(?:below|above)\b)",
    re.I)
#: A sentence that announces what the page goes on to list ("Here are 15 tips ...", "Below are ...", "In this
#: guide, ..."): the article does not hold the list.
_ANNOUNCE = re.compile(r"^\W*(?:here(?:'s|’s| is| are)|below(?: is| are|,)|the following (?:is|are)|"
                       r"in this (?:article|post|guide|piece|story|list|review)\b)", re.I)
_INSTRUCTION = re.compile(
    r"\b(?:ignore (?:all |any |the )?(?:previous|above|prior|earlier)|disregard (?:all|any|the|"
    r"previous)|you are (?:now )?(?:a|an|the) (?:helpful|ai|assistant|language)|as an ai\b|"
    r"language model|system prompt|(?:the )?assistant\b|respond (?:with|only)|answer (?:with|only)|"
    r"your (?:task|instructions)|new instructions|(?:follow|these) instructions|jailbreak|"
    r"pretend (?:to be|you)|do anything now)|<<<|>>>|\[/?inst\]|<\|im_(?:start|end)\|>|"
    r"^\W*(?:system|user|assistant)\s*:", re.I)
#: First person, the page author's own voice (not "US"); a capitalised form after a word is part of a name
#: ("The We Company", "The Captain and Me").
_FIRST = re.compile(r"\b(?:I|me|my|mine|myself|we|us|ours?|ourselves|let['’]s)\b"
                    r"|(?<![\w,]\s)\b(?:Me|My|Mine|Myself|We|Ours?|Ourselves|Let['’]s)\b")
_SECOND = re.compile(r"\b(?:[Yy]ou|[Yy]ours?|[Yy]ourself)\b")


#: The first words of a sentence that leans on the one before it: issue 47's list, and "Or", the other coordinating
#: conjunction a sentence can open with ("Or perhaps you'd like ..."; an opening "Nor" is the leaning check's
#: elliptical clause).
LEANS_BACK = re.compile(r"^\W*(?:it|its|they|their|them|this|these|that|those|he|she|his|her|and|but|or|also|"
                        r"however)\b", re.I)


#: A result line run into its sentence ("Senators 4, Red Wings 3: Anthony Duclair had two goals ..."): a frame of
#: the article's goes after it. Only a line with scores: a title may hold a colon too ("Star Wars Jedi: Fallen
#: Order is ...").
_TEAM = r"[A-Z][\w.'’&-]*(?: [A-Z][\w.'’&-]*){0,3}"
_RESULT_LINE = re.compile(rf"^{_TEAM} \d+, {_TEAM} \d+(?: \((?:\d*OT|SO)\))?: (?=[A-Z\"“])")


def result_line(sentence: str) -> str:
    """The result line a sentence opens on ("Blues 3, Lightning 1: "), "" when it opens on none."""
    m = _RESULT_LINE.match(sentence)
    return m.group() if m else ""


def leans_back(sentence: str) -> bool:
    """True when a sentence opens with a word that leans on the sentence before it ("It ...", "But ...")."""
    return bool(LEANS_BACK.match(sentence))


def quoted_at(text: str, at: int) -> bool:
    """True when position `at` of the text lies inside a quotation (`QUOTATION`): the speaker's words, which an
    edit of the article's marks as the editor's ("[on 19 November 2019]")."""
    return any(m.start() <= at < m.end() for m in QUOTATION.finditer(text))


def unquoted(text: str) -> str:
    """The text with its quotations removed (what the source's author says in their own voice)."""
    return QUOTATION.sub(" ", text)


def _is_table(text: str) -> bool:
    """True for table rows and lists of figures (more figures and symbols than words)."""
    tokens = text.split()
    figures = sum(bool(re.fullmatch(r"[-+$€£%.,:/\d()]+", t)) for t in tokens)
    return "|" in text or figures > max(3, len(tokens) // 3)


def _starts_mid(sentence: str) -> bool:
    """True when a sentence starts with a lower-case word or stray punctuation (quotes aside)."""
    body = sentence.lstrip("\"“‘'([ ")
    return not body or body[0].islower() or body[0] in ",;:)]}-–—…."


def reject_reason(sentence: str, *, allow_second_person: bool = False, max_words: int = 45) -> str:
    """Why a source sentence may not go into an article ("" when it may)."""
    n = len(tokens(sentence))
    checks = [
        (_INSTRUCTION.search(sentence) or is_instruction(sentence), "instruction aimed at the model"),
        (n < MIN_WORDS, f"fragment: fewer than {MIN_WORDS} words"),
        (_starts_mid(sentence), "fragment: starts mid-sentence"),
        (_LABEL.match(sentence), "label (e.g. 'Title:', 'Related:')"),
        (_BYLINE.search(sentence), "byline or author note"),
        (_CAPTION.search(sentence), "caption or photo credit"),
        (_META.search(sentence), "text about the page (published, click, subscribe...)"),
        (_ANNOUNCE.search(sentence), "text about the page (announces what it goes on to list)"),
        (not _END.search(sentence), "heading or label: no sentence end"),
        (sentence.rstrip("\"'”’)] ").endswith("?"), "question"),
        (_is_table(sentence), "table row or list of figures"),
        (n > max_words, f"longer than {max_words} words"),
        (_FIRST.search(unquoted(sentence)), "first person: the source author's own voice"),
        (not allow_second_person and _SECOND.search(unquoted(sentence)),
         "second person: addressed to the source's reader"),
    ]
    return next((reason for hit, reason in checks if hit), "")
