"""Relative time in a source sentence ("earlier this year", "on Tuesday", "last week"): anchored to the
page's date, or the sentence is left out.

An article is read long after its sources were written: "this year" means the year the page was
dated. `anchor(sentence, published)` writes the year (or the date) in, from the page's
publication date; when the page has no date, or the phrase cannot be anchored ("recently" is
left alone: it claims no date), it returns None and the sentence is not said. A weekday takes its
direction from its verb: a past verb ("said Tuesday", "posted Tuesday") the last such day, a future
one ("will launch Friday") the next; a present one ("launch day is Tuesday", "reports Tuesday")
could be either, so that sentence is not said.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December")
_YEAR = re.compile(r"\b(?:(earlier|later|early|late)\s+)?(this|last|next) year(['’]s)?\b", re.I)
_MONTH = re.compile(r"\b(?:(earlier|later|early|late)\s+)?(this|last|next) month(['’]s)?\b", re.I)
_DAY = re.compile(
    r"\b(?:(?:on|last|this|next|earlier on|late on|early on) )?"
    r"(?<!Super )(?<!Black )(?<!Good )(?<!Cyber )(?<!Ash )(?<!Easter )(?<!Holy )(?<!Giving )"
    r"(" + "|".join(DAYS) + r")(?: (?:morning|afternoon|evening|night))?\b(?!['’]s)"
    r"|\b(yesterday|today|tonight|tomorrow|this (?:morning|afternoon|evening|week|weekend)|"
    r"last (?:night|week|weekend)|next week|earlier (?:this|in the) week|later this week)\b(?!['’]s)",
    re.I)
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


def _year(m: re.Match[str], day: date) -> str:
    """'earlier this year' -> 'earlier in 2019'; "this year's" -> "2019's"."""
    shift = {"this": 0, "last": -1, "next": 1}[m[2].lower()]
    year = str(day.year + shift)
    if m[3]:
        return f"{m[1] + ' in ' if m[1] else ''}{year}{m[3]}"
    return f"{m[1] + ' ' if m[1] else ''}in {year}"


def _month(m: re.Match[str], day: date) -> str:
    """'last month' -> 'in October 2019'."""
    shift = {"this": 0, "last": -1, "next": 1}[m[2].lower()]
    index = day.year * 12 + day.month - 1 + shift
    name = f"{MONTHS[index % 12]} {index // 12}"
    return f"{m[1] + ' in ' if m[1] else 'in '}{name}{m[3] or ''}"


def _day(m: re.Match[str], day: date, future: bool) -> str:
    """A weekday or 'yesterday' as a date: the last such day on or before the page's (the next, for
    what will happen); weeks as 'in the week of <date>'."""
    if m[1]:
        target = DAYS.index(m[1].lower())
        if future:
            when = day + timedelta(days=(target - day.weekday()) % 7 or 7)
        else:
            when = day - timedelta(days=(day.weekday() - target) % 7)
        return f"on {_long(when)}"
    word = m[2].lower()
    offsets = {"yesterday": -1, "today": 0, "tonight": 0, "tomorrow": 1, "last night": -1}
    if word.startswith("this ") and word.split()[1] in ("morning", "afternoon", "evening"):
        return f"on {_long(day)}"
    if word in offsets:
        return f"on {_long(day + timedelta(days=offsets[word]))}"
    if "last week" in word or "last weekend" in word:
        return f"in the week before {_long(day)}"
    if "next week" in word:
        return f"in the week after {_long(day)}"
    return f"in the week of {_long(day)}"


def relative_spans(sentence: str) -> list[tuple[int, int]]:
    """Where the sentence's relative time phrases are ("this year", "on Tuesday"), as character spans."""
    return [m.span() for pattern in (_YEAR, _MONTH, _DAY) for m in pattern.finditer(sentence)]


def has_relative_time(sentence: str) -> bool:
    """True when the sentence dates something relative to when it was written."""
    return bool(_YEAR.search(sentence) or _MONTH.search(sentence) or _DAY.search(sentence))


def _weekday_tense(sentence: str) -> str:
    """"past" or "future" for the verbs the sentence's weekdays hang on, "" when a present verb
    leaves the direction open (read from the parse)."""
    from nonseq.text.parse import parse

    tenses = set()
    for token in parse(sentence):
        if token.text.lower() not in DAYS:
            continue
        verb = token
        while verb.head is not verb and verb.pos_ not in ("VERB", "AUX"):
            verb = verb.head
        helpers = {c.lower_ for c in verb.children if c.dep_ in ("aux", "auxpass")}
        if helpers & {"will", "shall", "'ll", "wo"}:
            tenses.add("future")
        elif (verb.tag_ == "VBD" or helpers & {"was", "were", "had", "has", "have", "did"}
              or (verb.tag_ == "VBN" and not helpers)):  # a participle on its own: "a letter posted Tuesday"
            tenses.add("past")
        else:
            tenses.add("")
    return tenses.pop() if len(tenses) == 1 else ""


def anchor(sentence: str, published: str) -> str | None:
    """The sentence with its relative time written as dates from the page's date; the sentence as it
    is when it has none; None when it has some and the page has no date."""
    if not has_relative_time(sentence):
        return sentence
    day = page_date(published)
    if day is None:
        return None
    future = False
    if any(m[1] for m in _DAY.finditer(sentence)):  # a weekday: which way from the page's date?
        tense = _weekday_tense(sentence)
        if not tense:
            return None
        future = tense == "future"
    text = _IN_MONTH.sub(lambda m: f"{m[1]} {day.year + {'this': 0, 'last': -1, 'next': 1}[m[2].lower()]}", sentence)
    text = _YEAR.sub(lambda m: _year(m, day), text)
    text = _MONTH.sub(lambda m: _month(m, day), text)
    text = _DAY.sub(lambda m: _day(m, day, future), text)
    text = re.sub(r"\b(on|in) (on|in) ", r"\2 ", text)
    text = re.sub(r"\b(by|until|since|from|before|after) (?:on|in) ", r"\1 ", text, flags=re.I)
    return text[:1].upper() + text[1:]
