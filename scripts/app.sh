#!/usr/bin/env bash
# Installs everything and starts the explorer on http://127.0.0.1:8501
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
# app/serve.py: the app behind its host guard (403 for a host outside LCSM_ALLOWED_HOSTS or another origin).
exec python3 -m streamlit run app/serve.py --server.address 127.0.0.1 --server.port "${PORT:-8501}" \
  --server.headless true --browser.gatherUsageStats false
