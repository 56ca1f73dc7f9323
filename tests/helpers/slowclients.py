#!/usr/bin/python3
"""slowclients.py HOST PORT N SECONDS [hold]: N hostile clients of an HTTP
server for SECONDS.  Half connect and send nothing; half send a request line
one byte a second and never finish it.  A client the server closes connects
again at once, so N stay connected as far as the server lets them (with
"hold", it does not: N connect once).  Prints how many connections were
made and how many the server closed."""
import resource
import selectors
import socket
import sys
import time

host, port, n, secs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
hold = len(sys.argv) > 5 and sys.argv[5] == "hold"
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
if soft < n + 64:  # room for every client's socket
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, n + 64), hard))
LINE = b"GET /metrics HTTP/1.1\r\nHost: x\r\n"
sel = selectors.DefaultSelector()
made = closed = 0


def connect(i):
    global made
    s = socket.socket()
    s.setblocking(False)
    try:
        s.connect((host, port))
    except BlockingIOError:
        pass
    except OSError:
        s.close()
        return None
    made += 1
    sel.register(s, selectors.EVENT_READ, [i, 0])
    return s


socks = {i: connect(i) for i in range(n)}
end = time.monotonic() + secs
next_byte = time.monotonic() + 1
while time.monotonic() < end:
    for key, _ in sel.select(timeout=0.2):
        s, (i, _) = key.fileobj, key.data
        try:
            data = s.recv(4096)
        except OSError:
            data = b""
        if not data:  # closed by the server: again
            sel.unregister(s)
            s.close()
            closed += 1
            socks[i] = None if hold else connect(i)
    if time.monotonic() >= next_byte:
        next_byte += 1
        for i, s in list(socks.items()):
            if s is None:
                if not hold:
                    socks[i] = connect(i)
                continue
            if i % 2:
                k = sel.get_key(s).data
                try:
                    s.send(LINE[k[1] % len(LINE):k[1] % len(LINE) + 1])
                    k[1] += 1
                except OSError:
                    pass
print("connections made %d, closed by the server %d" % (made, closed), flush=True)
