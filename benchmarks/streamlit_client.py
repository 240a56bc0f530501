"""A Streamlit protocol client: one browser tab's worth of traffic without a browser, for load runs.

It speaks what the frontend speaks on `/_stcore/stream` (a websocket of protobufs): it sends a `rerun_script`
BackMsg (query string, page name or page script hash, widget states, cached message hashes) and reads
ForwardMsgs until the run's `script_finished`. What the run drew is kept by delta path, so a caller finds
widgets by their key (`widget("spring.c")`: element ids end in `-<key>`), reads text, and sees exceptions.

    async with StreamlitSession("http://127.0.0.1:8501") as tab:
        run = await tab.open_page("spring", "c=0.3")
        slider = tab.widget("spring.c")
        run = await tab.set_widget(slider, slider_state(slider, 0.4))
        run.latency_s, run.exceptions

Like the frontend, it keeps every widget value it has set and sends them all with each rerun, caches
cacheable messages by hash and names those hashes, so the server sends a reference next time.
"""
from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.Slider_pb2 import Slider
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.asyncio.client import connect

FINAL = {ForwardMsg.FINISHED_SUCCESSFULLY: "ok", ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY: "ok",
         ForwardMsg.FINISHED_WITH_COMPILE_ERROR: "compile error"}
# A fragment that reruns at most this often is a poll the client runs as a browser would (a chart waiting for its
# preview family, Train live's run); a longer interval is app/kit/internals/reconnect.py's keep-alive (600 s, there
# only so that a browser reruns the page after a reconnect), which no benchmark's few seconds of waiting would see fire.
POLL_AT_MOST_S = 60.0
INTERNAL_KEY = "$$STREAMLIT_INTERNAL_KEY"         # Streamlit's prefix of a component's trigger widget id
WIDGET_TYPES = ("slider", "select_slider", "number_input", "selectbox", "radio", "button", "checkbox",
                "text_input", "multiselect", "toggle")


@dataclass
class RunResult:
    """One rerun: seconds from sending it to its final script_finished, and what went wrong on the way."""

    latency_s: float
    status: str                                      # "ok", "compile error", "timeout", "disconnected"
    exceptions: list[str] = field(default_factory=list)
    messages: int = 0
    bytes: int = 0                                   # websocket payload bytes received for this run

    @property
    def ok(self) -> bool:
        return self.status == "ok" and not self.exceptions


