"""Relative time in a source sentence ("earlier this year", "on Tuesday", "last week"): anchored to the
page's date, or the sentence is left out.

An article is read long after its sources were written: "this year" means the year the page was
dated. `anchor(sentence, published)` writes the year (or the date) in, from the page's
publication date ("year-to-date" as "from 1 January to <the page's date>", "so far" and "to date" as "As of
<the page's date>, ..."); when the page has no date, or the phrase cannot be anchored (a vague count, "several
years ago", vague recency, "recently", "in recent weeks", "for the past few years": how recent is
not said, and a day or week said as a possessive outside a quotation, "last week's rollout", which no
date can stand in for), it returns None and the sentence is not said. A weekday takes its
direction from "last" or "next" before it ("last Tuesday" strictly before the page's date, "next
Tuesday" strictly after), else from its verb: a past verb ("said Tuesday", "posted Tuesday") the last
such day on or before the page's date, a future one ("will launch Friday") the first on or after it; a
present one ("launch day is Tuesday", "reports Tuesday") could be either, so that sentence is not said;
so is a past one naming the day after the page's date ("were mixed in early trading Tuesday" on a Monday's
page), which is six days back or the next day where the page was dated in another time zone.

Not counted from the page's date, so left as they are: a name ("USA Today", "the Today show"), a weekday
modifying a noun ("Saturday publication") or a date written after it ("Saturday, May 18"), a day of no
particular week ("on a Monday"), "the next year" and "the past month" (counted from what the page tells of, or
a survey's), a span of something ("the last weekend of September"), and "now" in a word ("now-deceased").
A span forward on a past verb ("The next two months were tough") or "year-to-date" said of a thing ("the
year-to-date period") leaves its sentence unsaid. A date after "of" reads "the end of 2018", not "of in 2018".
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

from nonseq.text.prose import QUOTATION, quoted_at, result_line

DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December")
#: "this year", "last month"; not after "the": "the next year" counts from what the page tells of, and "the
#: past month" of a survey is its respondents' (the same for "the last week").
_YEAR = re.compile(r"(?<!\bthe )\b(?:(earlier|later|early|late)\s+)?(this|last|next) year(['’]s)?\b", re.I)
_MONTH = re.compile(r"(?<!\bthe )\b(?:(earlier|later|early|late)\s+)?(this|last|next) month(['’]s)?\b", re.I)
#: A date written out after a weekday ("Saturday, May 18", "Monday, Nov. 18", "Tuesday, 19 November"): the
#: weekday is part of that date, not counted from the page's.
_DATED = (r"(?!,?\s+(?:(?:" + "|".join(MONTHS) + r")\.?|Jan\.|Feb\.|Aug\.|Sept?\.|Oct\.|Nov\.|Dec\.)\s+\d)"
          r"(?!,?\s+\d{1,2}\s+(?:" + "|".join(MONTHS) + r"))")
_DAY = re.compile(
    r"\b(?:(?:on|last|this|next|earlier on|late on|early on) )?"
    r"(?<!Super )(?<!Black )(?<!Good )(?<!Cyber )(?<!Ash )(?<!Easter )(?<!Holy )(?<!Giving )"
    r"(?<!\ba )(?<!\bevery )(?<!\beach )(?<!\bany )"  # "on a Monday": any such day, no date
    r"(" + "|".join(DAYS) + r")(?: (?:morning|afternoon|evening|night))?\b(?!['’]s)" + _DATED +
    r"|\b((?:yesterday|today|tomorrow)(?: (?:morning|afternoon|evening|night))?|tonight|"
    r"this (?:morning|afternoon|evening|week|weekend)|"
    r"(?<!\bthe )last (?:night|week|weekend)|next week|earlier (?:this|in the) week|later this week)\b(?!['’]s)"
    r"(?! of\b)",  # "the last weekend of September" is no count from the page's date
    re.I)
_COUNTS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
           "nine": 9, "ten": 10}
#: Time counted back from the page's date ("a year ago", "two weeks ago"); a vague count ("a few", "several",
#: "years ago") cannot be anchored, so its sentence is not said.
_AGO = re.compile(r"\b(more than |over |nearly |almost |about |around |roughly |less than |just |only |some |barely "
                  r"|scarcely |little more than |under )?"
                  r"(?:(a few|several|many|some|\d+|" + "|".join(_COUNTS) + r")\s+)?"
                  r"(day|week|month|year|decade)s?\s+ago\b", re.I)
#: Recency with no count ("a recent report", "recently", "in recent years", "the past few months", "lately",
#: "in the coming weeks", "the next few days"): no date can be written for it, so its sentence is not said.
_VAGUE = re.compile(r"\b(?:recent(?:ly)?|lately|of late|(?:the\s+)?(?:past|last|next|coming)\s+(?:few\s+|several\s+|"
                    r"couple\s+of\s+|many\s+)?(?:days|weeks|months|years|decades)|the\s+coming\s+\w+)\b", re.I)
#: A day or week said as a possessive ("last week's rollout", "Tuesday's hearing", "yesterday's vote", "today's
#: deal"; not "today's teenagers", the present day): no date can be written in its place, so outside a quotation
#: it leaves the sentence unsaid, like a vague count.
_POSSESSIVE = re.compile(r"\b(?:(?:last|this|next)\s+(?:week|weekend)|(?:(?:last|this|next)\s+)?(?:"
                         + "|".join(DAYS) + r")(?:\s+(?:morning|afternoon|evening|night))?|yesterday)['’]s\b"
                         r"|(?:['’]s|\bits|\btheir|\bhis|\bher|\bour)\s+(?:" + "|".join(DAYS) + r")"
                         r"(?:\s+(?:morning|afternoon|evening|night))?\s+[a-z]"  # "NASA's Monday announcement"
                         r"|\b(?:today|tonight|tomorrow)['’]s\s+(?:\w+\s+)?(?:deals?|offers?|sales?|prices?|discounts?|"
                         r"games?|match|meeting|hearings?|announcement|event|session|trading|vote|episode|show|race|"
                         r"launch|release|rally|protest|debate|decision|ruling|update|edition)\b", re.I)
#: The present of the page ("currently", "now a staff scientist", "at present"): the word is taken out and the
#: sentence said as of the page's date ("For now, ..." goes whole). Not "now" opening a sentence with a comma
#: ("Now, ..."), "now that", or "now" counted to ("until now", "by now", "from now").
_PRESENT = re.compile(r"^\W*today(?=\s*,)|(?<=\w )today(?=[.!?]?[\"”’]?$)"  # only where `_not_dates` kept it
                      r"|\b(?:for now|currently|presently|nowadays|at present|at the moment|these days|"
                      r"so far(?! as\b| from\b| away\b)|(?<!up )(?<!out of )to date|"
                      r"(?<!until )(?<!by )(?<!from )(?<!till )(?:right |just |even )?now(?! that\b)(?![-‐]\w))\b",
                      re.I)
#: Since the year began, up to the page's date ("up 39 percent year-to-date"): written as that span.
_YTD = re.compile(r"\b(?:(?i:year[- ]to[- ]date)|YTD)\b")
#: "year-to-date" said of a thing ("the year-to-date period", "its year-to-date gain"): no span can stand in
#: its place, so the sentence is not said.
_YTD_OF = re.compile(r"\b(?:the|its|their|a|this|that|[\w.&]+['’]s)\s+(?:(?i:year[- ]to[- ]date)|YTD)\b", re.I)
#: A span counted from the page's date with a number ("the next two years", "the past 12 months"): written as
#: the span before or after the page's date ("the two years after 20 November 2019").
_SPAN = re.compile(r"\bthe\s+(next|coming|past|last)\s+(\d+|" + "|".join(_COUNTS) + r")\s+"
                   r"(days|weeks|months|years|decades)\b(?! of\b)", re.I)
#: A month with no year after it ("in July", "on July 25", "25 July"), not part of a range or a name.
#: News style's short months before a day ("Feb. 14", "Sept. 3").
SHORT_MONTHS = {"Jan.": 1, "Feb.": 2, "Aug.": 8, "Sept.": 9, "Sep.": 9, "Oct.": 10, "Nov.": 11, "Dec.": 12}
_SHORT = "|".join(re.escape(m) for m in sorted(SHORT_MONTHS, key=len, reverse=True))
_BARE_MONTH = re.compile(r"(?<![\w-])(?<!(?i:last|next|this) )(?:\d{1,2}\s+)?("  # "next March" is `_NAMED`'s
                         + "|".join(MONTHS) + r"|(?:" + _SHORT + r")(?=\s+\d))"
                         r"(?:\s+(\d{1,2})(?:st|nd|rd|th)?)?(?:\b|(?<=\.))"
                         r"(?![-–—]|\s*[-–—]\s*\w)(?!,?\s+(?:of\s+)?\d{4})(?!\s+[A-Z\d])")
_IN_MONTH = re.compile(r"\b((?:in|since|until|by|from|early|late|mid-?)\s+(?:" + "|".join(MONTHS) + r"))\s+"
                       r"(this|last|next) year\b", re.I)


def page_date(published: str) -> date | None:
    """The page's date from an ISO-like string ("2019-11-19", "2019-11-19T08:00:00Z"), or None."""
    m = re.match(r"\s*(\d{4})-(\d{2})-(\d{2})", published or "")
    if not m:
        return None
    try:
        return date(int(m[1]), int(m[2]), int(m[3]))
    except ValueError:
        return None


