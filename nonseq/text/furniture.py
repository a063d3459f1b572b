"""Page furniture inside and around source sentences: what never reaches an article.

Encyclopedia, documentation and news pages carry text that is about the page, not about the
topic: MediaWiki's `[edit]` links, footnote numbers (`[12]`, `[a]`, `[note 3]`), "[citation
needed]" and its kin, "Main article: ...", "Archived from the original on ...", "Retrieved 4 May
2020", docs navigation ("Next", "Edit on GitHub", "Built with Sphinx", "¶"), and links.
`clean_inline` removes what sits inside a sentence (markers, parenthesised reference numbers, a
summary box's label, pilcrows; a Markdown link becomes its text, an image goes); `furniture_reason`
says why a whole sentence is furniture (or holds a URL, which an article never makes a link of);
`unlink` is the last guard on article text.
"""

from __future__ import annotations

import re

#: Bracketed editorial notes of wikis and docs: [citation needed], [edit], [1], [a], [note 3], [update].
_BRACKET_NOTE = re.compile(
    r"\s?\[(?:\d{1,4}|[a-z]|[ivx]{1,5}|(?:note|nb|n|fn|ref|lower-alpha)\s*\d{1,3}|"
    r"citation needed|cite needed|citation required|needs? citation|edit|edit source|edit section|"
    r"clarification needed|verification needed|better source needed|unreliable source\??|"
    r"dubious(?: [–—-] discuss)?|discuss|when\?|who\?|which\?|where\?|why\?|according to whom\?|"
    r"by whom\?|specify|vague|disputed|original research\??|page needed|full citation needed|"
    r"dead link|permanent dead link|failed verification|not in citation given|update|updated|"
    r"needs update|weasel words|sic|show|hide|more|top|link|source|sources)\]",
    re.I)
#: A footnote number ("[2]"): what the support check's parse and word match leave out of claim and source.
FOOTNOTE_NUMBER = re.compile(r"\[\d+\]")
#: Reference numbers in parentheses before a sentence's punctuation, as health and science pages
#: cite ("... binge eating (32, 33).", "(12)", "(4-6)"); four-digit years and lettered lists stay.
_PAREN_REFS = re.compile(r"\s?\((?:\d{1,3})(?:\s*[,–—-]\s*\d{1,3})*\)(?=\s*(?:[.,;:!?]|$))")
#: The label of a page's summary or takeaway box at a sentence's start ("Summary: ...", "Summary
#: Adhering to ...", "Bottom line: ..."): the box's text is the page's, the label is furniture.
_BOX_LABEL = re.compile(r"^(?:Summary|In summary|The bottom line|Bottom line|Key takeaways?|Takeaways?|"
                        r"TL;? ?DR)\b\s*[:.–—-]?\s+(?=[A-Z“\"'])")
#: A footnote caret or a pilcrow left by a docs page's heading anchor.
_ANCHORS = re.compile(r"\s?[¶§](?=\s|$)|\^\s?(?=\[|\d|$)")
_IMAGE = re.compile(r"!\[[^\]\n]*\]\([^)\n]*\)")
_MD_LINK = re.compile(r"\[([^\]\n]+)\]\((?:[^()\s]|\([^()\s]*\))+(?:\s+\"[^\"]*\")?\)")
_REF_LINK = re.compile(r"\[([^\]\n]+)\]\[[^\]\n]*\]")
_AUTOLINK = re.compile(r"<(?:https?|ftp|mailto):[^>\s]+>", re.I)
_HTML_LINK = re.compile(r"</?a\b[^>]*>", re.I)
#: A URL or a bare web address (www.x.y, x.com/path).
URL_RE = re.compile(r"(?:\b(?:https?|ftp)://|\bwww\.[\w-]+\.|\b[\w-]+\.(?:com|org|net|io|gov|edu|co\.uk)/)"
                    r"\S*?(?=[.,;:!?)\]\"'”’]*(?:\s|$))", re.I)

