#!/usr/bin/env python3
"""Writes tests/proto_independent/objects.rs: for every kind kinformer's protobuf tables speak,
an object with every field set, as a `k8s-pb` (prost) struct literal and as the JSON Kubernetes
prints for it, plus the field numbers of every message reachable from those kinds.

Independent of kinformer's tables by construction: field numbers and wire types come from the
`k8s-pb` crate's prost bindings (generated from Kubernetes' `generated.proto`), JSON names and
which types are API resources from `k8s-openapi`'s serde code. Run it when `k8s-pb` or
`k8s-openapi` is bumped:

    python3 tests/proto_independent/generate.py ~/.cargo/registry/src/*/k8s-pb-0.9.0 \
        ~/.cargo/registry/src/*/k8s-openapi-0.29.0 > tests/proto_independent/objects.rs

The JSON uses `k8s-openapi`'s newest API version (the one `k8s-pb` was generated from); the
second JSON, `v1_33`, leaves out what the crate's `v1_33` types (the project's feature) do not
have, so the test can check it is exactly what `k8s-openapi` itself serializes.
"""

import json
import os
import re
import sys

PB, OA = sys.argv[1], sys.argv[2]
OA_NEW = "v1_35"
OA_OLD = "v1_33"

# (module path in k8s-pb, message, apiVersion, kind): the kinds of `schema::kind`.
KINDS = [
    ("api::core::v1", "Pod", "v1", "Pod"),
    ("api::core::v1", "Namespace", "v1", "Namespace"),
    ("api::core::v1", "ConfigMap", "v1", "ConfigMap"),
    ("api::core::v1", "Node", "v1", "Node"),
    ("api::core::v1", "Service", "v1", "Service"),
    ("api::core::v1", "Endpoints", "v1", "Endpoints"),
    ("api::core::v1", "Event", "v1", "Event"),
    ("api::core::v1", "Secret", "v1", "Secret"),
    ("api::core::v1", "ServiceAccount", "v1", "ServiceAccount"),
    ("api::core::v1", "PersistentVolumeClaim", "v1", "PersistentVolumeClaim"),
    ("api::core::v1", "PersistentVolume", "v1", "PersistentVolume"),
    ("api::core::v1", "ResourceQuota", "v1", "ResourceQuota"),
    ("api::core::v1", "LimitRange", "v1", "LimitRange"),
    ("api::apps::v1", "Deployment", "apps/v1", "Deployment"),
    ("api::apps::v1", "ReplicaSet", "apps/v1", "ReplicaSet"),
    ("api::apps::v1", "StatefulSet", "apps/v1", "StatefulSet"),
    ("api::apps::v1", "DaemonSet", "apps/v1", "DaemonSet"),
    ("api::batch::v1", "Job", "batch/v1", "Job"),
    ("api::batch::v1", "CronJob", "batch/v1", "CronJob"),
    ("api::networking::v1", "Ingress", "networking.k8s.io/v1", "Ingress"),
    ("api::networking::v1", "NetworkPolicy", "networking.k8s.io/v1", "NetworkPolicy"),
    ("api::policy::v1", "PodDisruptionBudget", "policy/v1", "PodDisruptionBudget"),
    ("api::autoscaling::v2", "HorizontalPodAutoscaler", "autoscaling/v2", "HorizontalPodAutoscaler"),
    ("api::rbac::v1", "Role", "rbac.authorization.k8s.io/v1", "Role"),
    ("api::rbac::v1", "RoleBinding", "rbac.authorization.k8s.io/v1", "RoleBinding"),
    ("api::rbac::v1", "ClusterRole", "rbac.authorization.k8s.io/v1", "ClusterRole"),
    ("api::rbac::v1", "ClusterRoleBinding", "rbac.authorization.k8s.io/v1", "ClusterRoleBinding"),
    ("api::storage::v1", "StorageClass", "storage.k8s.io/v1", "StorageClass"),
    ("api::discovery::v1", "EndpointSlice", "discovery.k8s.io/v1", "EndpointSlice"),
    ("api::coordination::v1", "Lease", "coordination.k8s.io/v1", "Lease"),
    ("api::scheduling::v1", "PriorityClass", "scheduling.k8s.io/v1", "PriorityClass"),
]

