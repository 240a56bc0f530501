"""Tokens the server issues to a browser tab (`?owner=` drives a training run, `?learner=` holds a score), signed so
a link cannot choose one (a crafted link could otherwise hand a learner a token someone else knows: session
fixation).

A token is 32 random hex digits followed by the first 32 hex digits of HMAC-SHA256(key, "<purpose>:<random>"):
64 lower-case hex digits, URL-safe as the old ones were. `purpose` ("owner", "learner", "browser") keeps one kind
from passing for the other. A browser that carries a "browser" token (the server's HttpOnly cookie) gets its owner
and learner tokens derived from it (`of_browser`): a valid signature then proves the server minted a token, and
the match with the browser's own proves this browser holds it.

The key is 32 random bytes in `token.key` beside the run store (the data directory: $LCSM_DATA_DIR, see
`default_db_path`; a backup of that folder keeps it with the store), made with mode 0600 on first use and then read
by every web process and the trainer service sharing that folder; two processes making it at once agree (the first
link wins). Deleting the key file voids every token issued (tabs get fresh ones; their old runs can only be read).
The store keeps only a token's SHA-256 (`owner_hash`). Pure: no streamlit.
"""
from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
from pathlib import Path

from lcsm_serving.store import default_db_path

KEY_NAME = "token.key"
KEY_BYTES = 32
NONCE_HEX = SIGNATURE_HEX = 32
TOKEN_SHAPE = re.compile(rf"[0-9a-f]{{{NONCE_HEX + SIGNATURE_HEX}}}")
PURPOSES = ("owner", "learner", "browser")
_KEYS: dict[str, bytes] = {}                    # key file path → its bytes, read once per process


def key_path(data_dir: str | os.PathLike | None = None) -> Path:
    """The signing key's file: beside runs.sqlite in the data directory."""
    return default_db_path(data_dir).parent / KEY_NAME


def signing_key(data_dir: str | os.PathLike | None = None) -> bytes:
    """The server's key (made on first use, mode 0600). OSError when the folder cannot hold it."""
    path = key_path(data_dir)
    cached = _KEYS.get(str(path))
    if cached is not None and path.exists():
        return cached
    if not path.exists():
        _make_key(path)
    key = path.read_bytes()
    if len(key) != KEY_BYTES:
        raise OSError(f"the token key {path} is damaged ({len(key)} bytes, not {KEY_BYTES}); delete it to make "
                      "a new one (tabs then get fresh tokens)")
    _KEYS[str(path)] = key
    return key


def _make_key(path: Path) -> None:
    """Write the key whole to a private temporary file, then link it into place: a reader never sees half a
    key, and of two processes making it at once the first link wins and the other reads that one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f"{KEY_NAME}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(secrets.token_bytes(KEY_BYTES))
            f.flush()
            os.fsync(f.fileno())
        try:
            os.link(temporary, path)
        except FileExistsError:
            pass
    finally:
        temporary.unlink(missing_ok=True)


def mint(purpose: str, data_dir: str | os.PathLike | None = None) -> str:
    """A fresh token for `purpose`, signed with the server's key."""
    nonce = secrets.token_hex(NONCE_HEX // 2)
    return nonce + _signature(purpose, nonce, signing_key(data_dir))


def verify(token: object, purpose: str, data_dir: str | os.PathLike | None = None) -> bool:
    """Whether `token` is one this server issued for `purpose` (shape, then signature, compared in constant
    time). Never raises for a bad token; OSError only when the key cannot be read or made."""
    if not isinstance(token, str) or not TOKEN_SHAPE.fullmatch(token):
        return False
    nonce, signature = token[:NONCE_HEX], token[NONCE_HEX:]
    return hmac.compare_digest(signature, _signature(purpose, nonce, signing_key(data_dir)))


def of_browser(purpose: str, browser: str, data_dir: str | os.PathLike | None = None) -> str:
    """The `purpose` token of one browser: signed as `mint`'s are (`verify` accepts it), its random part derived
    from the browser's own token (`purpose` "browser", kept in an HttpOnly cookie: app/kit/browser_identity.py), so
    every tab, reload and web process of that browser gets the same one, and no other browser can be given it."""
    if purpose == "browser":
        raise ValueError("a browser's token is minted, not derived")
    key = signing_key(data_dir)
    nonce = hmac.new(key, f"{purpose} of browser:{browser}".encode(), hashlib.sha256).hexdigest()[:NONCE_HEX]
    return nonce + _signature(purpose, nonce, key)


def _signature(purpose: str, nonce: str, key: bytes) -> str:
    if purpose not in PURPOSES:
        raise ValueError(f"purpose must be one of {PURPOSES}, not {purpose!r}")
    return hmac.new(key, f"{purpose}:{nonce}".encode(), hashlib.sha256).hexdigest()[:SIGNATURE_HEX]
