"""Every page of the explorer, in lesson order. A page whose script is not written
yet is listed on Home as "coming" and left out of the navigation."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

PAGES_DIR = Path(__file__).resolve().parent / "app_pages"


@dataclass(frozen=True)
class PageEntry:
    number: int          # lesson number (0 = home)
    url_path: str
    title: str
    icon: str
    section: str
    summary: str

    @property
    def path(self) -> Path:
        return PAGES_DIR / f"{self.url_path}.py"

    @property
    def ready(self) -> bool:
        return self.path.exists()


PAGES = [
    PageEntry(0, "home", "Home", "🏠", "Start", "What the explorer teaches and how it is built."),
    PageEntry(1, "spring", "1 · Spring–mass–damper", "🪀", "Dynamics",
              "Sliders m, k, c: time response, phase portrait, energy, poles."),
    PageEntry(2, "discretize", "2 · Continuous → discrete", "🔢", "Dynamics",
              "Zero-order hold, bilinear, Euler: s-plane to z-plane."),
    PageEntry(3, "rings", "3 · Eigenvalue rings", "⭕", "Dynamics",
              "LRU ring initialization, memory horizon, impulse responses."),
    PageEntry(4, "lru_stability", "4 · LRU stability", "📉", "Dynamics",
              "Naive vs exponential parameterization under gradient steps."),
    PageEntry(5, "propagation", "5 · Information propagation", "📡", "Dynamics",
              "'aa' vs 'ab': which systems remember, forget or explode."),
    PageEntry(6, "eos_view", "6 · The EOS view", "🧩", "Sequence models",
              "Any Table 1 method or model code: memory state, spectrum."),
    PageEntry(7, "online_learners", "7 · SSMs as online learners", "🎯", "Sequence models",
              "Longhorn vs DeltaNet vs linear attention vs GLA."),
    PageEntry(8, "train_live", "8 · Train live", "🏋️", "Sequence models",
              "Small models learn associative recall; eigenvalues move."),
    PageEntry(9, "paper_lab", "9 · Paper lab", "🧪", "Sequence models",
              "Grids of runs reproducing the LCSM ablations."),
    PageEntry(10, "check_math", "10 · Check the math", "✅", "Sequence models",
              "Hand-written backward vs autograd, formula by formula."),
]


def available_pages() -> list[PageEntry]:
    return [p for p in PAGES if p.ready]
