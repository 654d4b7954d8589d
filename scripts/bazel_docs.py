#!/usr/bin/env python3
"""Generates docs/bazel-rules.md, the reference of the Bazel rules, from their definitions.

Stardoc needs its own repository and a newer Bazel than CI's 4.2.3, offline; instead this
evaluates the rules' files (bazel/defs.bzl, toolchain_repo.bzl, repositories.bzl,
extensions.bzl, BUILD.bazel) as Python, which reads Bazel's Starlark at the top level, with
stub Bazel globals that keep what `rule`, `provider`, `attr.*`, `repository_rule`,
`module_extension`, `tag_class` and the skylib flags are given: the docs come from the same
`doc =` strings and docstrings Bazel reads. Function bodies are never run.

Usage: scripts/bazel_docs.py [--check]   (--check: exit 1 if docs/bazel-rules.md is stale)
"""

import __future__
import difflib
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "bazel"
OUT = ROOT / "docs" / "bazel-rules.md"


class Obj:
    """A recorded call: its kind and arguments."""

    def __init__(self, kind, **kw):
        self.kind = kind
        self.__dict__.update(kw)


def _attr(kind):
    def make(doc="", **kw):
        return Obj("attr", type=kind, doc=doc, kw=kw)

    return make


class _AttrModule:
    def __getattr__(self, kind):
        return _attr(kind)


def _rule(implementation=None, doc="", attrs=None, **kw):
    return Obj("rule", doc=doc, attrs=attrs or {}, toolchains=kw.get("toolchains", []))


def _provider(doc="", fields=None, **_kw):
    return Obj("provider", doc=doc, fields=fields or {})


def _repository_rule(implementation=None, doc="", attrs=None, environ=(), **_kw):
    return Obj("repository_rule", doc=doc, attrs=attrs or {}, environ=list(environ))


def _tag_class(doc="", attrs=None):
    return Obj("tag_class", doc=doc, attrs=attrs or {})


def _module_extension(implementation=None, doc="", tag_classes=None, **_kw):
    return Obj("module_extension", doc=doc, tag_classes=tag_classes or {})


def _label(s):
    return s


class _Anything:
    """Stands for a loaded symbol whose value the docs do not need."""

    def __init__(self, name):
        self.name = name

    def __getattr__(self, _):
        return self


def _globals(namespace, flags):
    def load(_module, *symbols, **aliases):
        for s in symbols:
            namespace.setdefault(s, namespace.get(s, _Anything(s)))
        for alias, s in aliases.items():
            namespace.setdefault(alias, _Anything(s))

    def flag(kind):
        def make(name, build_setting_default=None, values=(), **_kw):
            flags.append(Obj(kind, name=name, default=build_setting_default, values=list(values)))

        return make

    g = {
        "load": load,
        "rule": _rule,
        "provider": _provider,
        "repository_rule": _repository_rule,
        "module_extension": _module_extension,
        "tag_class": _tag_class,
        "attr": _AttrModule(),
        "Label": _label,
        "string_flag": flag("string_flag"),
        "bool_flag": flag("bool_flag"),
        "package": lambda **_kw: None,
        "toolchain_type": lambda **_kw: None,
        "exports_files": lambda *_a, **_kw: None,
        "struct": lambda **kw: Obj("struct", **kw),
    }
    namespace.update(g)
    return namespace


def evaluate(path, flags=None):
    """The names a file defines (loads resolved to placeholders), in definition order."""
    ns = _globals({}, flags if flags is not None else [])
    before = set(ns)
    code = compile(path.read_text(), str(path), "exec", flags=__future__.annotations.compiler_flag)
    exec(code, ns)
    names = {k: v for k, v in ns.items() if k not in before and not k.startswith("_")}
    names["__doc__"] = ns.get("__doc__") or ""
    return names


def flag_comments(text):
    """The comment line just above each flag in BUILD.bazel, by flag name."""
    out = {}
    for m in re.finditer(r"# (.*)\n(?:string|bool)_flag\(\n\s+name = \"(\w+)\"", text):
        out[m.group(2)] = m.group(1)
    return out


def default_text(a):
    kw = a.kw
    if kw.get("mandatory"):
        return "required"
    if "default" in kw:
        d = kw["default"]
        if isinstance(d, bool):
            return "`%s`" % ("True" if d else "False")
        if isinstance(d, list):
            return "`[%s]`" % ", ".join('"%s"' % x for x in d) if d else "`[]`"
        return '`"%s"`' % d if isinstance(d, str) else "`%s`" % d
    return {"string": '`""`', "string_list": "`[]`", "label_list": "`[]`", "bool": "`False`"}.get(a.type, "`None`")


def attr_type(a):
    kw = a.kw
    t = a.type
    if t == "label" and kw.get("allow_single_file"):
        files = kw["allow_single_file"]
        return "file (%s)" % ", ".join("`%s`" % f for f in files) if isinstance(files, list) else "file"
    if t == "label" and kw.get("executable"):
        return "executable label"
    if t == "label" and kw.get("providers"):
        return "label (%s)" % ", ".join(getattr(p, "_doc_name", "provider") for p in kw["providers"])
    if t == "label_list" and kw.get("allow_files"):
        files = kw["allow_files"]
        return "files (%s)" % ", ".join("`%s`" % f for f in files) if isinstance(files, list) else "files"
    return t.replace("_", " ")


def cell(text):
    return " ".join(text.split()).replace("|", "\\|")


def attr_table(attrs, extra=()):
    rows = ["| attribute | type | default | description |", "|---|---|---|---|"]
    rows += ["| `%s` | %s | %s | %s |" % r for r in extra]
    for name in sorted(attrs):
        if name.startswith("_"):
            continue
        a = attrs[name]
        rows.append("| `%s` | %s | %s | %s |" % (name, attr_type(a), default_text(a), cell(a.doc)))
    return rows


