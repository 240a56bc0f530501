#!/usr/bin/env bash
# Installs everything and starts the explorer on http://127.0.0.1:8501
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
exec python3 -m streamlit run app/streamlit_app.py --server.address 127.0.0.1 --server.port "${PORT:-8501}" \
  --server.headless true --browser.gatherUsageStats false
