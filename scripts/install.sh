#!/usr/bin/env bash
# Installs everything the app and the tests need. Idempotent: a second run is quick.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install --quiet --disable-pip-version-check -r requirements.txt
# Browser tests drive Debian's chromium (Playwright's own browser download is not used).
# The emoji font makes page icons render in headless screenshots as they do in a desktop browser.
if [ "${1:-}" = "--with-browser" ] && { ! command -v chromium >/dev/null 2>&1 || \
     [ ! -e /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf ]; }; then
  if [ "$(id -u)" = "0" ]; then
    apt-get update -qq && apt-get install -y -qq chromium fonts-noto-color-emoji >/dev/null
  else
    echo "note: chromium not found and not root; browser tests will be skipped" >&2
  fi
fi