def docstring(fn):
    """A macro's docstring: summary, body and its `Args:` as a table."""
    text = (fn.__doc__ or "").strip("\n")
    lines = text.splitlines()
    indent = min((len(l) - len(l.lstrip()) for l in lines[1:] if l.strip()), default=0)
    lines = [lines[0].strip()] + [l[indent:] for l in lines[1:]]
    body, args, name = [], [], None
    in_args = False
    for l in lines:
        if l.strip() == "Args:":
            in_args = True
            continue
        if in_args and l.startswith("  ") and not l.startswith("    "):
            name, _, desc = l.strip().partition(":")
            args.append([name, desc.strip()])
        elif in_args and l.startswith("    ") and args:
            args[-1][1] += " " + l.strip()
        elif not in_args:
            body.append(l)
    return "\n".join(body).strip(), args


def render():
    flags = []
    defs = evaluate(RULES / "defs.bzl")
    for name, v in defs.items():
        if getattr(v, "kind", None) == "provider":
            v._doc_name = "`%s`" % name
    repo_rules = evaluate(RULES / "toolchain_repo.bzl")
    repos = evaluate(RULES / "repositories.bzl")
    exts = evaluate(RULES / "extensions.bzl")
    build_text = (RULES / "BUILD.bazel").read_text()
    evaluate(RULES / "BUILD.bazel", flags)
    comments = flag_comments(build_text)

    out = [
        "# Bazel rules reference",
        "",
        "<!-- Generated by scripts/bazel_docs.py from bazel/*.bzl and bazel/BUILD.bazel; do not edit. -->",
        "",
        "Load the rules from `@rules_kiln//:defs.bzl`; set-up (WORKSPACE and bzlmod) and the",
        "example are in the README's *Bazel* section.",
        "",
    ]
    out += ["## Rules", ""]
    for name, v in defs.items():
        if getattr(v, "kind", None) != "rule":
            continue
        out += ["### `%s`" % name, "", v.doc.strip(), ""]
        extra = [("name", "name", "required", "A unique name for this target.")]
        out += attr_table(v.attrs, extra) + [""]
        if v.toolchains:
            out += ["Uses the toolchain `@rules_kiln//:toolchain_type` (a registered `kiln_toolchain`).", ""]
    out += ["## Providers", ""]
    for name, v in defs.items():
        if getattr(v, "kind", None) != "provider":
            continue
        out += ["### `%s`" % name, "", v.doc.strip(), "", "| field | description |", "|---|---|"]
        out += ["| `%s` | %s |" % (f, cell(d)) for f, d in sorted(v.fields.items())] + [""]
    out += [
        "## Build settings",
        "",
        "Flags of `@rules_kiln` (bazel_skylib `string_flag`/`bool_flag`), e.g.",
        "`bazel build //... --@rules_kiln//:worker_protocol=json`. The earlier",
        "`--define=kiln_*` spellings are refused with the flag that replaces them.",
        "",
        "| flag | values | default | what it does |",
        "|---|---|---|---|",
    ]
    for f in sorted(flags, key=lambda f: f.name):
        values = "`true`, `false`" if f.kind == "bool_flag" else ", ".join("`%s`" % v for v in f.values)
        default = ("`%s`" % str(f.default).lower()) if f.kind == "bool_flag" else "`%s`" % f.default
        out.append("| `--@rules_kiln//:%s` | %s | %s | %s |" % (f.name, values, default, cell(comments.get(f.name, ""))))
    out += ["", "## WORKSPACE set-up (`@rules_kiln//:repositories.bzl`)", ""]
    for name, fn in repos.items():
        if not callable(fn):
            continue
        body, args = docstring(fn)
        out += ["### `%s`" % name, "", body, ""]
        if args:
            out += ["| argument | description |", "|---|---|"]
            out += ["| `%s` | %s |" % (a, cell(d)) for a, d in args] + [""]
    out += ["## bzlmod set-up (`@rules_kiln//:extensions.bzl`)", ""]
    for name, v in exts.items():
        if getattr(v, "kind", None) != "module_extension":
            continue
        out += ["### Module extension `%s`" % name, "", v.doc.strip() or exts["__doc__"].strip(), ""]
        for tag, t in sorted(v.tag_classes.items()):
            out += ["#### Tag `%s.%s`" % (name, tag), "", t.doc.strip(), ""]
            out += attr_table(t.attrs) + [""]
    out += ["## Repository rules (`@rules_kiln//:toolchain_repo.bzl`)", ""]
    for name, v in repo_rules.items():
        if getattr(v, "kind", None) != "repository_rule":
            continue
        out += ["### `%s`" % name, "", v.doc.strip(), ""]
        out += attr_table(v.attrs, [("name", "name", "required", "The repository's name.")])
        if v.environ:
            out += ["", "Fetched again when these environment variables change: %s." % ", ".join("`%s`" % e for e in v.environ)]
        out.append("")
    text = "\n".join(out)
    text = re.sub(r"\n{3,}", "\n\n", text).rstrip("\n") + "\n"
    return text


def main():
    text = render()
    if sys.argv[1:] == ["--check"]:
        have = OUT.read_text() if OUT.exists() else ""
        if have != text:
            sys.stderr.writelines(difflib.unified_diff(have.splitlines(True), text.splitlines(True), str(OUT), "generated"))
            print("bazel_docs: %s is stale: run scripts/bazel_docs.py" % OUT.relative_to(ROOT), file=sys.stderr)
            return 1
        return 0
    if sys.argv[1:]:
        print(__doc__, file=sys.stderr)
        return 2
    OUT.write_text(text)
    print("bazel_docs: wrote %s" % OUT.relative_to(ROOT), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