def _long(d: date) -> str:
    """A date as "19 November 2019"."""
    return f"{d.day} {MONTHS[d.month - 1]} {d.year}"


#: A verb after "next year" or "last month" that makes it the subject ("Next year is the year of the rat"): the
#: time is then written bare ("2020 is ..."), not "In 2020 is ...".
_SUBJECT_VERB = re.compile(r"\s+(?:is|was|will|would|has|had|marks|marked|saw|sees|brings|brought|promises|could|"
                           r"should|may|might|looks|looked)\b", re.I)


def _subject(m: re.Match[str]) -> bool:
    """True when the matched time, with no word of its own before it, is the subject of the verb after it: it
    opens the sentence or a clause said or thought ("He said last year was ..."; not "cut rates last month
    should keep ...")."""
    before = m.string[:m.start()].rstrip()
    opens = not re.search(r"\w", before) or bool(re.search(
        r"\b(?:said|says|say|think|thinks|thought|believe|believes|believed|expect|expects|noted|added|that)$",
        before, re.I))
    return not m[1] and opens and bool(_SUBJECT_VERB.match(m.string, m.end()))


def _year(m: re.Match[str], day: date) -> str:
    """'earlier this year' -> 'earlier in 2019'; "this year's" -> "2019's"; "Next year is ..." -> "2020 is ..."."""
    shift = {"this": 0, "last": -1, "next": 1}[m[2].lower()]
    year = str(day.year + shift)
    if m[3]:
        return f"{m[1] + ' in ' if m[1] else ''}{year}{m[3]}"
    return year if _subject(m) else f"{m[1] + ' ' if m[1] else ''}in {year}"


