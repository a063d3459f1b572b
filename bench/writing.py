"""Writing bench: the planned writer on bench/writing_topics.json's topics, written from real pages.

28 topics over the 181 real pages of ../shared/data/web/scrapinghub-aeb, split tune/test (14/14)
at random before any writer output was seen; only the test split's figures are to be reported.
For each topic: a temporary workspace; its pages served on 127.0.0.N (one address per page, so
the gate sees distinct domains) and researched through the project's fetcher, extractor, chunker
and index; the project's retrieval and gate; then the writer (plan -> restate -> verify ->
repair/quote -> grounding check -> draft gate, `nonseq.writing.writer.write_planned`). Printed per
topic and in total: stage, sentences, words, supported share (the project's grounding check of
the final text), sentences holding a number or name absent from their cited sources, junk lines,
repeated sentences, sentences that lean on text the article does not hold (`leaning`: the rule of
`compose.standing` read back from the body; `leaning_excused`: those it lets stand because a
sentence of the same source comes before them, for a reader to check), shares generated /
repaired / quoted (and dropped units), the share in the model's own words (generated or repaired,
less than 90% the same word sequence as the source), and seconds (wall and CPU of the writing step; research apart).

    python bench/writing.py [--split tune|test|all] [--topics a,b] [--json] [--out DIR] [--llm echo]
                            [--labels FILE]

Labels (docs/writing.md, "The blind reading"): `bench/writing_labels.jsonl` holds one line per read
sentence, `{"topic", "sentence", "label"}`; each written sentence is matched to a label by topic
and words, and `labels.counts` (one key per label, plus `unlabelled`) and `labels.keep_share` are
reported. `--out DIR` also writes `DIR/reading.jsonl`: every sentence with its cited source
sentences, their pages' dates and the sentence before it, without how it was made (what the reader
sees).

Settings are the defaults; NONSEQ_<SECTION>__<KEY> variables change them (NONSEQ_WRITING__MIN_SUPPORT=0.5
writes with the old cut); no config file is read.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the repository: nonseq, devkit, bench
JUNK = ("instruction", "label", "byline", "caption", "text about the page", "heading", "page furniture",
        "holds a URL")
LABELS = ("keep", "false", "garbled", "fragment", "leans", "off_topic", "unattributed", "furniture", "repeat")
LABELS_FILE = HERE / "writing_labels.jsonl"
_MARKERS = re.compile(r"\s*\[(\d+)\]")


def load_topics(split: str, only: str = "") -> list[dict[str, Any]]:
    """The topics of a split (tune, test or all), optionally only some keys."""
    topics = json.loads((HERE / "writing_topics.json").read_text(encoding="utf-8"))["topics"]
    wanted = {k for k in only.split(",") if k}
    return [t for t in topics if (split == "all" or t["split"] == split)
            and (not wanted or t["key"] in wanted)]


def research(ws: Any, spec: dict[str, Any]) -> tuple[Any, Any, float]:
    """Queue the topic, research its pages from the local web, retrieve; (topic, pack, seconds)."""
    from bench._localweb import LocalPages
    from nonseq import queue
    from nonseq.pipeline.research import run_research
    from nonseq.pipeline.topics import add_topic
    from nonseq.retrieval.pipeline import retrieve

    started = time.perf_counter()
    topic = add_topic(ws, spec["title"], spec["category"], focus=spec["focus"], schema=spec["schema"])
    with LocalPages(spec["pages"]) as web:
        run_research(ws, topic.id, urls=list(web.urls.values()))
    topic = queue.get_topic(ws.db, topic.id)
    return topic, retrieve(ws, topic), time.perf_counter() - started


def article_sentences(written: Any) -> list[tuple[str, list[int]]]:
    """The final text's sentences (the writer's splitter, headings aside) with their markers."""
    from nonseq.text.sentences import split

    out = []
    for line in written.body.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            text = re.sub(r"^\s*(?:[-*]|\d+\.)\s+", "", line)
            for s in split(text):
                out.append((_MARKERS.sub("", s).strip(), [int(n) for n in _MARKERS.findall(s)]))
    return out


def measure(written: Any) -> dict[str, Any]:
    """The figures of one written article."""
    from nonseq.text.prose import reject_reason
    from nonseq.text.voice import unframed
    from nonseq.text.words import tokens
    from nonseq.verify.rules import absent
    from nonseq.writing.compose import review

    facts: dict[int, list[str]] = {}
    for n, text, _url, _title in written.plan.facts():
        facts.setdefault(n, []).append(text)
    sents = article_sentences(written)
    absent_n = [s for s, marks in sents if absent(unframed(s), [t for m in marks for t in facts.get(m, [])])]
    junk = [s for s, _m in sents if reject_reason(s, allow_second_person=True).startswith(JUNK)]
    junk += written.quality.echoed
    keys = [tuple(tokens(s)) for s, _m in sents]
    repeated = len(keys) - len(set(keys)) + len(written.quality.repeated)
    made = written.made
    kept = sum(made.values()) or 1
    own = sum(r.made == "restated" and r.copy_ratio < 0.9 for r in written.records)
    body = "\n".join(line for line in written.body.splitlines() if not line.lstrip().startswith("#"))
    rows = review(written.records)  # what `nonseq articles review` shows: the words the writer wrote in
    return {"stage": written.status, "reasons": written.quality.reasons,
            "sentences": written.grounding.sentences,
            "words": len(re.findall(r"[^\W_]+", _MARKERS.sub(" ", body))),
            "supported_share": round(written.grounding.supported_share, 3),
            "absent": len(absent_n), "absent_sentences": absent_n, "junk": len(junk), "junk_lines": junk,
            "repeated": repeated, **made, "dropped": written.dropped,
            "sources_cited": len({m for _s, marks in sents for m in marks}),
            "restated_share": round(made["restated"] / kept, 3),
            "verbatim_share": round(made["verbatim"] / kept, 3),
            "quoted_share": round(made["quoted"] / kept, 3), "own_words_share": round(own / kept, 3),
            "article_sentences": [s for s, _m in sents],
            "review_items": len(rows), "written_in_items": sum(bool(r["written_in"]) for r in rows),
            "written_in_words": sum(len(run.split()) for r in rows for run in r["written_in"]),
            "review_words": sum(len(r["sentence"].split()) for r in rows),
            "units": len(written.records), "plan_rejected": written.plan.reasons(),
            "llm_calls": sum(a.kind != "quote" for r in written.records for a in r.attempts),
            "seconds": round(written.seconds, 1), "cpu_seconds": round(written.cpu_seconds, 1)}


class EchoLLM:
    """A stand-in model that answers with the last user message's text after its instruction."""

    name = "echo"

    def complete(self, messages: list[dict[str, str]], **kw: Any) -> str:
        """The unit text back (plumbing checks without a model)."""
        from devkit.llm_servers import echo_unit

        text = echo_unit(self.name, list(messages))
        if kw.get("on_token"):
            kw["on_token"](text)
        return text


