"""The HTTP client of the worker protocol: JSON over keep-alive connections from a shared pool.

A request borrows an idle connection (the most recently used first) and gives it back once its
answer is read, so a claim's thread reuses the connections of earlier claims instead of opening
its own. ``http.client`` sets TCP_NODELAY, so a small request is not held back by Nagle's
algorithm.
"""
import http.client
import json
import os
import socket
import threading
import urllib.parse

from ._errors import SluiceAPIError, UnavailableError

#: Idle connections kept for reuse; more are closed when given back.
POOL_SIZE = 32


def encode(body):
    """``body`` as compact JSON bytes (TypeError when it is not JSON)."""
    return json.dumps(body, separators=(",", ":")).encode()


def api_error(status, raw):
    """The SluiceAPIError of a non-2xx answer (``raw``: its body, bytes or decoded JSON)."""
    try:
        err = (json.loads(raw) if isinstance(raw, (bytes, str)) else raw)["error"]
        return SluiceAPIError(status, err["code"], err.get("message", ""))
    except (ValueError, KeyError, TypeError):
        text = raw.decode(errors="replace") if isinstance(raw, bytes) else json.dumps(raw)
        return SluiceAPIError(status, "HTTP_ERROR", text.strip())


class Client:
    """Talks to a Sluice server's HTTP API (``base_url``, e.g. ``http://127.0.0.1:7777``)."""

    def __init__(self, base_url, token=None, timeout=90.0):
        parsed = urllib.parse.urlsplit(base_url.rstrip("/"))
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise ValueError(f"sluice: {base_url!r} is not an http(s) URL (e.g. http://127.0.0.1:7777)")
        self.base_url = base_url.rstrip("/")
        self.token = token or None
        self.timeout = timeout
        self._parsed = parsed
        self._idle = []
        self._pool_lock = threading.Lock()

    def _new_connection(self):
        p = self._parsed
        cls = http.client.HTTPSConnection if p.scheme == "https" else http.client.HTTPConnection
        return cls(p.hostname, p.port, timeout=self.timeout)

    def _borrow(self):
        with self._pool_lock:
            if self._idle:
                return self._idle.pop()
        return self._new_connection()

    def _give_back(self, conn):
        with self._pool_lock:
            if len(self._idle) < POOL_SIZE:
                self._idle.append(conn)
                return
        conn.close()

    def post(self, path, body, conn=None, retry_stale=lambda: True):
        """Sends ``body`` as JSON to ``path`` and returns the decoded answer; a non-2xx answer
        raises SluiceAPIError, a transport failure an OSError or http.client.HTTPException."""
        return self.post_raw(path, encode(body), conn, retry_stale)

    def post_raw(self, path, data, conn=None, retry_stale=lambda: True):
        """As ``post``, with the body already encoded as JSON bytes."""
        headers = {"Content-Type": "application/json"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        pooled = conn is None
        conn = conn or self._borrow()
        prefix = self._parsed.path or ""
        for retry in (True, False):
            try:
                conn.request("POST", prefix + path, body=data, headers=headers)
                res = conn.getresponse()
                raw = res.read()
                break
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                # A kept-alive connection the server closed meanwhile: one fresh try.
                conn.close()
                if not retry or not retry_stale():
                    raise
            except BaseException:
                conn.close()
                raise
        if pooled:
            if res.will_close:
                conn.close()
            else:
                self._give_back(conn)
        if res.status < 200 or res.status > 299:
            raise api_error(res.status, raw)
        return json.loads(raw) if raw else None

    def close(self):
        """Closes the idle connections; the client stays usable (later requests open new ones)."""
        with self._pool_lock:
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()

    def dedicated(self):
        """A connection of its own (the claim long-poll), which ``interrupt`` can cut."""
        return self._new_connection()


def interrupt(conn):
    """Cuts a connection another thread is blocked on (a long-poll): its request fails at once."""
    sock = getattr(conn, "sock", None)
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def client_from_env():
    """A client for SLUICE_URL and SLUICE_TOKEN; UnavailableError without SLUICE_URL."""
    url = os.environ.get("SLUICE_URL", "").strip()
    if not url:
        raise UnavailableError()
    return Client(url, os.environ.get("SLUICE_TOKEN") or None)
