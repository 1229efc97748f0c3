#!/usr/bin/env python3
"""Checks for tests/stress/run (reads files only, never writes the store
except `add-unknown`, which runs before any concurrent writer).

  check.py config PATH          config.json parses as a JSON object
  check.py watch DIR STOPFILE   scan DIR's config.json and thread files until
                                STOPFILE exists; print "N scans, M bad"
  check.py add-unknown PATH     add unknown keys (first, middle, last)
  check.py has-unknown PATH     they are still there, same values, and every
                                key present then is in the same order
"""
import glob
import json
import os
import sys
import time

UNKNOWN = [
    ("aaUnknownFirst", {"keep": [1, 2.5, None, True], "nested": {"x": "é"}}),
    ("mmUnknownMiddle", "text"),
    ("zzUnknownLast", []),
]
ORDER = ".order"  # the key order at add-unknown time, next to PATH


def check_config(path):
    if not os.path.exists(path):
        return True
    try:
        with open(path, encoding="utf-8") as f:
            v = json.load(f)
    except ValueError as e:
        print("config.json: %s" % e)
        return False
    if not isinstance(v, dict):
        print("config.json: not an object")
        return False
    return True


def thread_ok(data):
    """A complete thread file: opening and closing lines, a final newline."""
    if not data.startswith(b"---\n") and not data.startswith(b"---\r\n"):
        return False
    rest = data[4:]
    return (rest.startswith(b"---\n") or b"\n---\n" in rest
            or b"\n---\r\n" in rest) and data.endswith(b"\n")


def watch(folder, stop):
    scans = bad = 0
    deadline = time.time() + 1200
    while not os.path.exists(stop) and time.time() < deadline:
        problems = []
        cfg = os.path.join(folder, "config.json")
        try:
            with open(cfg, "rb") as f:
                raw = f.read()
            try:
                json.loads(raw.decode("utf-8"))
            except ValueError as e:
                problems.append("config.json partial: %s" % e)
        except FileNotFoundError:
            pass
        for path in glob.glob(os.path.join(folder, "threads", "*", "*.md")):
            try:
                with open(path, "rb") as f:
                    data = f.read()
            except FileNotFoundError:
                continue
            if not thread_ok(data):
                problems.append("%s partial (%d bytes)" % (path, len(data)))
        scans += 1
        if problems:
            bad += 1
            for p in problems[:3]:
                print(p)
    print("%d scans, %d bad" % (scans, bad))
    return bad == 0


def add_unknown(path):
    with open(path, encoding="utf-8") as f:
        pairs = list(json.load(f).items())  # dicts keep the file's order
    pairs.insert(0, UNKNOWN[0])
    pairs.insert(len(pairs) // 2, UNKNOWN[1])
    pairs.append(UNKNOWN[2])
    text = json.dumps(dict(pairs), indent=2, ensure_ascii=False) + "\n"
    with open(path + ".stress", "w", encoding="utf-8") as f:
        f.write(text)
    os.rename(path + ".stress", path)
    with open(path + ORDER, "w") as f:
        json.dump([k for k, _ in pairs], f)
    return True


def has_unknown(path):
    with open(path, encoding="utf-8") as f:
        v = json.load(f)
    keys = list(v)
    ok = True
    for k, want in UNKNOWN:
        if v.get(k, "<missing>") != want:
            print("%s: %r, want %r" % (k, v.get(k, "<missing>"), want))
            ok = False
    with open(path + ORDER) as f:
        before = json.load(f)
    kept = [k for k in keys if k in before]
    if kept != before:
        print("key order changed: %r -> %r" % (before, kept))
        ok = False
    return ok


def main(argv):
    cmd = argv[1]
    if cmd == "config":
        return check_config(argv[2])
    if cmd == "watch":
        return watch(argv[2], argv[3])
    if cmd == "add-unknown":
        return add_unknown(argv[2])
    if cmd == "has-unknown":
        return has_unknown(argv[2])
    raise SystemExit("unknown command %s" % cmd)


if __name__ == "__main__":
    sys.exit(0 if main(sys.argv) else 1)