def _month(m: re.Match[str], day: date) -> str:
    """'last month' -> 'in October 2019' ("Last month was ..." -> "October 2019 was ...")."""
    shift = {"this": 0, "last": -1, "next": 1}[m[2].lower()]
    index = day.year * 12 + day.month - 1 + shift
    name = f"{MONTHS[index % 12]} {index // 12}"
    if _subject(m) and not m[3]:
        return name
    return f"{m[1] + ' in ' if m[1] else 'in '}{name}{m[3] or ''}"


def _day(m: re.Match[str], day: date, future: bool) -> str:
    """A weekday or 'yesterday' as a date: the last such day on or before the page's (the first on or after
    it, for what will happen: "will begin Monday" on a Monday's page is that day); "last Tuesday" strictly
    before the page's date and "next Tuesday" strictly after it (on a Tuesday's page, a week away); weeks
    as 'in the week of <date>'."""
    if m[1]:
        target = DAYS.index(m[1].lower())
        ahead, behind = (target - day.weekday()) % 7, (day.weekday() - target) % 7
        lead = m[0].split()[0].lower()
        if lead == "next" or (future and lead != "last"):
            when = day + timedelta(days=ahead or (7 if lead == "next" else 0))
        else:
            when = day - timedelta(days=behind or (7 if lead == "last" else 0))
        return f"on {_long(when)}"
    word = m[2].lower()
    offsets = {"yesterday": -1, "today": 0, "tonight": 0, "tomorrow": 1, "last night": -1}
    if word.startswith("this ") and word.split()[1] in ("morning", "afternoon", "evening"):
        return f"on {_long(day)}"
    word = re.sub(r"^(yesterday|today|tomorrow) \w+$", r"\1", word)  # "yesterday evening": that day
    if word in offsets:
        return f"on {_long(day + timedelta(days=offsets[word]))}"
    if "last week" in word or "last weekend" in word:
        return f"in the week before {_long(day)}"
    if "next week" in word:
        return f"in the week after {_long(day)}"
    return f"in the week of {_long(day)}"


