#!/usr/bin/env python3
"""SoC-scale build benchmark: a Bazel workspace shaped like a RISC-V SoC's hardware, built
two ways in one run, with kiln's figures for each row.

The workspace (`gen`):
  isax/     16 ISAX files (`kiln gen aps`, 8, 16, ..., 128 instructions: 1,088 custom
            instructions with their RISC-V identities), one `kiln_aps_library` each (CMT2,
            rules JSON, SystemVerilog);
  kernels/  8 Dynamatic Handshake kernels (../shared/handshake_examples), one
            `kiln_handshake_synth` each, over
  lib/      the Dynamatic BLIF unit library (../shared/dynamatic_blif/library, 8,786 files);
  blif/     200 BLIF units (ISCAS'85/'89 and MCNC netlists from ../shared/blif_bench and
            Dynamatic library units), one `kiln_blif_aig` each;
and the same 224 targets again as plain `genrule`s running `kiln build --no-daemon` (the
one-shot baseline a team writes first): `//:kiln` and `//:oneshot`.

The run (`run`), each setup in its own Bazel output base:
  (a) `//:kiln`: kiln's rules, persistent multiplex workers building through kiln's daemon
      (`--@rules_kiln//:daemon=start`);
  (b) `//:oneshot`: the genrules (Bazel's default sandboxed local execution).
Rows: cold build (fresh output base, Bazel server start included), no-op, one-function edit
(one op of one instruction in the 128-instruction ISAX), one-library-file edit (a logic edit
of the library unit most kernels use), and a second fresh output base fed only by a remote
cache (nginx WebDAV, filled by a first output base): its time and hit rate. Edits take
turns between the setups; each edit row is the median of --rounds edits. Outputs of (a) and
(b) are compared byte for byte after the cold build and after the edits.

Usage:
  scripts/soc_bench.py gen DIR [--kiln BIN]
  scripts/soc_bench.py run [--kiln BIN] [--rounds N] [--keep DIR] [--bazel-flag=FLAG]...
Needs Bazel 4.2.3 with bazel-skylib and bazel-rules-java (scripts/bazel_test.sh installs
them), nginx, and the shared corpus (../shared or $KILN_SHARED_DIR). Python stdlib only.
"""

import argparse
import hashlib
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("KILN_SHARED_DIR", ROOT.parent / "shared")).resolve()
ISAX_SIZES = [8 * k for k in range(1, 17)]
KERNELS = ["atax", "bicg", "gaussian", "gcd", "kernel_2mm", "kernel_3mm", "matrix_power", "triangular"]
N_BLIF = 200


def log(msg):
    print("soc_bench: " + msg, file=sys.stderr, flush=True)


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit("soc_bench: %s failed (%d):\n%s%s" % (" ".join(map(str, cmd)), r.returncode, r.stdout[-4000:], r.stderr[-4000:]))
    return r


# ---- the workspace ------------------------------------------------------------------