META = "apimachinery::pkg::apis::meta::v1"
TIME = META + "::Time"
MICRO_TIME = META + "::MicroTime"
FIELDS_V1 = META + "::FieldsV1"
DURATION = META + "::Duration"
QUANTITY = "apimachinery::pkg::api::resource::Quantity"
INT_OR_STRING = "apimachinery::pkg::util::intstr::IntOrString"
RAW_EXTENSION = "apimachinery::pkg::runtime::RawExtension"

# ------------------------------------------------------------------------------------------
# k8s-pb: message path -> [(rust field, prost kind, label, tag, rust type)]

ATTR = re.compile(r'#\[prost\((\w+)(?: = "([^"]*)")?(?:, (optional|repeated|required))?(?:, packed = "false")?(?:, boxed)?, tag = "(\d+)"\)\]')
FIELD = re.compile(r"pub (r#)?(\w+): (.+),$")


def parse_pb():
    msgs = {}
    root = os.path.join(PB, "src")
    for dirpath, _, files in os.walk(root):
        if "mod.rs" not in files:
            continue
        mod = os.path.relpath(dirpath, root).replace(os.sep, "::")
        lines = open(os.path.join(dirpath, "mod.rs")).read().split("\n")
        cur = None
        attr = None
        pending = ""
        for line in lines:
            line = line.strip()
            # rustfmt wraps long field declarations: join them up to their closing comma.
            if pending or (attr and line.startswith("pub ") and not FIELD.match(line)):
                pending += (" " if pending.endswith(":") else "") + line
                if not FIELD.match(pending) or pending.count("<") != pending.count(">"):
                    continue
                line, pending = pending, ""
            m = re.match(r"pub struct (\w+) \{", line)
            if m:
                cur = mod + "::" + m.group(1)
                msgs[cur] = []
                continue
            if line == "}":
                cur = None
                continue
            if cur is None:
                continue
            m = ATTR.match(line)
            if m:
                attr = m.groups()
                continue
            m = FIELD.match(line)
            if m and attr:
                kind, arg, label, tag = attr
                msgs[cur].append((m.group(2), m.group(1) or "", kind, arg, label, int(tag), m.group(3), mod))
                attr = None
    return msgs


def resolve(ty, mod):
    """A message type written in `mod` as a full path from the crate root."""
    ty = ty.strip().rstrip(",").strip()
    parts = mod.split("::")
    while ty.startswith("super::"):
        ty = ty[len("super::"):]
        parts = parts[:-1]
    return "::".join(parts + [ty]) if parts else ty


def inner(ty, wrapper):
    ty = ty.replace(" ", "")
    assert ty.startswith(wrapper + "<") and ty.endswith(">"), (ty, wrapper)
    return ty[len(wrapper) + 1 : -1].rstrip(",")


# ------------------------------------------------------------------------------------------
# k8s-openapi: (dir, struct) -> {normalized rust field: json name}, resource (apiVersion, kind)


def parse_oa(version):
    structs = {}
    root = os.path.join(OA, "src", version)
    for dirpath, _, files in os.walk(root):
        d = os.path.relpath(dirpath, root).replace(os.sep, "::")
        for f in files:
            text = open(os.path.join(dirpath, f)).read()
            m = re.search(r"^pub struct (\w+)", text, re.M)
            if not m:
                continue
            names = {}
            for jm in re.finditer(r'"([^"]+)" => Field::Key_(\w+),', text):
                names[norm(jm.group(2))] = jm.group(1)
            res = None
            rm = re.search(r'impl crate::Resource for \w+ \{\s*const API_VERSION: &\'static str = "([^"]*)";\s*const GROUP[^;]*;\s*const KIND: &\'static str = "([^"]*)"', text)
            if rm:
                res = (rm.group(1), rm.group(2))
            # k8s-pb spells acronyms as words (`GcePersistentDisk...`), k8s-openapi as Go does.
            structs[(d + "::" + m.group(1)).lower()] = (names, res)
    return structs


