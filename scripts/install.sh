#!/usr/bin/env bash
# Installs everything the app and the tests need. Idempotent: a second run is quick.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install --quiet --disable-pip-version-check -r requirements.txt
# Browser tests drive Debian's chromium (Playwright's own browser download is not used).
if [ "${1:-}" = "--with-browser" ] && ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ]; then
    apt-get update -qq && apt-get install -y -qq chromium >/dev/null
  else
    echo "note: chromium not found and not root; browser tests will be skipped" >&2
  fi
fi
