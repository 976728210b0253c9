#!/usr/bin/env bash
# The extension's part of the test gate (scripts/test calls it): type check, unit tests, the packaged
# .vsix, and the end-to-end test in code-server + headless Chromium. Installs what it needs on a fresh
# machine (e2e/toolchain.sh; cached under ~/.cache/prscope-e2e). PRSCOPE_E2E=0 skips the end-to-end test.
set -euo pipefail
client=$(cd "$(dirname "$0")/.." && pwd)
repo=$(cd "$client/.." && pwd)
cd "$client"

step() { echo "== editor-client: $*" >&2; }

if [ "${PRSCOPE_E2E:-1}" = 0 ]; then
  eval "$(bash e2e/toolchain.sh --node-only)"
else
  eval "$(bash e2e/toolchain.sh)"
fi
export PATH="$NODE24_HOME/bin:$PATH"

lock_hash=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ "$(cat node_modules/.prscope-lock 2>/dev/null)" != "$lock_hash" ]; then
  step "npm ci"
  npm ci --no-audit --no-fund --loglevel=error
  echo "$lock_hash" > node_modules/.prscope-lock
fi

step "type check"
npm run --silent typecheck
step "unit tests"
npx vitest run
step "package"
npm run --silent package

step "lint the fake model launcher"
"$repo/.venv/bin/ruff" check e2e/fake_model.py
"$repo/.venv/bin/ruff" format --check e2e/fake_model.py
(cd "$repo" && .venv/bin/mypy --strict editor-client/e2e/fake_model.py)

if [ "${PRSCOPE_E2E:-1}" = 0 ]; then
  step "end-to-end test skipped (PRSCOPE_E2E=0)"
  exit 0
fi
step "end-to-end test in code-server"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/prscope-e2e.XXXXXX")
rm -rf test-output/e2e
export CODE_SERVER CHROMIUM NODE24_HOME
export PRSCOPE_PYTHON="$repo/.venv/bin/python" PRSCOPE_VSIX="$client/dist/prscope.vsix"
export PRSCOPE_E2E_SCRATCH="$scratch" PRSCOPE_E2E_OUTPUT="$client/test-output/e2e"
started=$(date +%s)
if npx vitest run --config vitest.e2e.config.mts; then
  rm -rf "$scratch"
  step "end-to-end test passed in $(( $(date +%s) - started )) s; screenshots in test-output/e2e/"
else
  step "end-to-end test FAILED after $(( $(date +%s) - started )) s; screenshots and logs in test-output/e2e/, scratch in $scratch"
  exit 1
fi