def run_topic(spec: dict[str, Any], args: argparse.Namespace, root: Path) -> dict[str, Any]:
    """One topic in its own temporary workspace."""
    from nonseq.config import settings_from
    from nonseq.errors import ConfigError
    from nonseq.llm import build_llm
    from nonseq.pipeline.gate import evaluate
    from nonseq.workspace import Workspace
    from nonseq.writing.writer import write_planned

    try:  # the defaults, with NONSEQ_<SECTION>__<KEY> variables applied (no config file is read)
        settings = settings_from({}, "bench defaults")
    except ConfigError as exc:
        raise SystemExit(f"error: {exc}") from None
    settings.base_dir = root / spec["key"]
    settings.gate.uber_passes = 0
    settings.fetch.allow_hosts = ["127.0.0.0/8"]
    settings.llm.seed = args.seed
    with Workspace(settings) as ws:
        topic, pack, research_s = research(ws, spec)
        verdict = evaluate(pack, settings.gate)
        llm = EchoLLM() if args.llm == "echo" else build_llm(settings.llm)
        written = write_planned(ws, pack, llm)  # type: ignore[arg-type]
        row = {"topic": spec["key"], "split": spec["split"], "schema": spec["schema"],
               "pages": len(spec["pages"]), "gate": verdict.status, "research_seconds": round(research_s, 1),
               **measure(written)}
        row["relevant_sources"] = relevant_sources(written)
        row["leaning_sentences"], row["leaning_excused_sentences"] = leaning(written)
        row["leaning"], row["leaning_excused"] = len(row["leaning_sentences"]), len(row["leaning_excused_sentences"])
        if args.out:
            out = Path(args.out)
            out.mkdir(parents=True, exist_ok=True)
            (out / f"{spec['key']}.md").write_text(written.body, encoding="utf-8")
            (out / f"{spec['key']}.prompt.md").write_text(written.prompt_file(llm.name), encoding="utf-8")
            (out / f"{spec['key']}.json").write_text(json.dumps(
                {"row": row, "plan": written.plan.to_dict(),
                 "records": [r.to_dict() for r in written.records]}, indent=1), encoding="utf-8")
            with (out / "reading.jsonl").open("a", encoding="utf-8") as fh:
                for item in reading(spec, written):
                    fh.write(json.dumps(item, ensure_ascii=False) + "\n")
    return row


