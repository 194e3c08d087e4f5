"""A minimal NATS client over a plain socket (standard library only): CONNECT, PING/PONG, SUB/UNSUB, PUB/HPUB and
MSG/HMSG parsing. Enough for a request/reply service; no reconnect, no TLS, no auth beyond user/password."""

import json
import socket
import threading
from urllib.parse import urlparse


class NatsWire:
    def __init__(self, url, name):
        parsed = urlparse(url if "://" in url else "nats://" + url)
        self.sock = socket.create_connection((parsed.hostname or "127.0.0.1", parsed.port or 4222), timeout=10)
        self.sock.settimeout(None)
        self.file = self.sock.makefile("rb")
        self.lock = threading.Lock()
        self.subs = {}
        self.next_sid = 1
        self.pongs = []
        self.closed = threading.Event()
        info = self.file.readline()
        if not info.startswith(b"INFO "):
            raise RuntimeError("not a NATS server: %r" % info[:40])
        connect = {"verbose": False, "pedantic": False, "headers": True, "no_responders": True,
                   "protocol": 1, "name": name, "lang": "python-plain", "version": "1.0.0"}
        if parsed.username:
            connect.update(user=parsed.username, **{"pass": parsed.password or ""})
        self._send(b"CONNECT " + json.dumps(connect).encode() + b"\r\n")
        threading.Thread(target=self._read_loop, name="nats-reader", daemon=True).start()
        self.flush()

    def _send(self, data):
        with self.lock:
            self.sock.sendall(data)

    def flush(self, timeout=10):
        """Round trip to the server: everything sent before it has been processed once it returns."""
        done = threading.Event()
        with self.lock:
            self.pongs.append(done)
            self.sock.sendall(b"PING\r\n")
        if not done.wait(timeout):
            raise TimeoutError("no PONG from the server")

    def subscribe(self, subject, callback, queue=None):
        with self.lock:
            sid = str(self.next_sid)
            self.next_sid += 1
            self.subs[sid] = callback
        self._send(("SUB %s %s%s\r\n" % (subject, queue + " " if queue else "", sid)).encode())
        return sid

    def unsubscribe(self, sid):
        self.subs.pop(sid, None)
        self._send(("UNSUB %s\r\n" % sid).encode())

    def publish(self, subject, payload, headers=None):
        if isinstance(payload, str):
            payload = payload.encode()
        if not headers:
            self._send(b"PUB %s %d\r\n%s\r\n" % (subject.encode(), len(payload), payload))
            return
        # Header values must stay on one line.
        lines = "".join("%s: %s\r\n" % (k, " ".join(str(v).splitlines())) for k, v in headers.items())
        head = ("NATS/1.0\r\n" + lines + "\r\n").encode()
        self._send(b"HPUB %s %d %d\r\n%s%s\r\n" % (subject.encode(), len(head), len(head) + len(payload), head, payload))

    def close(self):
        try:
            self.flush(timeout=2)
        finally:
            self.closed.set()
            self.sock.close()

    def _read_loop(self):
        try:
            while True:
                line = self.file.readline()
                if not line:
                    break
                self._dispatch(line.rstrip(b"\r\n"))
        except OSError:
            pass
        finally:
            self.closed.set()

    def _dispatch(self, line):
        op = line.split(b" ", 1)[0].upper()
        if op == b"PING":
            self._send(b"PONG\r\n")
        elif op == b"PONG":
            with self.lock:
                waiter = self.pongs.pop(0) if self.pongs else None
            if waiter:
                waiter.set()
        elif op in (b"MSG", b"HMSG"):
            self._message(op, line.split(b" ")[1:])
        elif op == b"-ERR":
            print("nats error: %s" % line.decode(errors="replace"), flush=True)

    def _message(self, op, parts):
        subject, sid = parts[0].decode(), parts[1].decode()
        reply = parts[2].decode() if len(parts) == (5 if op == b"HMSG" else 4) else None
        total = int(parts[-1])
        head_len = int(parts[-2]) if op == b"HMSG" else 0
        data = self.file.read(total + 2)[:total]
        headers = {}
        for raw in data[:head_len].decode(errors="replace").split("\r\n")[1:]:
            if ":" in raw:
                key, value = raw.split(":", 1)
                headers[key.strip()] = value.strip()
        callback = self.subs.get(sid)
        if callback:
            callback(subject, reply, data[head_len:], headers)