class StreamlitSession:
    """One tab: a websocket to the server and what the last runs drew."""

    def __init__(self, base_url: str, timeout_s: float = 60.0, cookie: str | None = None,
                 headers: dict[str, str] | None = None):
        """`cookie`: the Cookie header the websocket sends (a browser's identity, app/kit/browser_identity.py);
        None: a client without cookies (the server then keys it by its address). `headers`: more headers of the
        websocket's request (a load run's X-Harness-Client, app/web_tier.py's harness frontend)."""
        parts = urlsplit(base_url)
        assert parts.hostname in ("127.0.0.1", "localhost", "::1"), "load runs stay on loopback"
        self.url = f"ws://{parts.netloc}/_stcore/stream"
        self.timeout_s = timeout_s
        self.cookie = cookie
        self.headers = dict(headers or {}, **({"Cookie": cookie} if cookie else {}))
        self.ws = None
        self.page_hashes: dict[str, str] = {}        # url path → page script hash (from the navigation)
        self.page_hash = ""
        self.page_name = ""
        self.query = ""
        self.values: dict[str, WidgetState] = {}     # widget id → the value this tab holds (sent every rerun)
        self.set_by_server: dict[str, list] = {}     # slider id → the value the server last set (set_value)
        self.elements: dict[tuple, object] = {}      # delta path → Element drawn by the runs so far
        self.fragment_of: dict[tuple, str] = {}     # delta path → the fragment that drew it ("" for none)
        self.drawn_figures: dict[str, dict] = {}     # page → its instrument's charts as last sent (`held`)
        self.fragments: dict[str, float] = {}        # polling fragment id → auto-rerun interval (s)
        self._cache: dict[str, ForwardMsg] = {}

    async def __aenter__(self) -> StreamlitSession:
        self.ws = await connect(self.url, subprotocols=["streamlit"], max_size=None, open_timeout=self.timeout_s,
                                ping_interval=None,
                                additional_headers=self.headers or None)
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
            self.ws = None

    # --- what a learner does -----------------------------------------------------------------------------
    async def open_page(self, page: str, query: str = "") -> RunResult:
        """Open `page` (its URL path, "" for the default page) with a query string, as following a link does."""
        self.page_name, self.query, self.values, self.set_by_server = page, query, {}, {}
        self.page_hash = self.page_hashes.get(page, "")
        return await self.rerun()

    async def set_widget(self, widget_id: str, state: WidgetState) -> RunResult:
        """A widget moved: keep its new value and rerun."""
        self.values[widget_id] = state
        return await self.rerun()

    async def click(self, widget_id: str) -> RunResult:
        """Press a button: a trigger sent with this one rerun only."""
        return await self.rerun([WidgetState(id=widget_id, trigger_value=True)])

    async def poll_fragments(self) -> list[RunResult]:
        """One auto-rerun of each polling fragment (what the frontend does every `run_every` seconds)."""
        return [await self.rerun(fragment_id=f, auto=True) for f in list(self.fragments)]

    # --- what the runs drew ----------------------------------------------------------------------------
    def widget(self, key: str) -> object | None:
        """The element of the widget with user key `key` (its id ends in `-key`), as last drawn."""
        for element in self.elements.values():
            kind = element.WhichOneof("type")
            if kind in WIDGET_TYPES and getattr(element, kind).id.endswith(f"-{key}"):
                return getattr(element, kind)
        return None

    def slider_value(self, slider) -> float:
        """What a slider holds in this tab, as the frontend keeps it: the value sent last, else the one the server
        set last (a run that does not set it again draws it with `set_value` false and its declared default),
        else its default."""
        held = self.values.get(slider.id)
        if held is not None and held.double_array_value.data:
            return held.double_array_value.data[0]
        return (self.set_by_server.get(slider.id) or slider.default)[0]

    def widgets(self, kind: str) -> list:
        return [getattr(e, kind) for e in self.elements.values() if e.WhichOneof("type") == kind]

    def number_sliders(self, key_prefix: str = "") -> list:
        """The st.slider widgets of numbers drawn (st.select_slider is a `slider` element too, but sends its
        option labels), whose keys start with `key_prefix`."""
        return [s for s in self.widgets("slider") if s.type != Slider.SELECT_SLIDER
                and s.data_type in (Slider.INT, Slider.FLOAT) and f"-{key_prefix}" in s.id]

    def instrument(self, page: str, mount: str = "instrument") -> dict | None:
        """The lesson instrument's page payload as last drawn (app/kit/instrument.py: controls with their values,
        the swept setting and its family's members, the readouts), or None where the page draws none;
        `mount="instrument_family"`: its family's payload."""
        for path, element in self.elements.items():
            if element.WhichOneof("type") == "bidi_component" and element.bidi_component.id.endswith(
                    f"-{page}.{mount}"):
                proto = element.bidi_component
                raw = proto.bytes if proto.WhichOneof("data") == "bytes" else proto.json
                return dict(json.loads(raw), element_id=proto.id, fragment_id=self.fragment_of.get(path, ""))
        return None

    def held(self, page: str, member: str) -> dict | None:
        """What the instrument's commit of the swept control says its browser shows after a drag to `member`
        (instrument.js `commitSwept`): the family it holds and the charts that moved to that member — those drawn
        with that family whose frames (in the family's group of their traces) hold it."""
        drawn, family = self.instrument(page), self.instrument(page, "instrument_family")
        if drawn is None or family is None:
            return None
        figures = self.drawn_figures.setdefault(page, {})     # a member's page sends none: they are kept, as there
        figures.update(drawn.get("figures", {}))
        charts = []
        for name, figure in figures.items():
            tag = ((figure.get("layout") or {}).get("meta") or {}).get("lcsm") or {}
            if not tag.get("follows") or tag.get("family") != family["family_id"]:
                continue
            groups = family["family"]["charts"].get(tag["chart"], [])
            if any(g["signature"] == tag["signature"] and any(f["name"] == member for f in g["frames"])
                   for g in groups):
                charts.append(name)
        return {"family": family["family_id"], "member": member, "charts": charts}

    async def commit(self, page: str, values: dict[str, str], preset: int | None = None) -> RunResult:
        """What the instrument sends on a release: its commit trigger with the settings' new values (URL text); as
        the frontend does, a rerun of the fragment that drew the instrument, where one did."""
        drawn = self.instrument(page)
        assert drawn is not None, f"{page} draws no instrument"
        self.seq = getattr(self, "seq", 0) + 1
        swept = drawn["swept"]["name"]
        held = self.held(page, values[swept]) if set(values) == {swept} and preset is None else None
        message = [{"event": "commit", "value": {"seq": self.seq, "values": values, "preset": preset,
                                                 "held": held}}]
        trigger = WidgetState(id=f"{INTERNAL_KEY}_{drawn['element_id']}__events",
                              json_trigger_value=json.dumps(message))
        return await self.rerun([trigger], fragment_id=drawn["fragment_id"])

    def movable_settings(self, page: str) -> list[str]:
        """The names of the page's number settings a learner can move: the instrument's range controls (shown,
        editable), else its Streamlit number sliders keyed `<page>.<name>`."""
        drawn = self.instrument(page)
        if drawn is not None:
            return [c["name"] for c in drawn["controls"] if c["kind"] in ("float", "int") and c["shown"]
                    and c["editable"] and c["widget"] == "slider"]
        return [s.id.rsplit(f"-{page}.", 1)[1] for s in self.number_sliders(f"{page}.")]

    async def move_setting(self, page: str, name: str, direction: int = 1) -> tuple[RunResult, int]:
        """One move of number setting `name` to a new value, as the page's browser makes it: an instrument commit
        (the swept control: its family's next member), else the setting's Streamlit slider one step on. Returns the
        run and the direction to keep (turned back at an end: on the new way, new values)."""
        drawn = self.instrument(page)
        if drawn is not None:
            control = next(c for c in drawn["controls"] if c["name"] == name)
            members = drawn["swept"]["members"] if name == drawn["swept"]["name"] else []
            value = next_control_value(control, members, direction)
            if (float(value) - float(control["value"])) * direction < 0:
                direction = -direction
            return await self.commit(page, {name: value}), direction
        slider = self.widget(f"{page}.{name}")
        value = next_slider_value(slider, self.slider_value(slider), direction)
        if (value - self.slider_value(slider)) * direction < 0:
            direction = -direction
        return await self.set_widget(slider.id, slider_state(slider, value)), direction

    def texts(self) -> list[str]:
        """Markdown, text, alerts and captions drawn, in delta-path order."""
        out = []
        for path in sorted(self.elements):
            element = self.elements[path]
            kind = element.WhichOneof("type")
            if kind in ("markdown", "text", "alert", "heading"):
                out.append(getattr(element, kind).body)
        return out

    # --- the protocol ------------------------------------------------------------------------------------
    async def rerun(self, triggers: list[WidgetState] = (), fragment_id: str = "", auto: bool = False) -> RunResult:
        msg = BackMsg()
        state = msg.rerun_script
        state.query_string = self.query
        state.page_script_hash = self.page_hash
        state.page_name = "" if self.page_hash else self.page_name
        state.widget_states.widgets.extend([*self.values.values(), *triggers])
        state.cached_message_hashes.extend(self._cache)
        if fragment_id:
            state.fragment_id, state.is_auto_rerun = fragment_id, auto
        started = time.perf_counter()
        result = RunResult(0.0, "timeout")
        try:
            await self.ws.send(msg.SerializeToString())
            await asyncio.wait_for(self._read_until_finished(result), self.timeout_s)
        except TimeoutError:
            result.status = "timeout"
        except Exception as err:  # noqa: BLE001 — a closed socket (any library error) is what we count
            result.status = f"disconnected ({type(err).__name__})"
        result.latency_s = time.perf_counter() - started
        return result

    async def _read_until_finished(self, result: RunResult) -> None:
        while True:
            payload = await self.ws.recv()
            msg = ForwardMsg()
            msg.ParseFromString(payload)
            result.messages += 1
            result.bytes += len(payload)
            if msg.HasField("ref_hash"):
                cached = self._cache.get(msg.ref_hash)
                if cached is None:
                    result.exceptions.append(f"server referred to an uncached message {msg.ref_hash}")
                    continue
                metadata = ForwardMsg()
                metadata.metadata.CopyFrom(msg.metadata)
                msg = ForwardMsg()
                msg.CopyFrom(cached)
                msg.metadata.CopyFrom(metadata.metadata)
            elif msg.metadata.cacheable and msg.hash:
                self._cache[msg.hash] = msg
            kind = msg.WhichOneof("type")
            if kind == "script_finished":
                if msg.script_finished in FINAL:
                    result.status = FINAL[msg.script_finished]
                    return
            else:
                self._take(msg, kind, result)

    def _take(self, msg: ForwardMsg, kind: str, result: RunResult) -> None:
        if kind == "new_session":
            if not msg.metadata.run.fragment_ids:   # a full run starts (not a fragment's): it redraws everything
                self.elements, self.fragments, self.fragment_of = {}, {}, {}
            self._learn_pages(msg.new_session.app_pages)
            if msg.new_session.page_script_hash:
                self.page_hash = msg.new_session.page_script_hash
        elif kind == "navigation":
            self._learn_pages(msg.navigation.app_pages)
            if msg.navigation.page_script_hash:
                self.page_hash = msg.navigation.page_script_hash
        elif kind == "page_info_changed":
            self.query = msg.page_info_changed.query_string
        elif kind == "auto_rerun" and msg.auto_rerun.interval <= POLL_AT_MOST_S:
            self.fragments[msg.auto_rerun.fragment_id] = msg.auto_rerun.interval
        elif kind == "stop_auto_rerun":
            for fragment in msg.stop_auto_rerun.fragment_ids:
                self.fragments.pop(fragment, None)
        elif kind == "session_event" and msg.session_event.HasField("script_compilation_exception"):
            result.exceptions.append(msg.session_event.script_compilation_exception.message)
        elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
            element = msg.delta.new_element
            self.elements[tuple(msg.metadata.delta_path)] = element
            self.fragment_of[tuple(msg.metadata.delta_path)] = msg.delta.fragment_id
            if element.WhichOneof("type") == "slider" and element.slider.set_value and element.slider.value:
                self.set_by_server[element.slider.id] = list(element.slider.value)
                if element.slider.id in self.values:      # the server's value wins, as in the frontend
                    self.values[element.slider.id].double_array_value.data[:] = list(element.slider.value)
            if element.WhichOneof("type") == "exception":
                result.exceptions.append(f"{element.exception.type}: {element.exception.message}"[:500])

    def _learn_pages(self, pages) -> None:
        for page in pages:
            self.page_hashes[page.url_pathname] = page.page_script_hash


