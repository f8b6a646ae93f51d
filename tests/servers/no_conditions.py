#!/usr/bin/python3
# A stand-in for an S3 server that ignores conditional writes: a proxy on a free port of
# 127.0.0.1 in front of the test RADOS Gateway that drops If-Match and If-None-Match from every
# request and signs it anew (AWS Signature Version 4, UNSIGNED-PAYLOAD) for the gateway.
# Standard library only (Debian's /usr/bin/python3). Prints its port on the first line of
# stdout, then serves until it is killed, or for 10 minutes at most.
#   no_conditions.py UPSTREAM ACCESS_KEY SECRET_KEY REGION     (UPSTREAM: http://127.0.0.1:PORT)
import datetime
import hashlib
import hmac
import http.client
import http.server
import socket
import sys
import threading
import urllib.parse

upstream, access_key, secret_key, region = sys.argv[1:5]
up = urllib.parse.urlsplit(upstream)
dropped = {"if-match", "if-none-match", "authorization", "x-amz-date", "x-amz-content-sha256", "content-length", "host",
           "expect", "connection"}


def hmac_sha256(key, text):
    return hmac.new(key, text.encode(), hashlib.sha256).digest()


def authorization(method, path, query, host, amz_date):
    signed = "host;x-amz-content-sha256;x-amz-date"
    headers = f"host:{host}\nx-amz-content-sha256:UNSIGNED-PAYLOAD\nx-amz-date:{amz_date}\n"
    canonical = "\n".join([method, path, query, headers, signed, "UNSIGNED-PAYLOAD"])
    scope = f"{amz_date[:8]}/{region}/s3/aws4_request"
    to_sign = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope, hashlib.sha256(canonical.encode()).hexdigest()])
    key = hmac_sha256(("AWS4" + secret_key).encode(), amz_date[:8])
    for part in (region, "s3", "aws4_request"):
        key = hmac_sha256(key, part)
    signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    return f"AWS4-HMAC-SHA256 Credential={access_key}/{scope}, SignedHeaders={signed}, Signature={signature}"


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def forward(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length) if length else b""
        path, _, query = self.path.partition("?")
        host = up.netloc
        amz_date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        headers = {k: v for k, v in self.headers.items() if k.lower() not in dropped}
        headers["x-amz-content-sha256"] = "UNSIGNED-PAYLOAD"
        headers["x-amz-date"] = amz_date
        headers["Authorization"] = authorization(self.command, path, query, host, amz_date)
        headers["Content-Length"] = str(len(body))
        connection = http.client.HTTPConnection(up.hostname, up.port, timeout=60)
        connection.connect()
        connection.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        connection.request(self.command, self.path, body=body, headers=headers)
        answer = connection.getresponse()
        data = answer.read()
        self.send_response(answer.status)
        for k, v in answer.getheaders():
            if k.lower() not in ("transfer-encoding", "connection", "content-length"):
                self.send_header(k, v)
        length = answer.getheader("Content-Length") if self.command == "HEAD" else str(len(data))
        self.send_header("Content-Length", length or "0")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)
        connection.close()

    do_GET = do_PUT = do_DELETE = do_HEAD = do_POST = forward


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def server_bind(self):
        self.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().server_bind()


server = Server(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
threading.Thread(target=server.serve_forever, daemon=True).start()
threading.Event().wait(600)
