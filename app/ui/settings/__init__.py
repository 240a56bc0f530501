"""Each dynamics page's declared settings (URL parameters) and presets — pure data, no streamlit."""
