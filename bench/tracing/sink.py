#!/usr/bin/env python3
"""An OTLP/HTTP sink for the tracing bench: answers every POST to /v1/traces with 200 and
counts the requests and bytes it took, so a traced server exports as it would to a collector.

    python3 bench/tracing/sink.py PORT   # prints "requests bytes" on SIGTERM or Ctrl-C
"""
import http.server
import signal
import sys

taken = {"requests": 0, "bytes": 0}


class Sink(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        length = int(self.headers.get("content-length", "0"))
        self.rfile.read(length)
        taken["requests"] += 1
        taken["bytes"] += length
        self.send_response(200)
        self.send_header("content-type", "application/x-protobuf")
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def stop(*_):
    print(taken["requests"], taken["bytes"], flush=True)
    sys.exit(0)


signal.signal(signal.SIGTERM, stop)
server = http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Sink)
try:
    server.serve_forever()
except KeyboardInterrupt:
    stop()
