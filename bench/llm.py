"""LLM speed: load time, time to first token and tokens per second of the configured backend.

With no config file this measures the offline default (in-process llama.cpp with the bundled
SmolLM2-135M-Instruct Q4_1, 2 threads). Output tokens are counted by the backend's tokenizer.
After one warm-up call, each run streams a short writing task; a JSON call with a schema is
timed too, and so is how long the HTTP backends take to say "no server" at a closed
loopback port with the default retries (a test only checks the message).

    python bench/llm.py [--config FILE] [--runs N] [--max-tokens N] [--json]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository: nonseq, devkit, bench

from devkit.web import free_port  # noqa: E402 - after the path setup
from nonseq.config import LLMSettings, load_settings  # noqa: E402
from nonseq.errors import NonseqError  # noqa: E402
from nonseq.llm import LLM, build_llm  # noqa: E402

SYSTEM = "You are a careful technology journalist. Notebook page {n}."
TASK = "Write a short paragraph explaining why local language models matter for privacy."
JSON_PROMPT = [{"role": "user", "content": "Give the capital of France and its country."}]
JSON_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "country": {"type": "string"}},
    "required": ["city", "country"],
}


def prompt(n: int) -> list[dict[str, str]]:
    """The writing task; n makes each run's prompt differ early, so no cached prefix helps."""
    return [{"role": "system", "content": SYSTEM.format(n=n)}, {"role": "user", "content": TASK}]


def timed_run(llm: LLM, max_tokens: int, n: int) -> dict[str, float]:
    """One streamed completion: seconds to first token, total seconds, tokens, tokens/s."""
    first: list[float] = []
    started = time.perf_counter()

    def on_token(_: str) -> None:
        if not first:
            first.append(time.perf_counter() - started)

    text = llm.complete(prompt(n), max_tokens=max_tokens, on_token=on_token)
    total = time.perf_counter() - started
    tokens = llm.count_tokens(text)
    ttft = first[0] if first else total
    decode = total - ttft
    return {"ttft_s": ttft, "total_s": total, "tokens": tokens,
            "tokens_per_s": tokens / total if total else 0.0,
            "decode_tokens_per_s": (tokens - 1) / decode if decode > 0 and tokens > 1 else 0.0}


def timed_json(llm: LLM) -> dict[str, Any]:
    """One schema-constrained call: seconds and whether it validated."""
    started = time.perf_counter()
    try:
        value: Any = llm.complete_json(JSON_PROMPT, JSON_SCHEMA, max_tokens=64)
        ok = True
    except NonseqError as exc:
        value, ok = str(exc), False
    return {"json_s": time.perf_counter() - started, "json_ok": ok, "json_value": value}


def timed_server_down() -> dict[str, float]:
    """Seconds each HTTP backend takes to its "no server" error at a closed loopback port."""
    port = free_port()
    seconds: dict[str, float] = {}
    for backend, url in (("ollama", f"http://127.0.0.1:{port}"), ("openai", f"http://127.0.0.1:{port}/v1")):
        llm = build_llm(LLMSettings(backend=backend, url=url, model="m"))
        started = time.perf_counter()
        with contextlib.suppress(NonseqError):
            llm.complete(prompt(0), max_tokens=8)
        seconds[backend] = round(time.perf_counter() - started, 3)
    return seconds


def bench(config: str | None, runs: int, max_tokens: int) -> dict[str, Any]:
    """Load the backend, warm it up, then time the runs."""
    settings = load_settings(config)
    started = time.perf_counter()
    llm = build_llm(settings.llm)
    description = llm.check()
    load_s = time.perf_counter() - started
    llm.complete(prompt(0), max_tokens=8)
    results = [timed_run(llm, max_tokens, n) for n in range(1, runs + 1)]

    def median(key: str) -> float:
        return statistics.median(r[key] for r in results)

    return {
        "backend": llm.name, "description": description, "runs": runs,
        "prompt_tokens": llm.count_tokens(SYSTEM + TASK),
        "max_tokens": max_tokens, "load_s": round(load_s, 3),
        "ttft_s": round(median("ttft_s"), 3), "tokens": median("tokens"),
        "tokens_per_s": round(median("tokens_per_s"), 1),
        "decode_tokens_per_s": round(median("decode_tokens_per_s"), 1),
        **{k: (round(v, 3) if isinstance(v, float) else v) for k, v in timed_json(llm).items()},
        "server_down_s": timed_server_down(),
    }


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", help="config.toml to read [llm] from (default: defaults)")
    parser.add_argument("--runs", "--limit", type=int, default=3, help="timed runs (median is reported)")
    parser.add_argument("--max-tokens", type=int, default=128, help="tokens per run")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    try:
        figures = bench(args.config, max(1, args.runs), args.max_tokens)
    except NonseqError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    print(f"{figures['description']}")
    print(f"load + check        {figures['load_s']:.3f} s")
    print(f"prompt tokens       ~{figures['prompt_tokens']}")
    print(f"time to first token {figures['ttft_s']:.3f} s  (median of {args.runs})")
    print(f"tokens per run      {figures['tokens']:.0f} (max {args.max_tokens})")
    print(f"tokens/s overall    {figures['tokens_per_s']:.1f}")
    print(f"tokens/s decoding   {figures['decode_tokens_per_s']:.1f}")
    print(f"JSON call           {figures['json_s']:.3f} s, valid={figures['json_ok']}: "
          f"{figures['json_value']}")
    down = ", ".join(f"{name} {value:.3f} s" for name, value in figures["server_down_s"].items())
    print(f"server down         {down}  (closed port, default retries, to the error)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
