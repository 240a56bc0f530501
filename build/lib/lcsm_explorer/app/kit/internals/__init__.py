"""The one door to Streamlit's, plotly's and the browser page's private details: every private API, DOM selector
and frontend assumption the app relies on is here, each behind a small named function; the rest of the app uses
public API only (tests/test_internals_door.py holds it to that).

- `script_events`: a script run's events handed to the event loop in batches (`AppSession`, `Runtime` methods).
- `plotly_element`: a cached chart enqueued as `st.plotly_chart` enqueues it (its proto, element id, `_enqueue`).
- `widget_states`: what the browser sent for each widget (a reconnected tab's first move), and a widget's value
  sent again in every run (the frontend draws a widget it mounts afresh at the value the run sent).
- `plotly_objects`: plotly figures built without plotly's copies and per-value checks.
- `page_style` and `page_script.js`: the style sheets and page script written against Streamlit's markup.
- `plotly_theme`: the colours Streamlit's frontend replaces with the page theme's in a chart.
- `reconnect`: the auto-rerun fragment that makes the frontend rerun a page after a reconnect.
- `self_check`: at start-up, whether each of these is still there; where one is not, its public path is taken and
  one logged line says so.
"""