def _ago(m: re.Match[str], day: date) -> str | None:
    """'a year ago' -> 'in 2018', 'two months ago' -> 'in September 2019', 'a week ago' -> 'in the week of
    12 November 2019', 'a decade ago' -> 'around 2009'; None for a count that is not a number."""
    word = (m[2] or "").lower()
    n = int(word) if word.isdigit() else _COUNTS.get(word)
    if n is None or m[1]:  # "years ago", "several weeks ago", "more than a year ago": no date to write
        return None
    unit = m[3].lower()
    if unit in ("year", "decade"):
        return f"{'around' if unit == 'decade' else 'in'} {day.year - n * (10 if unit == 'decade' else 1)}"
    if unit == "month":
        index = day.year * 12 + day.month - 1 - n
        return f"in {MONTHS[index % 12]} {index // 12}"
    back = day - timedelta(days=n * (7 if unit == "week" else 1))
    return f"in the week of {_long(back)}" if unit == "week" else f"on {_long(back)}"


def _span(m: re.Match[str], day: date) -> str:
    """'the next two years' -> 'the two years after 20 November 2019'."""
    return f"the {m[2]} {m[3]} {'after' if m[1].lower() in ('next', 'coming') else 'before'} {_long(day)}"


def _told_forward(sentence: str) -> bool:
    """True when a span after the page's date ("the next two months") hangs on a past verb ("The next two
    months were hard"): it counts from a time the page tells of, not from the page's date."""
    from nonseq.text.parse import parse

    starts = {m.start(1) for m in _SPAN.finditer(sentence) if m[1].lower() in ("next", "coming")}
    return bool(starts) and any(_tense(t) == "past" for t in parse(sentence) if t.idx in starts)


#: What a weekday names when it modifies a noun: an edition or an event, not a date ("Saturday publication").
_DAY_PARTS = frozenset(("morning", "afternoon", "evening", "night"))


#: "Today," opening a sentence: on a verb in the simple present it says the present, not the page's day.
_TODAY_PRESENT = re.compile(r"\W*today\s*,", re.I)


#: Verbs of a state, which the simple present says holds now ("plague infections are rare"), not happens today.
_STATES = frozenset(("be", "have", "remain", "exist", "live", "seem", "stay", "lack", "need", "tend", "depend",
                     "number", "account", "represent", "contain", "include", "own", "hold", "know", "mean"))


def _present_tense(doc: Any) -> bool:
    """True when the main verb is a state's in the simple present ("are", "remain"; not "is launching", "will",
    nor "releases", an event of the day)."""
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    return (root is not None and root.tag_ in ("VBZ", "VBP") and root.lemma_.lower() in _STATES
            and not any(c.dep_ in ("aux", "auxpass") for c in root.children))


#: "today" ending a sentence ("... are rare today."): on a state in the simple present it says the present.
_TODAY_LAST = re.compile(r"(?<=\w )today(?=[.!?]?[\"”’]?$)", re.I)


def _state_now(doc: Any) -> bool:
    """True when the verb a sentence-final "today" modifies is a state in the simple present ("are rare today",
    "continues to suffer ... today"; not "launched ... today", nor "releases its results today", an event)."""
    verb = next((t.head for t in doc if t.lower_ == "today" and t.dep_ == "npadvmod"), None)
    while verb is not None and verb.dep_ == "xcomp":  # "continues to suffer": the finite verb says the tense
        verb = verb.head
    return (verb is not None and verb.tag_ in ("VBZ", "VBP") and verb.lemma_.lower() in (*_STATES, "continue")
            and not any(c.dep_ in ("aux", "auxpass") for c in verb.children))


