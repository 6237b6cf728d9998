#!/usr/bin/env bash
# The results of run, compare and sweep against the JSON Schema of a result
# (schema/result.schema.json, installed as share/trainsim/schema/): every
# JSON result validates; every "ok" row of a sweep's CSV, read back as a
# result (the scenario's key-path columns nested, the axes among them, the
# result columns typed), validates too. Needs python3's jsonschema (Debian
# python3-jsonschema, which sh cmake/deps.sh test installs): fails without
# it, as a schema left unchecked would pass unseen.
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/clilib.bash" "$@"

if ! python3 -c 'import jsonschema' 2>/dev/null; then
	echo "FAIL: python3 has no jsonschema module (sh cmake/deps.sh test, or apt-get install python3-jsonschema); the result schema cannot be checked"
	exit 1
fi
SCHEMA=$SRC/schema/result.schema.json
EX=$SRC/examples
SCEN=$SRC/configs/scenarios/default.cfg

# a run in phases: "phases" in the result and in its scenario
cat >"$TMP/phased.cfg" <<'CFG'
name = "phased";
model = "gpt3-1.3b"; cluster = "dgx-a100-80gb";
training = { global_batch = 256; micro_batch = 4; seq_len = 1024; };
phases = (
  { name = "short"; tokens = 1.0e9; },
  { name = "long"; tokens = 2.0e8; seq_len = 2048; }
);
CFG

VALIDATE='
import json, sys, jsonschema
schema = json.load(open(sys.argv[2]))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
d = json.load(open(sys.argv[1]))
docs = d if isinstance(d, list) else [d]
assert docs, "no result"
for x in docs:
    errs = sorted(v.iter_errors(x), key=lambda e: list(e.path))
    assert not errs, "%s: %s at %s" % (x.get("name"), errs[0].message, "/".join(map(str, errs[0].path)))
'

ok default run "$SCEN" --format json && py default "$VALIDATE" "$SCHEMA"
ok samples run "$EX/3d-detection-1-vs-4/gpu4.cfg" --format json && py samples "$VALIDATE" "$SCHEMA"
ok nofit run "$SCEN" --set model=gpt3-175b --format json && py nofit "$VALIDATE" "$SCHEMA"
ok phased run "$TMP/phased.cfg" --format json && py phased "$VALIDATE" "$SCHEMA"
py phased 'import json, sys
d = json.load(open(sys.argv[1]))
assert [p["name"] for p in d["scenario"]["phases"]] == ["short", "long"], d["scenario"].get("phases")
assert [p["name"] for p in d["phases"]] == ["short", "long"], d["phases"]
assert d["scenario"]["phases"][1]["training"]["seq_len"] == 2048, d["scenario"]["phases"][1]'
ok compare compare "$EX/4gpu-vs-16node/box-4xa100.cfg" "$EX/4gpu-vs-16node/dgx16-ib.cfg" \
	"$EX/buyers-guide/workstation.cfg" --format json && py compare "$VALIDATE" "$SCHEMA"

# the schema is not a rubber stamp: a count written as a float, a missing
# scenario and an unknown key are refused
py default 'import json, sys, jsonschema
v = jsonschema.Draft202012Validator(json.load(open(sys.argv[2])))
d = json.load(open(sys.argv[1]))
for change in (lambda x: x.update(steps=float(x["steps"]) + 0.5), lambda x: x.pop("scenario"),
               lambda x: x.update({"memory(GiB)": 1.0}), lambda x: x["scenario"]["parallel"].update(tp=1.5)):
    y = json.loads(json.dumps(d))
    change(y)
    assert list(v.iter_errors(y)), "accepted a broken result"' "$SCHEMA"

# the same result in CSV: the scenario columns by key path, then the result
ok csv run "$SCEN" --format csv
py csv 'import csv, json, sys
head, row = list(csv.reader(open(sys.argv[1])))
r = dict(zip(head, row))
d = json.load(open(sys.argv[2]))
assert head[0] == "model.name" and head.index("model.name") < head.index("name"), head[:3]
assert r["model.name"] == d["scenario"]["model"]["name"] == "gpt3-1.3b", r["model.name"]
assert r["parallel.tp"] == str(d["scenario"]["parallel"]["tp"]) and r["training.global_batch"] == "512", r
assert r["steps"] == str(d["steps"]) and "." not in r["steps"], r["steps"]
assert not [k for k in head if "(" in k], head' "$TMP/default"

# a sweep: every ok row, read back as a result, validates
cat >"$TMP/sweep.cfg" <<CFG
base = "$SCEN";
axes = { nodes = [1, 2]; parallel = { tp = [1, 2]; }; };
CFG
ok sweep sweep "$TMP/sweep.cfg" -o -
py sweep 'import csv, json, sys, jsonschema
schema = json.load(open(sys.argv[2]))
v = jsonschema.Draft202012Validator(schema)
lines = open(sys.argv[1]).read().splitlines()
rows = list(csv.reader(l for l in lines if not l.startswith("#")))
head, body = rows[0], rows[1:]
assert len(body) == 4 and all(len(b) == len(head) for b in body), (len(body), head)
assert head.count("nodes") == 1 and head.count("parallel.tp") == 1, "an axis twice: %s" % head
status = head.index("status")
props = schema["properties"]
def typed(text, kind):
    if text == "":
        return [] if kind == "array" else None
    if kind == "boolean":
        return {"true": True, "false": False}[text]
    if kind == "integer":
        return int(text)  # fails on 12.0: counts must be written as integers
    if kind == "array":
        return [t.strip() for t in text.split(",") if t.strip()]
    if kind == "string":
        return text
    return float(text)
def scalar(text):
    for f in (int, float):
        try:
            return f(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text, text)
def put(obj, path, val):
    *groups, last = path.split(".")
    for g in groups:
        obj = obj.setdefault(g, {})
    obj[last] = val
for b in body:
    assert b[status] == "ok", b[status]
    res = {"trainsim_version": "0.0.0", "schema_version": schema["properties"]["schema_version"]["const"], "scenario": {}}
    for i, (k, t) in enumerate(zip(head, b)):
        if k in ("point", "status", "", "sweep_digest"):
            continue
        top = k.split(".")[0]
        if i < status or top not in props:  # an axis or a scenario column
            if t != "":
                put(res["scenario"], k, scalar(t))
            continue
        p = props[top]
        if top == "memory_breakdown":
            put(res, k, typed(t, "number"))
            continue
        kind = p.get("type", "string")
        kind = kind[0] if isinstance(kind, list) else kind
        res[k] = typed(t, kind)
    res["scenario"]["name"] = res["name"]
    errs = list(v.iter_errors(res))
    assert not errs, "point %s: %s at %s" % (b[0], errs[0].message, "/".join(map(str, errs[0].path)))
' "$SCHEMA"

# installed beside the other data
grep -q 'schema' "$SRC/CMakeLists.txt" || fail "CMakeLists.txt does not install schema/"
finish
