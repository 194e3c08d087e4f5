#!/usr/bin/env python3
"""A NovelRAG tool in plain Python (standard library only): the `PyNote` tool keeps notes in memory.

It speaks the raw tool contract (docs/reference/tool-contract.md) over a plain NATS socket: the NATS service protocol
answers ($SRV.PING/INFO/STATS), an endpoint on novelrag.tools.<name>.invoke in queue group novelrag-tools, parameter
validation, the deadline, the goal's cancel event, at most one run per invocationId (a repeat waits for the run in
progress, then gets the same answer), error headers, and ToolsChanged announcements.

Environment: NATS_URL (default nats://127.0.0.1:4222), PY_TOOL_NAME (default PyNote), PY_TOOL_SERVICE (the service
name suffix, default py-example). Prints "ready" once it serves; SIGTERM/SIGINT stop it (announcing "down").
"""

import json
import os
import re
import signal
import sys
import threading
import time
import uuid

sys.dont_write_bytecode = True  # leave no __pycache__ in the repository
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nats_wire import NatsWire  # noqa: E402

TOOL = os.environ.get("PY_TOOL_NAME", "PyNote")
SERVICE = "novelrag-tools-" + os.environ.get("PY_TOOL_SERVICE", "py-example")
VERSION = "1.0.0"
INSTANCE = uuid.uuid4().hex
QUEUE = "novelrag-tools"
INVOKE = "novelrag.tools.%s.invoke" % TOOL
STATUS = {"VALIDATION_FAILED": 400, "TIMEOUT": 504, "CANCELLED": 409, "TOOL_FAILED": 502, "UNAVAILABLE": 503}
TOKEN = re.compile(r"^[^\s.*>\x00-\x1f\x7f]{1,128}$")
INPUT_SCHEMA = {
    "type": "object",
    "properties": {
        "text": {"type": "string", "minLength": 1, "maxLength": 2000, "description": "The note"},
        "holdMs": {"type": "integer", "minimum": 0, "maximum": 600000,
                   "description": "Wait this long before writing (to try cancel)"},
    },
    "required": ["text"],
    "additionalProperties": False,
}
METADATA = {
    "description": "Keeps a short note (in this process's memory) and answers its number.",
    "input_schema": json.dumps(INPUT_SCHEMA),
    "output_description": "noted #<n>: <text>",
    "timeout_ms": "30000",
    "read_only": "false",
    "destructive": "false",
    "idempotent": "false",
    "schema_version": "1",
}

nc = None
notes = []
records = {}  # invocationId -> {"done": Event, "output": dict|None}
records_lock = threading.Lock()
cancelled_goals = {}  # goalId -> Event
started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
stats = {"num_requests": 0, "num_errors": 0, "last_error": ""}


def error(code, message, **details):
    envelope = {"code": code, "message": message, "retryable": code in ("TIMEOUT", "UNAVAILABLE")}
    if details:
        envelope["details"] = details
    return {"type": "error", "error": envelope}


def respond(reply, output):
    if not reply:
        return
    headers = None
    if output["type"] == "error":
        code = output["error"]["code"]
        headers = {"Nats-Service-Error": ("%s: %s" % (code, output["error"]["message"]))[:256],
                   "Nats-Service-Error-Code": str(STATUS.get(code, 500))}
        stats["num_errors"] += 1
        stats["last_error"] = code
    nc.publish(reply, json.dumps(output), headers)


def check_invocation(body):
    """The invocation's problem, or None. Only the fields this tool relies on are checked in depth."""
    if not isinstance(body, dict) or body.get("schemaVersion") != 1:
        return "invalid invocation: schemaVersion must be 1"
    for key in ("invocationId", "goalId", "tool"):
        if not isinstance(body.get(key), str) or not TOKEN.match(body[key]):
            return "invalid invocation: %s must be a subject token" % key
    if body["tool"] != TOOL:
        return "invocation for %s sent to %s" % (body["tool"], TOOL)
    if not isinstance(body.get("deadline"), int) or not isinstance(body.get("params"), dict):
        return "invalid invocation: deadline (epoch ms) and params (object) are required"
    return None


def check_params(params):
    """Validates against INPUT_SCHEMA by hand: the problems, field by field."""
    problems = ["%s: unknown property" % k for k in params if k not in INPUT_SCHEMA["properties"]]
    text = params.get("text")
    if not isinstance(text, str) or not 1 <= len(text) <= 2000:
        problems.append("text: must be a string of 1-2000 characters")
    hold = params.get("holdMs", 0)
    if isinstance(hold, bool) or not isinstance(hold, int) or not 0 <= hold <= 600000:
        problems.append("holdMs: must be an integer from 0 to 600000")
    return problems


