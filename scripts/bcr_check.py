#!/usr/bin/env python3
"""Checks the Bazel Central Registry templates (.bcr/) against what publish-to-bcr and the
BCR's presubmit read, as far as a machine without bzlmod can: `.bcr/config.yml`'s module
roots each have a MODULE.bazel and the three templates; metadata.template.json has the
registry's fields (maintainers, `github:` repository, empty versions); source.template.json
names a release URL by its placeholders and strips down to the module root; presubmit.yml's
test module exists below the module root, depends on the module through a
local_path_override that leads back to it, and every task names a platform, a Bazel
version and targets; the module's version is kiln's.

Needs PyYAML (BuildGrid's venv has it). Usage: bcr_check.py REPO_ROOT
"""

import json
import re
import sys
from pathlib import Path

import yaml

PLACEHOLDERS = {"{OWNER}", "{REPO}", "{VERSION}", "{TAG}"}


def fail(msg):
    print("bcr_check: FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def expect(cond, msg):
    if not cond:
        fail(msg)


def module_call(text, fn):
    """The keyword arguments of the first `fn(...)` call in a MODULE.bazel (string values)."""
    m = re.search(r"^%s\((.*?)\)" % fn, text, re.S | re.M)
    if not m:
        return None
    return dict(re.findall(r'(\w+)\s*=\s*"([^"]*)"', m.group(1)))


def check_module_root(root, rel):
    mod_dir = root / rel
    module = (mod_dir / "MODULE.bazel").read_text()
    decl = module_call(module, "module")
    expect(decl and decl.get("name"), f"{rel}/MODULE.bazel: no module(name = ...)")
    cargo = (root / "Cargo.toml").read_text()
    version = re.search(r'\[workspace\.package\][^\[]*?version = "([^"]+)"', cargo, re.S).group(1)
    expect(decl.get("version") == version, f"{rel}/MODULE.bazel: version {decl.get('version')} is not kiln's {version}")
    tpl = root / ".bcr" / rel if rel != "." else root / ".bcr"

    meta = json.loads((tpl / "metadata.template.json").read_text())
    for key in ["homepage", "maintainers", "repository", "versions", "yanked_versions"]:
        expect(key in meta, f"metadata.template.json: no `{key}`")
    expect(meta["versions"] == [] and meta["yanked_versions"] == {}, "metadata: versions are filled by the app")
    expect(meta["maintainers"] and all({"name", "github"} <= set(m) for m in meta["maintainers"]),
           "metadata: each maintainer needs `name` and `github`")
    expect(all(r.startswith("github:") and r.count("/") == 1 for r in meta["repository"]),
           "metadata: repository entries are `github:OWNER/REPO`")

    src = json.loads((tpl / "source.template.json").read_text())
    expect(set(src) >= {"integrity", "strip_prefix", "url"}, f"source.template.json: keys {sorted(src)}")
    expect(src["integrity"] == "", "source: the app fills `integrity`")
    expect(src["url"].startswith("https://") and ("{TAG}" in src["url"] or "{VERSION}" in src["url"]),
           "source: the url names the release by {TAG} or {VERSION}")
    used = set(re.findall(r"\{[A-Z]+\}", src["url"] + src["strip_prefix"]))
    expect(used <= PLACEHOLDERS, f"source: unknown placeholders {used - PLACEHOLDERS}")
    if rel != ".":
        expect(src["strip_prefix"].endswith("/" + rel), f"source: strip_prefix must end at the module root {rel}")

    pre = yaml.safe_load((tpl / "presubmit.yml").read_text())
    tm = pre.get("bcr_test_module")
    expect(isinstance(tm, dict), "presubmit.yml: no bcr_test_module")
    test_dir = mod_dir / tm["module_path"]
    test_module = test_dir / "MODULE.bazel"
    expect(test_module.is_file(), f"presubmit: test module {test_dir} has no MODULE.bazel")
    text = test_module.read_text()
    dep = re.search(r'bazel_dep\(name = "%s", version = "([^"]*)"\)' % decl["name"], text)
    expect(dep and dep.group(1) == decl["version"], f"{test_module}: no bazel_dep on {decl['name']} {decl['version']}")
    over = module_call(text, "local_path_override")
    expect(over and over.get("module_name") == decl["name"], f"{test_module}: no local_path_override of {decl['name']}")
    expect((test_dir / over["path"]).resolve() == mod_dir.resolve(), f"{test_module}: the override does not lead to {rel}")
    matrix = tm.get("matrix", {})
    expect(matrix.get("platform") and matrix.get("bazel"), "presubmit: the matrix needs platforms and Bazel versions")
    expect(tm.get("tasks"), "presubmit: no tasks")
    for name, task in tm["tasks"].items():
        expect(task.get("platform") and task.get("bazel"), f"presubmit task {name}: platform and bazel are required")
        expect(task.get("build_targets") or task.get("test_targets"), f"presubmit task {name}: no targets")
    return decl, tm


def main():
    root = Path(sys.argv[1]).resolve()
    config = yaml.safe_load((root / ".bcr" / "config.yml").read_text()) or {}
    roots = config.get("moduleRoots", ["."])
    expect(roots, "config.yml: no module roots")
    for rel in roots:
        decl, tm = check_module_root(root, rel)
        print(f"bcr_check: {rel}: module {decl['name']} {decl['version']}, test module {rel}/{tm['module_path']}, "
              f"{len(tm['tasks'])} task(s) on {tm['matrix']['platform']} x Bazel {tm['matrix']['bazel']}", file=sys.stderr)


if __name__ == "__main__":
    main()
