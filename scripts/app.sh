#!/usr/bin/env bash
# Installs everything and starts the explorer on http://127.0.0.1:${PORT:-8501}
#   LCSM_WEB_PROCESSES=N  web processes (default: the core count minus one, at least 1). One: a single
#                         `python3 -m streamlit run app/serve.py`, as always. Several: HAProxy on the port in
#                         front of N Streamlit processes, and one trainer service (app/web_tier.py).
#   PORT, LCSM_DATA_DIR, LCSM_ALLOWED_HOSTS  the public port, the run store's folder, the host guard's names.
set -euo pipefail
cd "$(dirname "$0")/.."
# --system-packages (first argument): HAProxy and KaTeX from Debian too, as root; the rest pass to the launcher.
if [ "${1:-}" = "--system-packages" ]; then
  shift
  bash scripts/install.sh --system-packages
else
  bash scripts/install.sh
fi
# app/serve.py: the app behind its host guard (403 for a host outside LCSM_ALLOWED_HOSTS or another origin),
# in every web process. Options of the launcher (--address, --port, --processes) pass through.
exec python3 -m lcsm_explorer serve "$@"