def norm(rust_name):
    return rust_name.replace("_", "").lower()


# ------------------------------------------------------------------------------------------

PBM = parse_pb()
OAN = parse_oa(OA_NEW)
OAO = parse_oa(OA_OLD)
SCHEMA = {}  # message -> [(tag, json name or "", shape, repeated)]
SKIPPED = []  # k8s-pb fields without a JSON name in k8s-openapi (newer than its newest version)
FNS = {}  # (message, parent) -> generated function name
BODIES = []

SPECIAL = {
    TIME: "time",
    MICRO_TIME: "micro_time",
    QUANTITY: "quantity",
    INT_OR_STRING: "int_or_string",
    RAW_EXTENSION: "raw_extension",
    FIELDS_V1: "fields_v1",
}
SCALAR = {"string": "string", "int32": "int32", "int64": "int64", "bool": "boolean", "bytes": "bytes"}


def call(fn):
    """A call of a generated function (`m_…(c)`) or of a value the counter makes (`c.time()`)."""
    return fn + "()" if fn.startswith("c.") else fn + "(c)"


def fn_for(path, stack, parent=None):
    """The name of the function that fills message `path` (generated on first use). `parent`: the
    k8s-openapi struct whose JSON inlines this message (k8s-openapi has no type of its own)."""
    if path == DURATION:
        raise SystemExit("metav1.Duration is not in the kinds' messages (add its JSON form)")
    if path in SPECIAL:
        return "c." + SPECIAL[path]
    key = (path, parent)
    if key in FNS:
        return FNS[key]
    if path in stack:
        raise SystemExit(f"recursive message {path}")
    name = "m_" + re.sub(r"\W+", "_", path.replace("::", "_")).lower() + ("_in_" + parent.split("::")[-1].lower() if parent else "")
    FNS[key] = name
    stack = stack + [path]
    names, res = OAN.get((parent or path).lower(), ({}, None))
    old = OAO.get((parent or path).lower())
    if parent:
        res = None
    body = [
        f"fn {name}(c: &mut C) -> (::k8s_pb::{path}, Value, Value) {{",
        f"    let mut m = ::k8s_pb::{path}::default();",
        "    let (mut js, mut jo) = (Map::new(), Map::new());",
    ]
    if res:
        body.append(f"    js.insert(\"apiVersion\".into(), {json.dumps(res[0])}.into());")
        body.append(f"    js.insert(\"kind\".into(), {json.dumps(res[1])}.into());")
        body.append("    jo.clone_from(&js);")
    schema = SCHEMA.setdefault(path, [])
    fill = not schema
    for (fname, raw, kind, arg, label, tag, ty, mod) in PBM[path]:
        json_name = names.get(norm(fname))
        field = raw + fname
        inline = False
        if kind == "message" and label != "repeated" and json_name is None:
            sub = resolve(inner(ty, "::core::option::Option"), mod)
            if sub in PBM and all(norm(f[0]) in names for f in PBM[sub]):
                inline = True
        shape, target = kind, None
        if kind == "message":
            target = resolve(inner(ty, "::prost::alloc::vec::Vec" if label == "repeated" else "::core::option::Option"), mod)
            shape = ("inline:" if inline else "msg:") + target
        elif kind == "btree_map":
            k, v = [x.strip() for x in arg.split(",")]
            assert k == "string", arg
            if v == "message":
                target = resolve(ty[ty.index(",") + 1 : -1], mod)
                shape = "map:" + target
            else:
                shape = "map:" + v
        if fill:
            schema.append((tag, json_name or "", shape, label == "repeated"))
        if json_name is None and not inline:
            SKIPPED.append(f"{path}.{fname} = {tag}")
            continue
        in_old = "true" if old is not None and (inline or norm(fname) in old[0]) else "false"
        if inline:
            sub_fn = fn_for(target, stack, target if target.lower() in OAN else (parent or path))
            body.append(f"    let (v, j, o) = {call(sub_fn)};")
            body.append(f"    m.{field} = Some(v);")
            body.append(f"    merge(&mut js, &mut jo, j, o, {in_old});")
            continue
        if kind == "message":
            val = call(fn_for(target, stack))
        elif kind == "btree_map":
            v = arg.split(",")[1].strip()
            val = call(fn_for(target, stack)) if target else f"c.{SCALAR[v]}()"
        else:
            val = f"c.{SCALAR[kind]}()"
        body.append(f"    let (v, j, o) = {val};")
        if kind == "btree_map":
            body.append("    let (key, v, j, o) = c.map_entry(v, j, o);")
            body.append(f"    m.{field} = ::std::collections::BTreeMap::from([(key, v)]);")
        elif label == "repeated":
            body.append(f"    m.{field} = vec![v];")
            body.append("    let (j, o) = (Value::Array(vec![j]), Value::Array(vec![o]));")
        else:
            body.append(f"    m.{field} = Some(v);")
        body.append(f"    field(&mut js, &mut jo, {json.dumps(json_name)}, j, o, {in_old});")
    body.append("    (m, Value::Object(js), Value::Object(jo))")
    body.append("}")
    BODIES.append("\n".join(body))
    return name