def _not_dates(sentence: str) -> set[int]:
    """Where a weekday or "Today" is no date: "Today" inside a name ("USA Today", "the Today show": capitalised
    after the sentence's first word) and a weekday modifying a noun ("end Saturday publication")."""
    from nonseq.text.parse import parse

    out = {m.start(2) for m in _DAY.finditer(sentence) if m[2] and m[2][:1] == "T" and m[2].lower() == "today"
           and re.search(r"\w", sentence[:m.start(2)])}
    if _TODAY_PRESENT.match(sentence) and _present_tense(parse(sentence)):
        out.add(sentence.lower().index("today"))  # "Today, plague infections are rare": the present, said as of
    last = _TODAY_LAST.search(sentence)
    if last and not quoted_at(sentence, last.start()) and _state_now(parse(sentence)):
        out.add(last.start())  # "... continues to suffer air quality problems today": the present, said as of
    for t in parse(sentence):
        if (t.lower_ in DAYS and t.dep_ == "compound" and t.head.pos_ in ("NOUN", "PROPN")
                and t.head.lower_ not in _DAY_PARTS):
            out.add(t.idx)
    return out


def _day_after(weekdays: list[re.Match[str]], day: date) -> bool:
    """True when a bare weekday said with a past verb is the day after the page's date ("were mixed in early
    trading Tuesday" on a Monday's page): six days back, or the next day where the page was dated in another
    time zone, so no date can be written for it."""
    return any(m[0].split()[0].lower() not in ("last", "next") and (day.weekday() + 1) % 7 == DAYS.index(m[1].lower())
               for m in weekdays)


def relative_spans(sentence: str) -> list[tuple[int, int]]:
    """Where the sentence's relative time phrases are ("this year", "on Tuesday"), as character spans."""
    return [m.span() for pattern in (_YEAR, _MONTH, _DAY, _AGO, _SPAN) for m in pattern.finditer(sentence)]


def _possessive(sentence: str) -> bool:
    """True when the sentence, outside its quotations, says a day or week as a possessive ("last week's")."""
    return bool(_POSSESSIVE.search(QUOTATION.sub(" ", sentence)))


def has_relative_time(sentence: str) -> bool:
    """True when the sentence dates something relative to when it was written."""
    return (any(p.search(sentence) for p in (_YEAR, _MONTH, _DAY, _AGO, _VAGUE, _SPAN, _YTD))
            or bool(_present(sentence)) or _possessive(sentence) or _season(sentence) or bool(_NAMED.search(sentence)))


#: Verbs whose present passive points forward ("Sentencing is scheduled for Feb. 14").
_PLANNED = frozenset(("schedule", "slate", "set", "plan", "expect", "due"))


def _tense(token: Any) -> str:
    """"past" or "future" for the verb a token hangs on, "" for a present verb (read from the parse)."""
    verb = token
    while verb.head.i != verb.i and verb.pos_ not in ("VERB", "AUX"):
        verb = verb.head
    helpers = {c.lower_ for c in verb.children if c.dep_ in ("aux", "auxpass")}
    if helpers & {"will", "shall", "'ll", "wo"} or (verb.lemma_.lower() in _PLANNED and helpers & {"is", "are"}):
        return "future"  # "will launch"; "is scheduled for", "are due"
    if (verb.tag_ == "VBD" or helpers & {"was", "were", "had", "has", "have", "did"}
            or (verb.tag_ == "VBN" and not helpers)):  # a participle on its own: "a letter posted Tuesday"
        return "past"
    if not helpers and verb.tag_ == "VBG" and verb.head.i != verb.i:  # "pleaded guilty to threatening in March"
        return _tense(verb.head)
    if verb.dep_ == "xcomp" and verb.head.i != verb.i:  # "is scheduled to take place in February"
        return _tense(verb.head)
    return ""


#: Words before a noun that say its event was still to come ("a scheduled Dec. 15 imposition", "the planned March 1
#: launch").
_AHEAD = frozenset(("scheduled", "planned", "upcoming", "expected", "proposed", "slated", "forthcoming"))


