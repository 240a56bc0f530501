"""The lesson kit: how a lesson page is declared (pure: settings, lesson, lesson_text, figure_style) and drawn
(streamlit: render, widgets, url_state, lesson_view, cache). See lesson.py for the shape of a lesson module.
Every private Streamlit or plotly internal and every selector of Streamlit's markup is in `internals/`."""
