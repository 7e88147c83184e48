#!/usr/bin/env python3
"""A Kubernetes API server for one Node on loopback, for checking node-labeller's image without a cluster.

    bin/loopback-apiserver.py PORT NODE STATE.json

Serves GET /api/v1/nodes/NODE, applies PATCHes to it as kube-apiserver applies a JSON patch (RFC 6902: add,
replace, remove, test; a failed test is 409 Conflict, as apiserver answers a stale resourceVersion), answers 404 to
everything else (no NodeFeatureRule CRD), and writes the node to STATE.json after every change. Plain HTTP: the
image check points the agent at it with a kubeconfig.
"""
import copy
import http.server
import json
import sys

PORT, NODE, STATE = int(sys.argv[1]), sys.argv[2], sys.argv[3]
node = {"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": NODE, "resourceVersion": "1", "labels": {"kubernetes.io/hostname": NODE}}}


def pointer(path):
    return [p.replace("~1", "/").replace("~0", "~") for p in path.split("/")[1:]]


def apply(doc, ops):
    doc = copy.deepcopy(doc)
    for op in ops:
        *parents, last = pointer(op["path"])
        target = doc
        for p in parents:
            target = target[p]
        if op["op"] == "test":
            if target.get(last) != op["value"]:
                raise ValueError("test failed: " + op["path"])
        elif op["op"] in ("add", "replace"):
            target[last] = op["value"]
        elif op["op"] == "remove":
            del target[last]
        else:
            raise ValueError("unsupported op " + op["op"])
    return doc


class Handler(http.server.BaseHTTPRequestHandler):
    def send(self, code, body):
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def not_found(self):
        self.send(404, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound", "code": 404})

    def do_GET(self):
        if self.path.split("?")[0] == "/api/v1/nodes/" + NODE:
            self.send(200, node)
        else:
            self.not_found()

    def do_PATCH(self):
        global node
        if self.path.split("?")[0] != "/api/v1/nodes/" + NODE:
            return self.not_found()
        ops = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        patched = None
        try:
            patched = apply(node, ops)
        except (ValueError, KeyError, TypeError) as e:
            return self.send(409, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Conflict",
                                   "message": str(e), "code": 409})
        if patched["metadata"].get("resourceVersion") != node["metadata"]["resourceVersion"]:
            return self.send(409, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Conflict",
                                   "code": 409})
        patched["metadata"]["resourceVersion"] = str(int(node["metadata"]["resourceVersion"]) + 1)
        node = patched
        with open(STATE, "w") as f:
            json.dump(node, f)
        self.send(200, node)

    def log_message(self, *args):
        pass


http.server.ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