def _planned_for(token: Any) -> bool:
    """True when a month is in a noun phrase of a planned event ("cancelling a scheduled Dec. 15 imposition"):
    a day of the page's year after the page's date, whatever the clause's verb (`_bare_months`)."""
    noun = token
    while noun.dep_ in ("compound", "nmod", "nummod", "npadvmod") and noun.head.i != noun.i:
        noun = noun.head
    return noun is not token and any(c.lower_ in _AHEAD for c in noun.children)


def _names_a_thing(token: Any) -> bool:
    """True when a month is part of a noun's name for an event ("Trump's July 25 call"): the clause's future
    ("will face questions about ...") is not the event's, which may be past."""
    return token.dep_ in ("compound", "nmod") and token.head.pos_ in ("NOUN", "PROPN")


def _weekday_tense(sentence: str) -> str:
    """"past" or "future" for the verbs the sentence's weekdays hang on, "" when a present verb
    leaves the direction open (read from the parse)."""
    from nonseq.text.parse import parse

    tenses = {_tense(token) for token in parse(sentence) if token.text.lower() in DAYS}
    return tenses.pop() if len(tenses) == 1 else ""


def _bare_months(sentence: str, day: date) -> str:
    """A month named without its year ("In July, NASA awarded ...", "on July 25") given the year its verb
    points to from the page's date (news style: a month without a year is of the page's year, or for what
    will happen, the next such month; a planned event's day still ahead of the page's date, the page's year:
    "a scheduled Dec. 15 imposition"). Left as it is: an earlier month than the page's naming a thing in a
    future clause ("will face questions about Trump's July 25 call"), a month after the page's with a past
    verb, a present verb ("In November, the air gets still"), "until"/"by" a month, a sentence that names a
    year up to the page's (not a target year: "by 2030"), and a month inside a quotation."""
    years = [int(y) for y in re.findall(r"\b(?:1[5-9]|20)\d{2}\b", sentence)]
    if any(y <= day.year for y in years):
        return sentence  # the page named a year the month may be of; a later one ("by 2030") only a future's
    from nonseq.text.parse import parse

    found = list(_BARE_MONTH.finditer(sentence))
    if not found:
        return sentence
    doc, quoted = parse(sentence), [m.span() for m in QUOTATION.finditer(sentence)]
    edits = []
    for m in found:
        token = next((t for t in doc if t.idx == m.start(1)), None)
        if (token is None or token.pos_ != "PROPN" or any(a <= m.start() < b for a, b in quoted)
                or re.search(r"\b(?:until|till|by|through)\s+(?:\d{1,2}\s+)?$", sentence[:m.start()], re.I)):
            continue
        month = SHORT_MONTHS.get(m[1]) or MONTHS.index(m[1]) + 1
        if m[2] and (month, int(m[2])) > (day.month, day.day) and _planned_for(token):
            year = day.year  # a planned event's day still ahead of the page's: of its year
        elif (tense := _tense(token)) == "past" and month <= day.month:
            year = day.year
        elif tense == "future" and not years and not (month < day.month and _names_a_thing(token)):
            year = day.year + (month < day.month)
        else:
            continue
        between = re.match(r" [\w$]", sentence[m.end():])  # "Dec. 15, 2019, imposition": a year set off mid-sentence
        edits.append((m.end(), (f", {year}," if between else f", {year}") if m[2] else f" {year}"))
    for at, text in reversed(edits):
        sentence = sentence[:at] + text + sentence[at:]
    return _PAST_MONTH.sub(lambda m: f"{'I' if m[0][0] == 'T' else 'i'}n {m[1]}", sentence) if edits else sentence


#: "This past May" once its year is written ("This past May 2019, ..." -> "In May 2019, ...").
_PAST_MONTH = re.compile(r"\b[Tt]his past ((?:" + "|".join(MONTHS) + r") \d{4})\b")


#: A month or a season counted from the page's ("next March's playoffs", "last summer", "this spring").
_NAMED = re.compile(r"(?<!\bthe )(?<!\bThe )\b((?i:last|next|this))\s+(" + "|".join(MONTHS)  # "this may be": no month
                    + r"|(?i:spring|summer|autumn|fall|winter))(['’]s)?\b")
_SEASONS = {"spring": (3, 5), "summer": (6, 8), "autumn": (9, 11), "fall": (9, 11)}