def on_cancel(subject, _reply, _data, _headers):
    goal = subject.split(".")[2]
    event = cancelled_goals.get(goal)
    if event:
        event.set()


def run(body):
    """Runs one call to its end: the result, or CANCELLED / TIMEOUT."""
    goal, deadline = body["goalId"], body["deadline"]
    cancelled = cancelled_goals.setdefault(goal, threading.Event())
    sid = nc.subscribe("novelrag.goals.%s.cancel" % goal, on_cancel)
    try:
        hold_until = time.time() * 1000 + body["params"].get("holdMs", 0)
        while True:
            now = time.time() * 1000
            if cancelled.is_set():
                return error("CANCELLED", "the goal was cancelled while %s ran" % TOOL)
            if now >= deadline:
                return error("TIMEOUT", "%s did not finish before its deadline" % TOOL)
            if now >= hold_until:
                break
            cancelled.wait(min(hold_until, deadline) / 1000 - time.time())
        notes.append(body["params"]["text"])
        return {"type": "result", "result": "noted #%d: %s" % (len(notes), body["params"]["text"])}
    finally:
        nc.unsubscribe(sid)
        cancelled_goals.pop(goal, None)


def serve_once(body):
    """At most one run per invocationId: a repeat waits for the run in progress and answers its output."""
    key = body["invocationId"]
    with records_lock:
        record = records.get(key)
        first = record is None
        if first:
            record = records[key] = {"done": threading.Event(), "output": None}
    if not first:
        if not record["done"].wait(max(0, body["deadline"] / 1000 - time.time())):
            return error("TIMEOUT", "the first run of %s is still going" % key)
        return dict(record["output"], replayed=True)
    output = run(body)
    if output["type"] == "error" and output["error"]["retryable"]:
        with records_lock:
            records.pop(key, None)  # nothing was written: a retry runs again
    record["output"] = output
    record["done"].set()
    return output


def on_invoke(_subject, reply, data, _headers):
    stats["num_requests"] += 1
    try:
        body = json.loads(data)
    except ValueError:
        return respond(reply, error("VALIDATION_FAILED", "the invocation is not valid JSON"))
    problem = check_invocation(body)
    if problem:
        return respond(reply, error("VALIDATION_FAILED", problem))
    problems = check_params(body["params"])
    if problems:
        return respond(reply, error("VALIDATION_FAILED", "invalid parameters for %s: %s" % (TOOL, "; ".join(problems))))
    if body["deadline"] <= time.time() * 1000:
        return respond(reply, error("TIMEOUT", "the deadline of %s passed before it started" % TOOL))
    threading.Thread(target=lambda: respond(reply, serve_once(body)), daemon=True).start()


def identity(kind):
    return {"type": "io.nats.micro.v1.%s_response" % kind, "name": SERVICE, "id": INSTANCE, "version": VERSION,
            "metadata": {"instance": INSTANCE, "language": "python"}}


def micro_answer(verb):
    if verb == "PING":
        return identity("ping")
    if verb == "INFO":
        return dict(identity("info"), description="NovelRAG example tool in plain Python",
                    endpoints=[{"name": TOOL, "subject": INVOKE, "queue_group": QUEUE, "metadata": METADATA}])
    return dict(identity("stats"), started=started, endpoints=[dict(
        {"name": TOOL, "subject": INVOKE, "queue_group": QUEUE, "processing_time": 0, "average_processing_time": 0},
        num_requests=stats["num_requests"], num_errors=stats["num_errors"], last_error=stats["last_error"])])


def on_micro(subject, reply, _data, _headers):
    if reply:
        nc.publish(reply, json.dumps(micro_answer(subject.split(".")[1])))


def announce(change):
    event = {"schemaVersion": 1, "change": change, "service": SERVICE, "instance": INSTANCE, "tools": [TOOL]}
    nc.publish("novelrag.tools.changed", json.dumps(event))


def main():
    global nc
    nc = NatsWire(os.environ.get("NATS_URL", "nats://127.0.0.1:4222"), SERVICE)
    for verb in ("PING", "INFO", "STATS"):
        for subject in ("$SRV." + verb, "$SRV.%s.%s" % (verb, SERVICE), "$SRV.%s.%s.%s" % (verb, SERVICE, INSTANCE)):
            nc.subscribe(subject, on_micro)
    endpoint = nc.subscribe(INVOKE, on_invoke, queue=QUEUE)
    nc.flush()
    announce("up")
    nc.flush()
    print("ready", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    while not stop.is_set() and not nc.closed.is_set():
        stop.wait(0.5)
    if not nc.closed.is_set():
        nc.unsubscribe(endpoint)
        announce("down")
        nc.close()


if __name__ == "__main__":
    main()