def relevant_sources(written: Any) -> int:
    """How many sources hold a usable sentence (planned, or left out only because the sections were full)."""
    return len({s.url for s in written.plan.sentences if not s.reason or s.reason.startswith("not chosen")})


def reading(spec: dict[str, Any], written: Any) -> list[dict[str, Any]]:
    """What the blind reader sees of each sentence: the topic, its section, the sentence before it in
    its paragraph, its cited source sentences (the page's words), each one's page date (what the
    page's relative time is read from) and the name its page goes by (what a frame "According to ..." names:
    the site's name, else the page's title); not how it was made."""
    from nonseq.text.sentences import split
    from nonseq.writing.compose import source_name
    from nonseq.writing.plan import Unit

    by_text, dates, pages = {}, {}, {}
    for r in written.records:
        for s in split(r.text) or [r.text]:
            by_text[key(s)] = r.evidence
            dates[key(s)] = [(written.plan.chunks[x.chunk].chunk.published or "")[:10] for x in r.unit.sentences]
            dates[key(s)] += dates[key(s)][:1] * len(r.named_from)  # a name is read from the same page
            pages[key(s)] = [source_name(Unit([x])) for x in r.unit.sentences]
            pages[key(s)] += pages[key(s)][:1] * len(r.named_from)
    out, prev, section = [], "", ""
    for line in written.body.splitlines():
        if line.lstrip().startswith("#"):
            section, prev = line.lstrip("# ").strip(), ""
            continue
        if not line.strip():
            prev = "" if section else prev
            continue
        text = re.sub(r"^\s*(?:[-*]|\d+\.)\s+", "", line)
        for s in split(text):
            clean = _MARKERS.sub("", s).strip()
            out.append({"topic": spec["key"], "title": spec["title"], "focus": spec["focus"],
                        "section": section, "before": prev, "sentence": clean,
                        "sources": by_text.get(key(clean), []), "page_dates": dates.get(key(clean), []),
                        "pages": pages.get(key(clean), [])})
            prev = clean
    return out