# --- widget values, as the frontend encodes them ----------------------------------------------------------
def slider_state(slider, value: float) -> WidgetState:
    """A st.slider at `value` (sliders send a list of doubles)."""
    state = WidgetState(id=slider.id)
    state.double_array_value.data.append(float(value))
    return state


def next_slider_value(slider, current: float, direction: int = 1) -> float:
    """One step from `current` within the slider's range, turning back at an end."""
    step = slider.step or (slider.max - slider.min) / 100
    value = current + direction * step
    if not slider.min <= value <= slider.max:
        value = current - direction * step
    return round(value, 10)


def next_control_value(control: dict, members: list[dict], direction: int = 1) -> str:
    """One move of an instrument control (`StreamlitSession.instrument`'s `controls` entry) as the browser makes
    it, as URL text: the next member of the family for the swept control (`members`, in order), else one step of
    its range; turning back at an end."""
    if members:
        names = [m["name"] for m in members]
        at = names.index(control["value"]) if control["value"] in names else 0
        to = at + direction if 0 <= at + direction < len(names) else at - direction
        return names[max(0, min(len(names) - 1, to))]
    current, step = float(control["value"]), float(control["step"])
    value = current + direction * step
    if not control["low"] <= value <= control["high"]:
        value = current - direction * step
    return str(int(round(value))) if control["kind"] == "int" else f"{round(value, 10):.10g}"
