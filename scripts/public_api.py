#!/usr/bin/env python3
"""The public API of sketch-nostd as a sorted list of items, from rustdoc's JSON output.

    python3 scripts/public_api.py list JSON          # one item per line, sorted
    python3 scripts/public_api.py markdown BEFORE AFTER REV   # docs/api.md from two lists

scripts/public-api.sh runs rustdoc (nightly: its JSON output is unstable) for a commit and for the
working tree and writes docs/api.md with this script. Every public item is listed by the path a user
writes: modules, types, traits, functions, constants and macros; the inherent methods and
associated constants of types (with their parameters and return types); trait implementations
(without the auto traits and blanket ones); and re-exports (`pub use`), with what they point to.
"""

import json
import sys


def render_type(t):
    """A type of rustdoc's JSON as Rust source, paths shortened to their last segment."""
    if t is None:
        return "_"
    (kind, v), = t.items()
    if kind == "primitive":
        return v
    if kind == "generic":
        return v
    if kind == "resolved_path":
        return v["path"].split("::")[-1] + render_args(v.get("args"))
    if kind == "borrowed_ref":
        lt = (v["lifetime"] + " ") if v.get("lifetime") else ""
        return "&" + lt + ("mut " if v["is_mutable"] else "") + render_type(v["type"])
    if kind == "raw_pointer":
        return ("*mut " if v["is_mutable"] else "*const ") + render_type(v["type"])
    if kind == "slice":
        return "[" + render_type(v) + "]"
    if kind == "array":
        return "[" + render_type(v["type"]) + "; " + v["len"] + "]"
    if kind == "tuple":
        return "(" + ", ".join(render_type(x) for x in v) + ")"
    if kind == "impl_trait":
        return "impl " + " + ".join(render_bound(b) for b in v)
    if kind == "dyn_trait":
        return "dyn " + " + ".join(render_path(p["trait"]) for p in v["traits"])
    if kind == "qualified_path":
        trait = render_path(v["trait"]) if v.get("trait") else "_"
        return "<" + render_type(v["self_type"]) + " as " + trait + ">::" + v["name"]
    if kind == "function_pointer":
        return "fn(..)"
    return kind


def render_path(p):
    return p["path"].split("::")[-1] + render_args(p.get("args"))


def render_args(args):
    if not args or "angle_bracketed" not in args:
        return ""
    parts = []
    for a in args["angle_bracketed"]["args"]:
        (k, v), = a.items()
        if k == "type":
            parts.append(render_type(v))
        elif k == "const":
            parts.append(v.get("expr", "_"))
        elif k == "lifetime":
            parts.append(v)
        else:
            parts.append("_")
    for c in args["angle_bracketed"].get("constraints", []):
        parts.append(c["name"] + " = ..")
    return "<" + ", ".join(parts) + ">" if parts else ""


def render_bound(b):
    if "trait_bound" in b:
        return render_path(b["trait_bound"]["trait"])
    if "outlives" in b:
        return b["outlives"]
    return "?"


def generic_names(generics):
    names = [p["name"] for p in generics["params"]
             if "lifetime" not in p["kind"] and not p["kind"].get("type", {}).get("is_synthetic")]
    return "<" + ", ".join(names) + ">" if names else ""


def render_fn(name, f):
    sig = f["sig"]
    inputs = []
    for pname, ptype in sig["inputs"]:
        if pname == "self":
            r = render_type(ptype)
            inputs.append({"Self": "self", "&Self": "&self", "&mut Self": "&mut self"}.get(r, "self: " + r))
        else:
            inputs.append(pname + ": " + render_type(ptype))
    out = " -> " + render_type(sig["output"]) if sig.get("output") else ""
    const = "const " if f["header"]["is_const"] else ""
    return f"{const}fn {name}{generic_names(f['generics'])}({', '.join(inputs)}){out}"