#: Whole sentences that are a wiki's or docs site's furniture, or a site's disclaimer ("The views expressed ...
#: are their own", "... may receive a commission on orders placed through this article").
_FURNITURE = re.compile(
    r"^\W*(?:main articles?|see also|further information|further reading|external links|"
    r"for (?:other uses|more (?:details|information)), see|this (?:article|section) (?:is about|needs|"
    r"may need|has multiple issues|relies)|jump to (?:navigation|search)|from wikipedia|"
    r"table of contents|on this page|in this (?:article|section)|edit (?:this page|on github)|"
    r"view (?:page )?source|last (?:edited|modified|updated)|was this (?:page|article) helpful)\b"
    r"|^\W*(?:previous|next|prev|back|up|home|contents|navigation|menu|breadcrumbs?)"
    r"(?: (?:page|topic|article|section|chapter|menu))?\s*(?:[:»›|←→<>]|$)"
    r"|\barchived from the original\b|\bretrieved (?:on )?(?:\d{1,2} \w+|\w+ \d{1,2},?) \d{4}\b"
    r"|\bretrieved \d{4}-\d{2}-\d{2}\b|\baccess-?date\b|\bthis page was last (?:edited|modified)\b"
    r"|\bbuilt with (?:sphinx|mkdocs|docusaurus|jekyll|hugo)\b|\btheme provided by\b"
    r"|\bmade with material for mkdocs\b|\bpowered by (?:mediawiki|read the docs|gitbook|docusaurus)\b"
    r"|\bcreative commons attribution-sharealike\b|\bedit on github\b|\bimprove this (?:page|article)\b"
    r"|\bwikimedia foundation\b|\bisbn(?:-1[03])?[: ]+[\dx-]{10,}"
    r"|[»›]\s*\w[^.!?]*[»›]"
    r"|^\W*(?:disclaimer|disclosure)\s*:|\bthe views (?:and [\w ]{1,30} )?expressed\b[^.]*\b(?:are (?:their|his|her|"
    r"the \w+'?s?) own|do not (?:necessarily )?reflect)\b|\badvises (?:users|readers|visitors)\b"
    r"|\b(?:may|might|could) (?:receive|earn|get) (?:a )?(?:small )?(?:share of sales|commission|compensation|"
    r"affiliate)\b|\baffiliate links?\b",
    re.I)


#: A wire service's instrument codes in running text: an index after a space and a dot (" .SPX", " .MIWD00000PUS"),
#: a continuous future ("CLc1", "LCOc1"), a share in brackets ("(AAPL.O)"); a hashtag's sign ("#Browns").
_CODES = re.compile(r"(?<=\s)\.(?!NET\b)[A-Z][A-Z0-9]{1,14}\b|\b[A-Z]{1,4}c\d\b|\s?\([A-Z]{1,6}\.[A-Z]{1,3}\)"
                    r"|(?<![\w&])#(?=[A-Za-z])")


#: A footnote's star, opening a sentence or after a word ("*A draw will decide ...", "highest-graded player*").
_FOOTNOTE_STAR = re.compile(r"^\*+\s*|(?<=\w)\*+(?=\W|$)")
#: A sentence said as an aside, whole in brackets ("(McKinley's office did not provide PolitiFact with ...)").
_ASIDE = re.compile(r"^\(([^()]+[.!?][\"”’]?)\)$")


def clean_inline(sentence: str) -> str:
    """A source sentence without wiki/docs markers inside it; links become their text, images go; so do a
    wire service's instrument codes, a hashtag's sign and a space before a possessive's "’s"."""
    text = _CODES.sub("", _IMAGE.sub("", sentence))
    text = _MD_LINK.sub(r"\1", text)
    text = _REF_LINK.sub(r"\1", text)
    text = _AUTOLINK.sub("", _HTML_LINK.sub("", text))
    text = _BRACKET_NOTE.sub("", text)
    text = _PAREN_REFS.sub("", text)
    text = _BOX_LABEL.sub("", text)
    text = _ANCHORS.sub("", text)
    text = re.sub(r"\s+([.,;:!?])(?=\s|$|[\"”’)])", r"\1", text)
    text = re.sub(r"(?<=\w) ([’']s)\b", r"\1", text)  # "the Senate ’s session": a space the markup put in
    text = _FOOTNOTE_STAR.sub("", " ".join(text.split()))
    return _ASIDE.sub(r"\1", text)


def furniture_reason(sentence: str) -> str:
    """Why a sentence is page furniture or holds a link ("" when it is neither)."""
    if _FURNITURE.search(sentence):
        return "page furniture (wiki or docs navigation, archive or retrieval note, disclaimer)"
    if URL_RE.search(sentence) or _MD_LINK.search(sentence) or _AUTOLINK.search(sentence):
        return "holds a URL or link"
    if _BRACKET_NOTE.search(sentence):
        return "page furniture (a footnote or editorial marker)"
    return ""


def unlink(text: str) -> str:
    """Article text with no link in it: links become their text, URLs and editorial markers go."""
    text = URL_RE.sub("", clean_inline(text))
    return " ".join(re.sub(r"\s+([.,;:!?])", r"\1", text).split())
