#!/usr/bin/env python3
"""A hostile HTTPS server for the transport's limit tests: answers that never end or never fit.

    hostile-https-server.py CERT KEY

Listens on 127.0.0.1 (a free port), prints the port on one line, and serves until it is
terminated. Every path ignores its query string:
  /ok              a small JSON answer
  /big             512 MiB of body, announced by Content-Length
  /big-unannounced 512 MiB of body, no Content-Length (ends when the connection closes)
  /endless         a body that never ends, as fast as the client reads it
  /gzip-bomb       Content-Encoding: gzip, an endless stream of compressed zeros (about 1000:1)
  /endless-headers header lines that never end
  /huge-header     one header line of 10 MiB
  /trickle         a body of one byte every 200 ms, never ending (under any low-speed limit)
  /steady          4 KiB every 50 ms, never ending (above a low-speed limit, past any deadline)
Each one stops when the client goes away.
"""
import http.server, socketserver, ssl, sys, time, zlib

MIB = 1 << 20


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, *args):
        pass

    def start(self, headers):
        self.send_response(200)
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()

    def stream(self, chunks):
        try:
            for chunk in chunks:
                self.wfile.write(chunk)
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError, OSError):
            pass

    def do_GET(self):
        path = self.path.split("?")[0]
        block = b"\0" * MIB
        if path == "/ok":
            body = b'{"ok":true}'
            self.start([("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
            self.stream([body])
        elif path == "/big":
            self.start([("Content-Type", "application/json"), ("Content-Length", str(512 * MIB))])
            self.stream(block for _ in range(512))
        elif path == "/big-unannounced":
            self.start([("Content-Type", "application/json")])
            self.stream(block for _ in range(512))
        elif path == "/endless":
            self.start([("Content-Type", "application/json")])
            self.stream(iter(lambda: block, None))
        elif path == "/gzip-bomb":
            self.start([("Content-Type", "application/json"), ("Content-Encoding", "gzip")])
            compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
            self.stream(iter(lambda: compressor.compress(block) or compressor.flush(zlib.Z_SYNC_FLUSH), None))
        elif path == "/endless-headers":
            try:
                self.wfile.write(b"HTTP/1.1 200 OK\r\n")
                n = 0
                while True:
                    n += 1
                    self.wfile.write(b"X-Filler-%d: %s\r\n" % (n, b"a" * 200))
            except (BrokenPipeError, ConnectionResetError, ssl.SSLError, OSError):
                pass
        elif path == "/huge-header":
            try:
                self.wfile.write(b"HTTP/1.1 200 OK\r\nX-Huge: ")
                for _ in range(10):
                    self.wfile.write(b"a" * MIB)
                self.wfile.write(b"\r\nContent-Length: 2\r\n\r\n{}")
            except (BrokenPipeError, ConnectionResetError, ssl.SSLError, OSError):
                pass
        elif path == "/trickle":
            self.start([("Content-Type", "application/json")])
            self.stream(paced(b"x", 0.2))
        elif path == "/steady":
            self.start([("Content-Type", "application/json")])
            self.stream(paced(b"x" * 4096, 0.05))
        else:
            self.send_error(404)


def paced(chunk, interval):
    while True:
        yield chunk
        time.sleep(interval)


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


def main():
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(sys.argv[1], sys.argv[2])
    server = Server(("127.0.0.1", 0), Handler)
    # The handshake happens in each connection's thread, on its first read: a slow client cannot
    # hold the accepting thread.
    server.socket = context.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