out = [
    "// @generated by tests/proto_independent/generate.py from the k8s-pb and k8s-openapi crates' sources.",
    "// Do not edit: run the script (its doc says how).",
    "#![allow(clippy::field_reassign_with_default)]",
    "",
    "use super::{C, field, merge};",
    "use serde_json::{Map, Value};",
    "",
    "/// (apiVersion, kind, k8s-pb message, a function giving the object with every field set, its",
    "/// JSON, and its JSON with only the fields of k8s-openapi's `v1_33` types).",
    "#[allow(clippy::type_complexity)]",
    "pub const KINDS: &[(&str, &str, &str, fn(&mut C) -> (Vec<u8>, Value, Value))] = &[",
]
for mod, msg, api_version, kind in KINDS:
    path = f"{mod}::{msg}"
    fn = fn_for(path, [])
    out.append(
        f"    ({json.dumps(api_version)}, {json.dumps(kind)}, {json.dumps(path)}, |c| {{\n        let (m, j, o) = {fn}(c);\n        (::prost::Message::encode_to_vec(&m), j, o)\n    }}),"
    )
out.append("];")
out.append("")
out.extend(BODIES)
out.append("")
out.append("/// Every message reachable from the kinds, as k8s-pb numbers its fields: (message, [(number,")
out.append("/// JSON name (empty: none in k8s-openapi), shape, repeated)]). Shapes: a protobuf scalar type,")
out.append("/// `msg:`/`inline:`/`map:` and the message path, or `map:` and the value's scalar type.")
out.append("#[allow(clippy::type_complexity)]")
out.append("pub const MESSAGES: &[(&str, &[(u32, &str, &str, bool)])] = &[")
for path in sorted(SCHEMA):
    out.append(f"    ({json.dumps(path)}, &[")
    for t, n, sh, r in SCHEMA[path]:
        out.append(f"        ({t}, {json.dumps(n)}, {json.dumps(sh)}, {str(r).lower()}),")
    out.append("    ]),")
out.append("];")
out.append("")
out.append("/// k8s-pb fields that k8s-openapi has no JSON name for (left unset above).")
out.append("pub const NO_JSON_NAME: &[&str] = &[")
for s in SKIPPED:
    out.append(f"    {json.dumps(s)},")
out.append("];")
print("\n".join(out))
