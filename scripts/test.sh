#!/usr/bin/env bash
# The whole test suite, from a fresh clone: installs what the tests need, then runs
# type check, lint, build and every test. README's test command and CI both run this.
set -euo pipefail
cd "$(dirname "$0")/.."

npm ci --no-audit --no-fund --loglevel=error
# shellcheck source=scripts/ensure-postgres.sh
source scripts/ensure-postgres.sh
# shellcheck source=scripts/ensure-chromium.sh
source scripts/ensure-chromium.sh
# shellcheck source=scripts/ensure-conformance.sh
source scripts/ensure-conformance.sh
npm test