def _named(m: re.Match[str], day: date) -> str:
    """'next March' -> 'in March 2020', "next summer's" -> 'the summer 2020' on a November 2019 page (a winter
    spans two years: `anchor` leaves its sentence out)."""
    which, name = m[1].lower(), m[2]
    if name.lower() in _SEASONS:
        first, last = _SEASONS[name.lower()]
        name = name.lower()
    else:
        name = name.capitalize()
        first = last = MONTHS.index(name) + 1
    year = day.year + {"this": 0, "next": int(day.month >= first), "last": -int(day.month <= last)}[which]
    return f"the {name} {year}" if m[3] else f"in {name} {year}"


#: A sport's season counted from the page's ("this season", "last season"): no years can be written for it (a
#: season may span two), so the words stay and the sentence is said as of the page's date.
_SEASON = re.compile(r"\b(?:this|last|next) season\b", re.I)


def _season(sentence: str) -> bool:
    """True when the sentence, outside its quotations, counts a season from the page's ("this season")."""
    return bool(_SEASON.search(QUOTATION.sub(" ", sentence)))


def _present(sentence: str) -> list[re.Match[str]]:
    """The words that say the page's present ("currently", "now"): not in a quotation (a quote keeps its
    words), and not "Now," opening the sentence."""
    quoted = [m.span() for m in QUOTATION.finditer(sentence)]
    return [m for m in _PRESENT.finditer(sentence)
            if not any(a <= m.start() < b for a, b in quoted)
            and not (m.group().lower() == "now" and not sentence[:m.start()].strip()
                     and sentence[m.end():m.end() + 1] == ",")]


#: Words that tie a sentence to the one before it ("But ..."): they stay first when a date is put before it.
_OPENER = re.compile(r"^(?:and|but|or|so|yet|also|however|still|then|thus|instead|meanwhile|separately)\b,?\s*",
                     re.I)
_CONJUNCTIONS = frozenset(("and", "but", "or", "so", "yet"))  # "But as of ...": no comma after a conjunction


def _as_of(sentence: str, day: date) -> str:
    """The sentence said as of the page's date, its words for the present taken out ("16 currently" ->
    "As of 20 November 2019, ... 16"); a word tying it to the sentence before stays first; a sentence that
    already names a day ("ruled on 19 November 2019 that ... now") only loses the words."""
    label = result_line(sentence)  # "Blues 3, Lightning 1: " stays first
    if label:
        return label + _as_of(sentence[len(label):], day)
    found = _present(sentence)
    if not found and not _season(sentence):
        return sentence
    from nonseq.text.parse import keeps_case

    for m in reversed(found):
        sentence = sentence[:m.start()] + sentence[m.end():]
    sentence = re.sub(r"\s+([,.;:!?])", r"\1", re.sub(r"\s{2,}", " ", sentence)).strip(" ,")
    sentence = re.sub(r",\s*,", ",", sentence)
    if re.search(rf"\b\d{{1,2}} (?:{'|'.join(MONTHS)}) \d{{4}}\b", sentence):  # dated already ("ruled on 19 ...")
        return sentence[:1].upper() + sentence[1:]
    opener = _OPENER.match(sentence)
    lead, rest = (opener.group().strip(" ,"), sentence[opener.end():]) if opener else ("", sentence)
    rest = rest if lead or keeps_case(rest) else rest[:1].lower() + rest[1:]  # after a lead it was mid-sentence
    if not lead:
        return f"As of {_long(day)}, {rest}"
    return f"{lead}{'' if lead.lower() in _CONJUNCTIONS else ','} as of {_long(day)}, {rest}"


#: A day said twice, relative and written ("today (Nov. 18)", "Monday night (Nov. 18)"): the written date is said.
_DAY_AND_DATE = re.compile(
    r"\b(?:on\s+)?(?:today|tonight|yesterday|tomorrow|(?:mon|tues|wednes|thurs|fri|satur|sun)day)"
    r"(?:\s+(?:night|morning|afternoon|evening))?\s*\(((?:jan|feb|mar|apr|may|jun|jul|aug|sept?|oct|nov|dec)"
    r"[a-z]*\.?\s+\d{1,2})\)", re.I)