def leaning(written: Any) -> tuple[list[str], list[str]]:
    """The article's sentences that lean on text it does not hold (an automated reader check, the rule of
    `compose.standing` read back from the body): a leaning reason (`text.leaning`), and no sentence
    of the same source before it in its paragraph; a surname whose full name comes nowhere before.
    Second: the sentences with a leaning reason that follow a sentence of their source."""
    from nonseq.text.leaning import leaning_reason
    from nonseq.text.sentences import split
    from nonseq.text.voice import unframed
    from nonseq.writing.compose import page_sentences

    pages = written.pages or page_sentences(written.plan)
    url = {s.n: s.url for s in written.plan.sources}
    out: list[str] = []
    excused: list[str] = []
    said = [written.plan.title]
    for line in written.body.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        before: set[int] = set()
        for s in split(re.sub(r"^\s*(?:[-*]|\d+\.)\s+", "", line)):
            clean, marks = _MARKERS.sub("", s).strip(), {int(n) for n in _MARKERS.findall(s)}
            page = [t for n in marks for t in pages.get(url.get(n, ""), [])]
            why = leaning_reason(unframed(clean), page, said)  # a frame's page title is the article's
            if why:
                (out if why.startswith("surname") or not marks & before else excused).append(f"{clean} ({why})")
            said.append(clean)
            before = marks
    return out, excused


def key(sentence: str) -> str:
    """A sentence's words, for matching labels to sentences."""
    return " ".join(re.findall(r"[^\W_]+", _MARKERS.sub(" ", sentence).lower()))


def load_labels(path: Path) -> dict[tuple[str, str], str]:
    """(topic, sentence words) -> label, from a JSON-lines labels file (none when it is missing)."""
    if not path.is_file():
        return {}
    out = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        item = json.loads(line)
        if item.get("label") not in LABELS:
            raise SystemExit(f"error: {path}:{n}: label {item.get('label')!r} is not one of {', '.join(LABELS)}")
        out[(item["topic"], key(item["sentence"]))] = item["label"]
    return out


def label_counts(rows: list[dict[str, Any]], labels: dict[tuple[str, str], str]) -> dict[str, Any]:
    """Per label, how many written sentences carry it (plus `unlabelled`), and the keep share."""
    counts = dict.fromkeys((*LABELS, "unlabelled"), 0)
    for r in rows:
        for s in r["article_sentences"]:
            counts[labels.get((r["topic"], key(s)), "unlabelled")] += 1
    total = sum(counts.values())
    return {"counts": counts, "sentences": total, "keep_share": round(counts["keep"] / total, 4) if total else 0.0,
            "false": counts["false"]}