def blif_sources():
    """200 BLIF units: the ISCAS and MCNC netlists, then library units of 2 KB or more."""
    bench = SHARED / "blif_bench"
    files = sorted(p for d in ["iscas85", "iscas89", "mcnc"] for p in (bench / d).glob("*.blif"))
    lib = sorted(p for p in (SHARED / "dynamatic_blif/library").rglob("*.blif") if p.stat().st_size >= 2048)
    need = N_BLIF - len(files)
    step = max(1, len(lib) // need)
    files += lib[::step][:need]
    return files


def genrule(name, srcs, outs, cmd):
    return (
        "genrule(\n    name = %r,\n    srcs = %r,\n    outs = %r,\n    cmd = %r,\n"
        '    tools = ["@kiln_toolchains//:bin/kiln"],\n)\n' % (name, srcs, outs, cmd)
    ).replace("'", '"')


KILN = "$(execpath @kiln_toolchains//:bin/kiln)"
PUBLIC = 'package(default_visibility = ["//visibility:public"])\n'


def gen(ws, kiln):
    ws.mkdir(parents=True, exist_ok=True)
    (ws / "WORKSPACE").write_text(
        'workspace(name = "soc")\n\nlocal_repository(name = "rules_kiln", path = %r)\n\n'
        'load("@rules_kiln//:repositories.bzl", "kiln_dependencies", "kiln_register_toolchains")\n\n'
        "kiln_dependencies()\n\nkiln_register_toolchains()\n" % str(ROOT / "bazel")
    )
    rc = run(["bash", "-c", 'source "$1"; bazel_offline_rc "$2"', "-", ROOT / "scripts/bazel_offline_lib.sh", ws.parent / (ws.name + "-overrides")])
    (ws / ".bazelrc").write_text(rc.stdout + "build --show_result=0\n")
    kiln_targets, oneshot_targets = [], []

    # ISAX files: generated APS designs with real identities.
    isax = ws / "isax"
    isax.mkdir(exist_ok=True)
    build = ['load("@rules_kiln//:defs.bzl", "kiln_aps_library")\n', PUBLIC]
    for i, n in enumerate(ISAX_SIZES):
        name = "isax_%02d" % i
        run([kiln, "gen", "aps", "--functions", str(n), "--seed", str(100 + i), "-o", isax / (name + ".mlir")])
        build.append('kiln_aps_library(\n    name = "%s",\n    src = "%s.mlir",\n)\n' % (name, name))
        outs = ["oneshot/%s/%s.%s" % (name, name, s) for s in ["cmt2.mlir", "rules.json", "sv"]]
        build.append(genrule(name + "_oneshot", [name + ".mlir"], outs,
                             "%s build --no-daemon --emit sv -o $(RULEDIR)/oneshot/%s $(location %s.mlir)" % (KILN, name, name)))
        kiln_targets.append("//isax:" + name)
        oneshot_targets.append("//isax:%s_oneshot" % name)
    (isax / "BUILD.bazel").write_text("\n".join(build))

    # The Dynamatic unit library, as one kiln_blif_library and as a filegroup.
    lib = ws / "lib"
    if not (lib / "dynamatic").is_dir():
        shutil.copytree(SHARED / "dynamatic_blif/library", lib / "dynamatic")
    (lib / "BUILD.bazel").write_text(
        'load("@rules_kiln//:defs.bzl", "kiln_blif_library")\n\npackage(default_visibility = ["//visibility:public"])\n\n'
        'kiln_blif_library(\n    name = "dynamatic",\n    srcs = glob(["dynamatic/**/*.blif"]),\n    strip_prefix = "dynamatic",\n)\n\n'
        'filegroup(\n    name = "dynamatic_files",\n    srcs = glob(["dynamatic/**/*.blif"]),\n)\n'
    )

    # Handshake kernels.
    kernels = ws / "kernels"
    kernels.mkdir(exist_ok=True)
    build = ['load("@rules_kiln//:defs.bzl", "kiln_handshake_synth")\n', PUBLIC]
    for k in KERNELS:
        shutil.copy(SHARED / "handshake_examples" / ("export_%s.mlir" % k), kernels / (k + ".mlir"))
        build.append('kiln_handshake_synth(\n    name = "%s",\n    src = "%s.mlir",\n    library = "//lib:dynamatic",\n)\n' % (k, k))
        outs = ["oneshot/%s/%s.%s" % (k, k, s) for s in ["synth.mlir", "aig", "blif", "hier.blif"]]
        build.append(genrule(k + "_oneshot", [k + ".mlir", "//lib:dynamatic_files"], outs,
                             "%s build --no-daemon --blif-lib lib/dynamatic -o $(RULEDIR)/oneshot/%s $(location %s.mlir)" % (KILN, k, k)))
        kiln_targets.append("//kernels:" + k)
        oneshot_targets.append("//kernels:%s_oneshot" % k)
    (kernels / "BUILD.bazel").write_text("\n".join(build))

    # BLIF units.
    blif = ws / "blif"
    blif.mkdir(exist_ok=True)
    build = ['load("@rules_kiln//:defs.bzl", "kiln_blif_aig")\n', PUBLIC]
    for i, src in enumerate(blif_sources()):
        name = "u%03d" % i
        shutil.copy(src, blif / (name + ".blif"))
        build.append('kiln_blif_aig(\n    name = "%s",\n    src = "%s.blif",\n)\n' % (name, name))
        build.append(genrule(name + "_oneshot", [name + ".blif"], ["oneshot/%s/%s.aig" % (name, name)],
                             "%s build --no-daemon -o $(RULEDIR)/oneshot/%s $(location %s.blif)" % (KILN, name, name)))
        kiln_targets.append("//blif:" + name)
        oneshot_targets.append("//blif:%s_oneshot" % name)
    (blif / "BUILD.bazel").write_text("\n".join(build))

    (ws / "BUILD.bazel").write_text(
        'filegroup(\n    name = "kiln",\n    srcs = [\n%s    ],\n)\n\nfilegroup(\n    name = "oneshot",\n    srcs = [\n%s    ],\n)\n'
        % ("".join('        "%s",\n' % t for t in kiln_targets), "".join('        "%s",\n' % t for t in oneshot_targets))
    )
    (ws / ".bazelignore").write_text("".join("bazel-%s\n" % s for s in ["bin", "out", "testlogs", "soc"]))
    fns = sum(ISAX_SIZES)
    log("workspace %s: %d ISAX files (%d instructions), %d kernels, %d library files, %d BLIF units" % (
        ws, len(ISAX_SIZES), fns, len(KERNELS), sum(1 for _ in (lib / "dynamatic").rglob("*.blif")), N_BLIF))
    return kiln_targets, oneshot_targets


def library_victim(ws, kiln):
    """The library file most kernels use (kiln synth-report), relative to lib/dynamatic."""
    counts = {}
    for k in KERNELS:
        r = run([kiln, "synth-report", ws / "kernels" / (k + ".mlir"), "--blif-lib", ws / "lib/dynamatic"])
        for path in set(re.findall(r"\blibrary\s+(\S+\.blif)", r.stdout)):
            counts[path] = counts.get(path, 0) + 1
    best = max(sorted(counts), key=lambda p: counts[p])
    return best, counts[best]


# ---- Bazel --------------------------------------------------------------------------


class Setup:
    def __init__(self, name, target, flags, tmp, env):
        self.name, self.target, self.flags, self.env = name, target, flags, env
        self.roots = tmp / ("root-" + name)

    def bazel(self, ws, *args, root=None, extra=()):
        cmd = ["bazel", "--output_user_root=%s" % (root or self.roots), "--max_idle_secs=900"] + list(args)
        if args and args[0] == "build":
            cmd += self.flags + list(extra) + [self.target]
        t = time.monotonic()
        r = subprocess.run(cmd, cwd=ws, capture_output=True, text=True, env=self.env)
        dt = time.monotonic() - t
        if r.returncode != 0:
            sys.exit("soc_bench: %s: %s failed:\n%s" % (self.name, " ".join(cmd), r.stderr[-6000:]))
        m = re.findall(r"INFO: (\d+ process.*)", r.stderr)
        return dt, (m[-1] if m else "")

    def info(self, ws, key, root=None):
        r = subprocess.run(["bazel", "--output_user_root=%s" % (root or self.roots), "info", key], cwd=ws,
                           capture_output=True, text=True, env=self.env)
        return r.stdout.strip()


def processes(summary, kind):
    m = re.search(r"(\d+) %s" % kind, summary)
    return int(m.group(1)) if m else 0


def outputs(bin_dir, targets, oneshot):
    """Every output file of the targets, by (package, target, file name) -> digest."""
    out = {}
    for t in targets:
        pkg, name = t[2:].split(":")
        d = Path(bin_dir) / pkg / ("oneshot/" + name[: -len("_oneshot")] if oneshot else name)
        for f in sorted(d.iterdir()):
            if f.is_file() and not f.name.endswith(".params"):
                out[(pkg, name[: -len("_oneshot")] if oneshot else name, f.name)] = hashlib.sha256(f.read_bytes()).hexdigest()
    return out


def edit_function(path, round_no):
    """Cycles one op (tor.addi -> tor.subi -> tor.muli) of the middle instruction, with a
    length change, as `kiln bench daemon` does."""
    text = path.read_text()
    funcs = [m.start() for m in re.finditer(r"tor\.func @", text)]
    start = funcs[len(funcs) // 2]
    cycle = ["tor.addi", "tor.subi", "tor.muli"]
    k, op = min((text.find(o, start), i) for i, o in enumerate(cycle) if text.find(o, start) >= 0)
    end = k + len(cycle[op])
    spaces = len(text[end:]) - len(text[end:].lstrip(" "))
    nxt = (op + 1) % 3
    path.write_text(text[:k] + cycle[nxt] + " " * (1 + (round_no % 3)) + text[end + spaces:])


def edit_library(path, original, round_no):
    """A logic edit: the first cover row starting with `1` flipped to `0` (even rounds) and
    back (odd rounds)."""
    k = original.find("\n1")
    path.write_text(original[:k] + "\n0" + original[k + 2:] if round_no % 2 == 0 else original)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def start_nginx(tmp):
    d = tmp / "nginx"
    shutil.rmtree(d, ignore_errors=True)  # a kept directory's earlier run
    (d / "cache").mkdir(parents=True)
    (d / "tmp").mkdir()
    port = free_port()
    user = "user root root;\n" if os.getuid() == 0 else ""
    (d / "nginx.conf").write_text(
        "%sdaemon on;\nworker_processes 1;\npid %s/nginx.pid;\nerror_log %s/error.log;\nevents {}\nhttp {\n"
        "  access_log off;\n  client_body_temp_path %s/tmp;\n  server {\n    listen 127.0.0.1:%d;\n    root %s/cache;\n"
        "    location / {\n      dav_methods PUT;\n      create_full_put_path on;\n      client_max_body_size 0;\n    }\n  }\n}\n"
        % (user, d, d, d, port, d)
    )
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    run([nginx, "-c", d / "nginx.conf", "-p", d, "-e", d / "error.log"])
    return port, d


def fmt_s(x):
    return "%.2f s" % x if x >= 1 else "%.0f ms" % (x * 1000)


def bench(args):
    kiln = Path(args.kiln).resolve()
    tmp = Path(args.keep).resolve() if args.keep else Path(tempfile.mkdtemp(prefix="soc-bench-"))
    tmp.mkdir(parents=True, exist_ok=True)
    ws = tmp / "soc"
    kiln_targets, oneshot_targets = gen(ws, kiln)
    victim, users = library_victim(ws, kiln)
    log("library edit: lib/dynamatic/%s (used by %d of %d kernels)" % (victim, users, len(KERNELS)))
    isax_big = ws / "isax" / ("isax_%02d.mlir" % (len(ISAX_SIZES) - 1))

    env = dict(os.environ, KILN_BINARY=str(kiln))
    runtime = tmp / "xdg"
    runtime.mkdir(mode=0o700, exist_ok=True)
    cache = tmp / "kiln-cache"
    daemon_env = ["--action_env=XDG_RUNTIME_DIR=%s" % runtime, "--action_env=KILN_CACHE_DIR=%s" % cache]
    extra = list(args.bazel_flag)
    a = Setup("a", "//:kiln", ["--@rules_kiln//:daemon=start"] + daemon_env + extra, tmp, env)
    b = Setup("b", "//:oneshot", extra, tmp, env)
    setups = [a, b]
    rows = {}
    nginx_dir = None
    try:
        for s in setups:
            dt, summary = s.bazel(ws, "build")
            rows.setdefault("cold build (fresh output base, server start)", {})[s.name] = (dt, summary)
            log("%s: cold %s (%s)" % (s.name, fmt_s(dt), summary))
        check_outputs(ws, a, b, kiln_targets, oneshot_targets, "cold build")
        for s in setups:
            times = [s.bazel(ws, "build")[0] for _ in range(args.rounds)]
            rows.setdefault("no-op", {})[s.name] = (statistics.median(times), "")
        lib_file = ws / "lib/dynamatic" / victim
        original = lib_file.read_text()
        for row, edit in [
            ("one-function edit (1 of 128 instructions)", lambda r: edit_function(isax_big, r)),
            ("one-library-file edit (%d kernels use it)" % users, lambda r: edit_library(lib_file, original, r)),
        ]:
            got = {s.name: [] for s in setups}
            for r in range(args.rounds):
                edit(r)
                for s in (setups if r % 2 == 0 else setups[::-1]):
                    got[s.name].append(s.bazel(ws, "build"))
            rows[row] = {n: (statistics.median(t for t, _ in v), v[-1][1]) for n, v in got.items()}
            for n, v in got.items():
                log("%s: %s: %s (%s)" % (n, row, ", ".join(fmt_s(t) for t, _ in v), v[-1][1]))
            check_outputs(ws, a, b, kiln_targets, oneshot_targets, row)
        lib_file.write_text(original)

        port, nginx_dir = start_nginx(tmp)
        url = "--remote_cache=http://127.0.0.1:%d" % port
        for s in setups:
            fill = tmp / ("root-%s-fill" % s.name)
            s.bazel(ws, "build", root=fill, extra=[url])
            shutdown(s, ws, fill)
            second = tmp / ("root-%s-remote" % s.name)
            dt, summary = s.bazel(ws, "build", root=second, extra=[url])
            hits = processes(summary, "remote cache hit")
            total = int(re.match(r"(\d+)", summary).group(1)) - processes(summary, "internal")
            rows.setdefault("second output base, remote cache only", {})[s.name] = (dt, "%d/%d hits" % (hits, total))
            log("%s: remote cache: %s (%s)" % (s.name, fmt_s(dt), summary))
            shutdown(s, ws, second)
    finally:
        if nginx_dir and (nginx_dir / "nginx.pid").exists():
            subprocess.run(["kill", (nginx_dir / "nginx.pid").read_text().strip()])
        for s in setups:
            shutdown(s, ws, s.roots)
        for root in tmp.glob("root-*"):
            subprocess.run(["chmod", "-R", "u+w", root], capture_output=True)
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    print(table(rows, kiln, extra))


def shutdown(s, ws, root):
    """Stops the Bazel server of `root` and a kiln daemon its workers started."""
    execroot = s.info(ws, "execution_root", root=root)
    if s.name == "a" and execroot and Path(execroot).is_dir():
        subprocess.run([str(Path(s.env["KILN_BINARY"])), "shutdown"], cwd=execroot, capture_output=True,
                       env=dict(s.env, XDG_RUNTIME_DIR=str(s.roots.parent / "xdg")))
    subprocess.run(["bazel", "--output_user_root=%s" % root, "shutdown"], cwd=ws, capture_output=True, env=s.env)


def check_outputs(ws, a, b, kiln_targets, oneshot_targets, when):
    got_a = outputs(a.info(ws, "bazel-bin"), kiln_targets, False)
    got_b = outputs(b.info(ws, "bazel-bin"), oneshot_targets, True)
    if got_a != got_b:
        diff = sorted(set(got_a.items()) ^ set(got_b.items()))[:6]
        sys.exit("soc_bench: %s: the two setups' outputs differ: %s" % (when, diff))
    log("%s: %d outputs byte-identical in both setups" % (when, len(got_a)))


def table(rows, kiln, extra):
    version = run([kiln, "--version"]).stdout.strip()
    flags = " ".join(extra) or "no extra Bazel flags"
    out = [
        "| row (%s; %s) | (a) kiln rules: worker + daemon | (b) genrule: `kiln build --no-daemon` | (b) / (a) |" % (version, flags),
        "|---|---|---|---|",
    ]
    for row, v in rows.items():
        ta, sa = v["a"]
        tb, sb = v["b"]
        note = lambda s: " (%s)" % s if s else ""
        out.append("| %s | %s%s | %s%s | %.1f× |" % (row, fmt_s(ta), note(sa), fmt_s(tb), note(sb), tb / ta))
    return "\n".join(out)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("dir")
    g.add_argument("--kiln", default=str(ROOT / "target/release/kiln"))
    r = sub.add_parser("run")
    r.add_argument("--kiln", default=str(ROOT / "target/release/kiln"))
    r.add_argument("--rounds", type=int, default=3)
    r.add_argument("--keep", help="work in this directory and keep it")
    r.add_argument("--bazel-flag", action="append", default=[],
                   help="a Bazel build flag for both setups (repeatable), e.g. --watchfs")
    args = p.parse_args()
    if not (SHARED / "dynamatic_blif/library").is_dir():
        sys.exit("soc_bench: the shared corpus is missing (%s; set KILN_SHARED_DIR)" % SHARED)
    if args.cmd == "gen":
        gen(Path(args.dir).resolve(), Path(args.kiln).resolve())
    else:
        bench(args)


if __name__ == "__main__":
    main()