def _written_day(written: str, day: date) -> str:
    """"on <date>" for a month and day a page wrote beside a relative day ("Nov. 18"), in the year that puts it
    nearest the page's date (a relative day is within a week of it)."""
    name, number = written.split()
    month = next(i + 1 for i, m in enumerate(MONTHS) if m.lower().startswith(name.rstrip(".").lower()[:3]))
    candidates = []
    for year in (day.year - 1, day.year, day.year + 1):
        try:
            candidates.append(date(year, month, int(number)))
        except ValueError:
            continue
    return f"on {_long(min(candidates, key=lambda d: abs((d - day).days)))}" if candidates else f"on {written}"


def anchor(sentence: str, published: str) -> str | None:
    """The sentence with its relative time written as dates from the page's date; the sentence as it
    is when it has none; None when it has some and the page has no date, or no date can be written for it."""
    day = page_date(published)
    if day is not None and _DAY_AND_DATE.search(sentence):
        sentence = _DAY_AND_DATE.sub(lambda m: _written_day(m[1], day), sentence)
        sentence = sentence[:1].upper() + sentence[1:]
    if not has_relative_time(sentence):
        return _bare_months(sentence, day) if day else sentence
    if day is None or _VAGUE.search(sentence) or _possessive(sentence):
        return None
    future = False
    kept = _not_dates(sentence)
    weekdays = [m for m in _DAY.finditer(sentence) if m[1] and m.start(1) not in kept]
    if any(m[0].split()[0].lower() not in ("last", "next") for m in weekdays):  # which way from the page's date?
        tense = _weekday_tense(sentence)
        if not tense or (tense == "past" and _day_after(weekdays, day)):
            return None
        future = tense == "future"
    if _told_forward(sentence):
        return None
    ago = {m.span(): _ago(m, day) for m in _AGO.finditer(sentence)}
    if None in ago.values():
        return None
    # a bare month is dated before the weekday's date is written in (a year the page named decides, not
    # ours), unless a year is counted ("a year ago in July", "in July last year"): then it is that year's
    if any(m[2].lower() == "winter" for m in _NAMED.finditer(sentence)):
        return None
    counted = any(p.search(sentence) for p in (_AGO, _YEAR, _IN_MONTH))
    text = sentence if counted else _bare_months(sentence, day)
    text = _edit(_NAMED, lambda m: _named(m, day), text)
    text = _edit(_AGO, lambda m: ago[m.span()] or "", text)  # the spans hold: a count back leaves `text` as it was
    text = _edit(_SPAN, lambda m: _span(m, day), text)
    text = _edit(_IN_MONTH, lambda m: f"{m[1]} {day.year + {'this': 0, 'last': -1, 'next': 1}[m[2].lower()]}", text)
    text = _edit(_YEAR, lambda m: _year(m, day), text)
    text = _edit(_MONTH, lambda m: _month(m, day), text)
    here = _not_dates(text)  # read again: the edits above moved what follows them
    text = _edit(_DAY, lambda m: m[0] if (m.start(1) if m[1] else m.start(2)) in here else _day(m, day, future), text)
    if _YTD_OF.search(text):
        return None
    text = _edit(_YTD, lambda m: f"from 1 January to {_long(day)}", text)
    text = _as_of(text, day)
    text = re.sub(r"\b(on|in) (\[?)(on|in) ", r"\2\3 ", text)
    text = re.sub(r"\b(by|until|since|from|before|after|for|into|during|through|throughout|within|of|to) "
                  r"(\[?)(?:on|in) ", r"\1 \2", text, flags=re.I)
    return text[:1].upper() + text[1:]


def _edit(pattern: re.Pattern[str], written: Callable[[re.Match[str]], str], text: str) -> str:
    """`pattern.sub(written, text)`, a date written inside a quotation put in square brackets, the editor's mark
    for words that are not the speaker's ("“... go out and vote Republican [on 19 November 2019],” he said")."""
    def one(m: re.Match[str]) -> str:
        new = written(m)
        if new == m[0] or not new.strip() or not quoted_at(text, m.start()):
            return new
        lead, body = new[:len(new) - len(new.lstrip())], new.strip()
        return f"{lead}[{body}]{new[len(new.rstrip()):]}"

    return pattern.sub(one, text)