def totals(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Sums over the topics and the goal checks of issues 20 and 47."""
    n = sum(r["sentences"] for r in rows)
    kept = sum(r["restated"] + r["verbatim"] + r["quoted"] for r in rows) or 1
    unsupported = sum(round(r["sentences"] * (1 - r["supported_share"])) for r in rows)
    t = {"topics": len(rows), "written": sum(r["stage"] == "written" for r in rows), "sentences": n,
         "words": sum(r["words"] for r in rows),
         "supported_share": round(1 - unsupported / n, 3) if n else 0.0,
         "absent": sum(r["absent"] for r in rows), "junk": sum(r["junk"] for r in rows),
         "repeated": sum(r["repeated"] for r in rows), "leaning": sum(r["leaning"] for r in rows),
         "leaning_excused": sum(r["leaning_excused"] for r in rows),
         "min_sentences": min((r["sentences"] for r in rows), default=0),
         **{k: sum(r[k] for r in rows) for k in ("restated", "verbatim", "quoted", "dropped", "review_items",
                                                 "written_in_items", "written_in_words", "review_words")},
         "own_words_share": round(sum(r["own_words_share"] * (r["restated"] + r["verbatim"] + r["quoted"])
                                      for r in rows) / kept, 3),
         "min_sources_cited": min((r["sources_cited"] for r in rows), default=0),
         "seconds": round(sum(r["seconds"] for r in rows), 1),
         "max_seconds": max((r["seconds"] for r in rows), default=0.0),
         "cpu_seconds": round(sum(r["cpu_seconds"] for r in rows), 1)}
    for k in ("restated", "verbatim", "quoted"):
        t[f"{k}_share"] = round(t[k] / kept, 3)
    t["written_in_word_share"] = round(t["written_in_words"] / (t["review_words"] or 1), 3)
    t["goal"] = {"all_written": t["written"] == t["topics"], "no_absent": t["absent"] == 0,
                 "no_junk_or_repeats": t["junk"] + t["repeated"] == 0,
                 "min_8_sentences": t["min_sentences"] >= 8,
                 "quoted_at_most_35": t["quoted_share"] <= 0.35,
                 "three_sources": all(r["sources_cited"] >= min(3, r["relevant_sources"]) for r in rows)}
    return t


def line(r: dict[str, Any]) -> str:
    """One row as text."""
    return (f"{r['stage']:<7} sent {r['sentences']:>3} words {r['words']:>4} supp {r['supported_share']:>5.0%} "
            f"absent {r['absent']} junk {r['junk']} rep {r['repeated']} lean {r['leaning']}/{r['leaning_excused']}  "
            f"restated {r['restated_share']:>4.0%} "
            f"verbatim {r['verbatim_share']:>4.0%} quo {r['quoted_share']:>4.0%} drop {r['dropped']:>2} "
            f"src {r['sources_cited']}/{r['relevant_sources']}  "
            f"own {r['own_words_share']:>4.0%}  {r['seconds']:>5.1f} s (cpu {r['cpu_seconds']:.0f})")


def main(argv: list[str] | None = None) -> int:
    """Run the bench and print (or dump) the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", choices=("tune", "test", "all"), default="tune")
    ap.add_argument("--topics", default="", help="only these topic keys (comma-separated)")
    ap.add_argument("--seed", type=int, default=1, help="[llm] seed")
    ap.add_argument("--out", default="", help="keep each article, prompt file and records here")
    ap.add_argument("--llm", choices=("config", "echo"), default="config",
                    help="echo: a stand-in that repeats the source (plumbing checks)")
    ap.add_argument("--limit", type=int, default=0, help="only the first N topics of the split (a smoke run)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--labels", default=str(LABELS_FILE), help="the blind reading's labels (JSON lines)")
    args = ap.parse_args(argv)
    labels = load_labels(Path(args.labels))
    if args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        (Path(args.out) / "reading.jsonl").write_text("", encoding="utf-8")
    rows = []
    with tempfile.TemporaryDirectory(prefix="writer-bench-") as tmp:
        for spec in load_topics(args.split, args.topics)[:args.limit or None]:
            rows.append(run_topic(spec, args, Path(tmp)))
            print(f"  {rows[-1]['topic']:<18} {line(rows[-1])}", file=sys.stderr, flush=True)
    result = {"split": args.split, "topics": rows, "total": totals(rows), "labels": label_counts(rows, labels)}
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    for r in rows:
        print(f"{r['topic']:<18} {line(r)}")
    t = result["total"]
    print(f"TOTAL {t['written']}/{t['topics']} written  sentences {t['sentences']} (min {t['min_sentences']})  "
          f"words {t['words']}  checks pass {t['supported_share']:.1%} (an estimate)  absent {t['absent']}  "
          f"junk {t['junk']}  repeated {t['repeated']}  restated {t['restated_share']:.0%} "
          f"verbatim {t['verbatim_share']:.0%} quoted {t['quoted_share']:.0%} dropped {t['dropped']}  "
          f"own words {t['own_words_share']:.0%}  {t['seconds']} s (max {t['max_seconds']} s/article)")
    print(f"review: {t['written_in_items']} of {t['review_items']} items with words written in, "
          f"{t['written_in_words']} of {t['review_words']} words ({t['written_in_word_share']:.1%})")
    lab = result["labels"]
    print("labels: " + ", ".join(f"{k} {v}" for k, v in lab["counts"].items())
          + f"  keep share {lab['keep_share']:.1%} of {lab['sentences']} (goal >= 95% keep, 0 false)")
    print("goal: " + ", ".join(f"{k} {'ok' if v else 'NOT met'}" for k, v in t["goal"].items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
