#!/usr/bin/python3
"""httpcheck HOST PORT: the exporter's HTTP, as a client sees it, one
check a line ("ok: ..." or "FAIL: ..."), exit 1 on the first failure:
GET /metrics, HEAD, 404, 405, malformed (400), oversized (431), and a
client that connects and sends nothing while another scrapes (the silent
one is cut after the server's deadline; the scrape is served right after it
at worst)."""
import socket
import sys
import threading
import time

host, port = sys.argv[1], int(sys.argv[2])


def raw(data, timeout=10):
    s = socket.create_connection((host, port), timeout=timeout)
    s.sendall(data)
    out = b""
    while True:
        b = s.recv(65536)
        if not b:
            break
        out += b
    s.close()
    head, _, body = out.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {l.split(":", 1)[0].lower(): l.split(":", 1)[1].strip() for l in lines[1:] if ":" in l}
    return status, headers, body


def check(cond, what):
    if not cond:
        print("FAIL: " + what)
        sys.exit(1)
    print("  ok: " + what)


st, h, body = raw(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
check(st == 200 and h["content-type"].startswith("text/plain; version=0.0.4")
      and int(h["content-length"]) == len(body) and b"# TYPE iodig_request_seconds histogram" in body,
      "GET /metrics: 200, text format 0.0.4, Content-Length = the body (%d bytes)" % len(body))
st, h, body = raw(b"HEAD /metrics HTTP/1.1\r\n\r\n")
check(st == 200 and body == b"" and int(h["content-length"]) > 0, "HEAD: 200, headers only")
check(raw(b"GET /nope HTTP/1.1\r\n\r\n")[0] == 404, "GET /nope: 404")
st, h, _ = raw(b"POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
check(st == 405 and h.get("allow") == "GET, HEAD", "POST: 405 with Allow: GET, HEAD")
check(raw(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n")[0] == 400, "a TLS hello: 400")
check(raw(b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\n\r\n")[0] == 431, "a 9 kB request line: 431")

# a silent client holds up no one (every connection is served at once) and is
# cut with 408 when its 2 s are spent
silent = socket.create_connection((host, port))
t0 = time.monotonic()
res = {}
threading.Thread(target=lambda: res.update(st=raw(b"GET /metrics HTTP/1.0\r\n\r\n")[0])).start()
while "st" not in res and time.monotonic() - t0 < 10:
    time.sleep(0.05)
waited = time.monotonic() - t0
check(res.get("st") == 200 and waited < 1, "a scrape beside a silent client: 200 after %.1f s" % waited)
silent.settimeout(4)
check(b"408" in silent.recv(100), "the silent client: cut with 408")
silent.close()