def items(doc):
    index, root = doc["index"], str(doc["root"])
    lines = set()
    seen = set()

    def item(i):
        return index.get(str(i))

    def walk(module_id, path):
        if module_id in seen:
            return
        seen.add(module_id)
        m = item(module_id)
        for child_id in m["inner"]["module"]["items"]:
            c = item(child_id)
            if c is None or c["visibility"] != "public":
                continue
            (kind, v), = c["inner"].items()
            name = c["name"]
            full = f"{path}::{name}" if name else path
            if kind == "module":
                lines.add(f"pub mod {full}")
                walk(str(child_id), full)
            elif kind == "use":
                target = v["source"]
                lines.add(f"pub use {path}::{v['name']}{'::*' if v['is_glob'] else ''} = {target}")
            elif kind in ("struct", "enum", "union"):
                lines.add(f"pub {kind} {full}{generic_names(v['generics'])}")
                if kind == "enum":
                    for var in v["variants"]:
                        lines.add(f"pub variant {full}::{item(var)['name']}")
                impls(full, v["impls"])
            elif kind == "trait":
                lines.add(f"pub trait {full}{generic_names(v['generics'])}")
                for a in v["items"]:
                    ai = item(a)
                    (ak, av), = ai["inner"].items()
                    if ak == "function":
                        lines.add(f"pub {render_fn(full + '::' + ai['name'], av)}")
                    else:
                        lines.add(f"pub {ak} {full}::{ai['name']}")
            elif kind == "function":
                lines.add(f"pub {render_fn(full, v)}")
            elif kind == "type_alias":
                lines.add(f"pub type {full}{generic_names(v['generics'])} = {render_type(v['type'])}")
            elif kind in ("constant", "static"):
                ty = render_type(v.get("type"))
                lines.add(f"pub {'const' if kind == 'constant' else 'static'} {full}: {ty}")
            elif kind in ("macro", "proc_macro"):
                lines.add(f"pub macro {full}!")
            else:
                lines.add(f"pub {kind} {full}")

    def impls(full, impl_ids):
        for impl_id in impl_ids:
            im = item(impl_id)["inner"]["impl"]
            if im["is_synthetic"] or im.get("blanket_impl"):
                continue
            if im["trait"] is None:
                for a in im["items"]:
                    ai = item(a)
                    if ai["visibility"] != "public":
                        continue
                    (ak, av), = ai["inner"].items()
                    if ak == "function":
                        lines.add(f"pub {render_fn(full + '::' + ai['name'], av)}")
                    elif ak == "assoc_const":
                        lines.add(f"pub const {full}::{ai['name']}: {render_type(av['type'])}")
                    else:
                        lines.add(f"pub {ak} {full}::{ai['name']}")
            else:
                lines.add(f"impl {render_path(im['trait'])} for {full}")

    walk(root, index[root]["name"])
    return sorted(lines)


def markdown(before, after, rev):
    b, a = set(before), set(after)
    removed, added = sorted(b - a), sorted(a - b)
    out = [
        "# Public API of sketch-nostd",
        "",
        f"Generated by `scripts/public-api.sh` (rustdoc JSON, features `wire` and `alloc`): the items at commit "
        f"`{rev}` and in this tree. Every public module, type, trait, function, constant and macro by the path",
        "a user writes, the inherent methods and associated constants of types with their parameters, the",
        "trait implementations (not the auto and blanket ones) and the re-exports. Do not edit by hand: run",
        "the script (`scripts/public-api.sh --check` fails if this file is out of date). Items are listed",
        "under the module that defines them and `pub use` lines give their other paths, so an item moved",
        "behind a re-export shows as gone, new, and a `pub use` at its old path.",
        "",
        f"{len(before)} items at `{rev}`, {len(after)} now: {len(removed)} gone or changed, {len(added)} new or changed.",
        "",
        f"## Gone or changed since `{rev}`",
        "",
        "```text",
        *removed,
        "```",
        "",
        f"## New or changed since `{rev}`",
        "",
        "```text",
        *added,
        "```",
        "",
        "## Now",
        "",
        "```text",
        *after,
        "```",
        "",
    ]
    return "\n".join(out)


def main():
    cmd = sys.argv[1]
    if cmd == "list":
        with open(sys.argv[2]) as f:
            print("\n".join(items(json.load(f))))
    elif cmd == "markdown":
        with open(sys.argv[2]) as f:
            before = f.read().split("\n")
        with open(sys.argv[3]) as f:
            after = f.read().split("\n")
        before, after = [x for x in before if x], [x for x in after if x]
        sys.stdout.write(markdown(before, after, sys.argv[4]))
    else:
        sys.exit("usage: public_api.py list JSON | markdown BEFORE AFTER REV")


if __name__ == "__main__":
    main()
