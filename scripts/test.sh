#!/usr/bin/env bash
# Installs everything (Debian's chromium and HAProxy included, as root) and runs lint + the whole test suite.
# Under CI=true a browser test that lacks chromium or HAProxy fails instead of skipping.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh --tests --system-packages
python3 -m ruff check .
set +e
# --dist loadgroup: a module's costly fixture (xdist_group) starts once; --durations: CI prints where time went
python3 -m pytest -q -n 2 --dist loadgroup --durations=30 "$@"
rc=$?
set -e
# pytest exit 5 = no tests collected: that is a failure here, never a green run.
if [ "$rc" = "5" ]; then echo "no tests were collected" >&2; exit 1; fi
exit "$rc"
