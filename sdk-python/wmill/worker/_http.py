"""The HTTP client of the worker protocol: JSON over keep-alive connections, one per thread.

``http.client`` sets TCP_NODELAY, so a small request is not held back by Nagle's algorithm.
"""
import http.client
import json
import os
import socket
import threading
import urllib.parse

from ._errors import SluiceAPIError, UnavailableError


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
        self._local = threading.local()

    def _new_connection(self):
        p = self._parsed
        cls = http.client.HTTPSConnection if p.scheme == "https" else http.client.HTTPConnection
        return cls(p.hostname, p.port, timeout=self.timeout)

    def connection(self):
        """This thread's keep-alive connection."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = self._new_connection()
        return conn

    def post(self, path, body, conn=None, retry_stale=lambda: True):
        """Sends ``body`` as JSON to ``path`` and returns the decoded answer; a non-2xx answer
        raises SluiceAPIError, a transport failure an OSError or http.client.HTTPException."""
        data = json.dumps(body, separators=(",", ":")).encode()
        headers = {"Content-Type": "application/json"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        own = conn is None
        conn = conn or self.connection()
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
                if own:
                    self._local.conn = None
                raise
        if res.status < 200 or res.status > 299:
            try:
                err = json.loads(raw)["error"]
                raise SluiceAPIError(res.status, err["code"], err.get("message", ""))
            except (ValueError, KeyError, TypeError):
                raise SluiceAPIError(res.status, "HTTP_ERROR", raw.decode(errors="replace").strip()) from None
        return json.loads(raw) if raw else None

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
