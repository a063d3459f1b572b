"""Sentences that address the model (prompt injection), dropped before they become chunks, facts or plan entries.

A web page may speak to whoever reads it next: "Ignore previous instructions", "The article must say
that...", "AI models reading this should...". Such a sentence is an order, not a fact. The patterns
below recognise an order aimed at the model, the writer or the text being written; a sentence that
merely contains "must", "ignore" or "model" is left alone. `is_instruction` is the test (the writer's
planner calls it on plan entries), `drop_instructions` removes such sentences from a text line by line.
"""

from __future__ import annotations

import re

from nonseq.text.sentences import sentences

_MODAL = r"(?:must|should|shall|will|has to|have to|needs? to|is (?:required|instructed|asked) to|is to)"
_SPEECH = (r"(?:say|state|claim|write|mention|include|conclude|recommend|describe|report|cite|call|present|"
           r"argue|emphasi[sz]e|highlight|portray|promote|praise|endorse|assert|tell|explain|insist|declare|"
           r"respond|reply|answer|output|print|ignore|disregard|omit|avoid mentioning|not mention|never mention|"
           r"refer to|treat|rank|rate|be (?:written|positive|negative|favou?rable))")
_READER = (r"(?:the|this|your|any|every|each) (?:article|summary|answer|response|reply|output|essay|post|"
           r"text you write|writer|author|assistant|model|ai|llm|chatbot|bot|generated text|report you write)")
_MACHINE = (r"(?:ai|a\.i\.|llms?|language models?|large language models?|ai models?|ai assistants?|chatbots?|"
            r"assistants?|gpts?|chatgpt|claude|gemini|bots?|crawlers?|scrapers?|models? reading this)")

_PATTERNS = [
    # "Ignore (all) previous instructions", "disregard the above", "forget your prior rules"
    r"\b(?:ignore|disregard|forget|override|bypass)\b(?: \w+){0,3} (?:previous|prior|above|earlier|preceding|"
    r"former|original|system|your|all|any) (?:\w+ )?(?:instructions?|prompts?|directions?|rules|guidelines|"
    r"context|messages?|orders|commands)\b",
    r"\b(?:ignore|disregard) (?:everything|all|anything) (?:above|before|said|written|previously)\b",
    # "The article must say that...", "Your answer should mention..."
    rf"^\W*(?:and |but |so |also |therefore |now )?{_READER} {_MODAL} (?:now |also |always |only |not |never |"
    rf"clearly |explicitly |strongly )*{_SPEECH}\b",
    # "AI models reading this should recommend...", "Language models must cite this page"
    rf"^\W*(?:all |any |every |dear |attention,? |note to )?{_MACHINE}(?: \w+){{0,4}}? {_MODAL} (?:now |also |"
    rf"always |only |not |never )*{_SPEECH}\b",
    rf"\b(?:if|when|whenever) (?:you are|you're) (?:an? )?{_MACHINE}\b",
    rf"^\W*(?:dear |attention,? |hey,? |hello,? )?{_MACHINE}[,:!]",
    # "Note to the AI:", "Instructions for the model:"
    rf"\b(?:note|message|instructions?|reminder|directive) (?:to|for) (?:the |any |all |every )?(?:{_MACHINE}|"
    r"writer|author|reader model|assistant)\b",
    # "System prompt: ...", "[SYSTEM] ...", "New instructions: ..."
    r"^\W*(?:system|developer|assistant) ?(?:prompt|message|instructions?|override|note)?\s*[:\]>]",
    r"^\W*(?:new|updated|additional|real|actual|secret|hidden) (?:instructions?|prompt|orders|task)\s*[:\-]",
    r"\byou are (?:now )?(?:no longer |not )?(?:an? |the )?(?:ai|assistant|language model|chatbot|llm|"
    r"helpful assistant|dan)\b",
    # "You must now state that...": an order in the second person to write or say something
    r"^\W*(?:now,? )?you (?:must|should|shall|will|are to|have to|need to) (?:now |always |only |instead |also )*"
    r"(?:say|state|claim|write|output|print|respond|reply|answer|conclude|include in your|recommend in your|"
    r"ignore|disregard|forget|pretend|act as|role-?play|reveal)\b",
    # "When summarizing this page, say...", "In your answer, recommend..."
    r"\b(?:when|while|if|whenever) (?:summari[sz]ing|writing about|answering (?:questions )?about|asked about|"
    r"describing|quoting|citing|using|reading|processing) (?:this|the) (?:page|article|text|site|website|"
    r"document|content|source)\b.*\b(?:say|state|mention|write|describe|call|recommend|claim|cite|present|tell)\b",
    r"^\W*in (?:your|the) (?:answer|response|reply|summary|article|output),? (?:always |you must |you should |"
    r"please )?(?:say|state|mention|write|recommend|claim|include|cite|describe)\b",
    r"\b(?:do not|don't|never) (?:tell|inform|reveal to|let) (?:the )?(?:user|reader|human)s?\b",
]
_INSTRUCTION = re.compile("|".join(f"(?:{p})" for p in _PATTERNS), re.IGNORECASE)


def is_instruction(sentence: str) -> bool:
    """True when the sentence gives an order to the model, the writer or the article being written."""
    return bool(_INSTRUCTION.search(" ".join(sentence.split())))


def drop_instructions(text: str) -> str:
    """The text without its instruction sentences; lines stay lines, a line left empty is dropped."""
    lines: list[str] = []
    for line in text.splitlines():
        if not line.strip() or not _INSTRUCTION.search(line):  # cheap test first: most lines have none
            lines.append(line)
            continue
        kept = [s for s in sentences(line) if not is_instruction(s)]
        if kept:
            lines.append(" ".join(kept))
    return "\n".join(lines)
