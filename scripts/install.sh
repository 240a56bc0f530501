#!/usr/bin/env bash
# Installs what the app needs; with --tests also what only the tests use (chromium, an emoji font,
# fla-core oracles). Idempotent: a second run is quick.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install --quiet --disable-pip-version-check -r requirements.txt
# flash-linear-attention's plain-PyTorch references are oracles in the kernel tests only (never imported at run
# time); --no-deps keeps its own torch/triton requirements from replacing the pinned ones. Ray runs paper-lab grids
# on a local instance and on a two-node cluster in the tests (the app needs it only when LCSM_RAY_ADDRESS is set);
# its `client` extra (grpcio) is what a ray://host:10001 address needs.
if [ "${1:-}" = "--tests" ]; then
  python3 -m pip install --quiet --disable-pip-version-check --no-deps fla-core==0.6.0 einops==0.8.2
  python3 -m pip install --quiet --disable-pip-version-check "ray[client]==2.60.0"
  # axe-core (bundled) for the accessibility checks of the browser tests
  python3 -m pip install --quiet --disable-pip-version-check axe-playwright-python==0.1.8
fi
# Several web processes (LCSM_WEB_PROCESSES > 1, scripts/web_tier.py) run behind Debian's HAProxy; the browser
# test of the web tier needs it too.
if ! command -v haproxy >/dev/null 2>&1 && [ ! -x /usr/sbin/haproxy ]; then
  if [ "$(id -u)" = "0" ]; then
    apt-get update -qq && apt-get install -y -qq haproxy >/dev/null
  else
    echo "note: haproxy not found and not root: only one web process can run (LCSM_WEB_PROCESSES=1)," \
         "and the web-tier browser tests will be skipped (apt-get install haproxy)" >&2
  fi
fi
# The lesson instrument typesets its live equations with KaTeX: Debian's libjs-katex (with fonts-katex), served by
# the app itself (app/kit/vendor.py; without it the equations show as text).
if [ ! -e /usr/share/javascript/katex/katex.min.js ]; then
  if [ "$(id -u)" = "0" ]; then
    apt-get update -qq && apt-get install -y -qq libjs-katex >/dev/null
  else
    echo "note: KaTeX not found and not root: the lesson equations show as text (apt-get install libjs-katex)" >&2
  fi
fi
# Browser tests drive Debian's chromium (Playwright's own browser download is not used).
# The emoji font makes page icons render in headless screenshots as they do in a desktop browser.
if [ "${1:-}" = "--tests" ] && { ! command -v chromium >/dev/null 2>&1 || \
     [ ! -e /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf ]; }; then
  if [ "$(id -u)" = "0" ]; then
    apt-get update -qq && apt-get install -y -qq chromium fonts-noto-color-emoji >/dev/null
  else
    echo "note: chromium not found and not root; browser tests will be skipped" >&2
  fi
fi
