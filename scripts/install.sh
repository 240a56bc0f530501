#!/usr/bin/env bash
# Installs the package (pip, editable, constraints.txt); with --tests also what only the tests use (its [test]
# and [ray] extras: pytest, Playwright, axe, Ray; fla-core's oracles).
# Debian packages (HAProxy, KaTeX; with --tests chromium, an emoji font, node and openssl) are installed with apt-get only when
# asked (--system-packages, as root); otherwise each missing one is named with what goes without it.
# Idempotent: a second run is quick.
#   bash scripts/install.sh [--tests] [--system-packages]
set -euo pipefail
cd "$(dirname "$0")/.."
TESTS=0
SYSTEM=0
for arg in "$@"; do
  case "$arg" in
    --tests) TESTS=1 ;;
    --system-packages) SYSTEM=1 ;;
    *) echo "install.sh: unknown option $arg (known: --tests, --system-packages)" >&2; exit 2 ;;
  esac
done
# The package itself, editable (the checkout is what runs), at the versions the tests ran with (constraints.txt);
# with --tests its [test] and [ray] extras too (Ray runs paper-lab grids on a local instance and a two-node cluster
# in the tests; the app needs it only when LCSM_RAY_ADDRESS is set; ray[client] is what a ray:// address needs).
EXTRAS=""
if [ "$TESTS" = "1" ]; then EXTRAS="[test,ray]"; fi
python3 -m pip install --quiet --disable-pip-version-check -c constraints.txt -e ".$EXTRAS"
# flash-linear-attention's plain-PyTorch references are oracles in the kernel tests only (never imported at run
# time); --no-deps keeps its own torch/triton requirements from replacing the pinned ones.
if [ "$TESTS" = "1" ]; then
  python3 -m pip install --quiet --disable-pip-version-check --no-deps fla-core==0.6.0 einops==0.8.2
fi

MISSING=()
# system_package DEB_PACKAGES PRESENT_TEST WITHOUT: installs the packages when asked, else names what is missing
system_package() {
  local packages="$1" present="$2" without="$3"
  if eval "$present"; then return 0; fi
  if [ "$SYSTEM" = "1" ] && [ "$(id -u)" = "0" ]; then
    apt-get update -qq && apt-get install -y -qq $packages >/dev/null
  elif [ "$SYSTEM" = "1" ]; then
    echo "note: --system-packages needs root to install $packages: $without" >&2
    MISSING+=("$packages")
  else
    echo "note: $packages not installed: $without (bash scripts/install.sh --system-packages, as root, installs it)" >&2
    MISSING+=("$packages")
  fi
}
# Several web processes (LCSM_WEB_PROCESSES > 1, app/web_tier.py) run behind Debian's HAProxy.
system_package haproxy "command -v haproxy >/dev/null 2>&1 || [ -x /usr/sbin/haproxy ]" \
  "only one web process can run, and the web-tier browser tests skip (fail under CI=true)"
# The lesson instrument typesets its live equations with Debian's KaTeX, served by the app (app/kit/vendor.py).
system_package libjs-katex "[ -e /usr/share/javascript/katex/katex.min.js ]" "the lesson equations show as text"
# A chart saved as SVG or PNG is drawn by Kaleido in Debian's chromium (app/kit/chart_export.py).
system_package chromium "command -v chromium >/dev/null 2>&1" "charts cannot be saved as SVG or PNG from their data line"
# Browser tests drive the same chromium (Playwright's own browser download is not used); the emoji font makes page
# icons render in headless screenshots as they do in a desktop browser.
if [ "$TESTS" = "1" ]; then
  system_package "chromium fonts-noto-color-emoji" \
    "command -v chromium >/dev/null 2>&1 && [ -e /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf ]" \
    "the browser tests skip (fail under CI=true)"
  # The browser's chart words (app/kit/chart_words.js) are held equal to the server's in node.
  system_package nodejs "command -v node >/dev/null 2>&1" "the chart words' JavaScript test skips (fails under CI=true)"
  # The HTTPS test makes a self-signed certificate with openssl.
  system_package openssl "command -v openssl >/dev/null 2>&1" "the HTTPS test skips (fails under CI=true)"
fi
if [ "${#MISSING[@]}" -gt 0 ]; then
  echo "install.sh: done, without: ${MISSING[*]}" >&2
fi
