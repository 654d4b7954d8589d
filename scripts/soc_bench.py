#!/usr/bin/env python3
"""SoC-scale build benchmark: a Bazel workspace shaped like a RISC-V SoC's hardware, built
two ways in one run, with kiln's figures for each row.

The workspace (`gen`):
  isax/     16 ISAX files (`kiln-bench gen aps`, 8, 16, ..., 128 instructions: 1,088 custom
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

`--build-system buck2` generates the same sources and targets as a Buck2 project (the cells
of examples/buck2: buck2-rules/kiln.bzl, the example's execution platform and worker) and
measures the same rows, each setup in its own isolation dir (daemon and buck-out):
  (a) `//pkg:name`: kiln's rules on the local persistent worker through kiln's daemon
      (`-c kiln.daemon=start`);
  (b) `//pkg:name_oneshot`: the prelude's `genrule`s running `kiln build --no-daemon`.
The cold build kills the setup's Buck2 daemon and removes its buck-out first. The remote
cache is BuildGrid's (scripts/buildgrid_lib.sh; local actions, results uploaded): a first
checkout fills it, a second checkout of the same sources (same isolation dir name, which
is in every action's paths and so in its key) builds from it.

Usage:
  scripts/soc_bench.py gen DIR [--kiln BIN] [--build-system bazel|buck2]
  scripts/soc_bench.py run [--kiln BIN] [--rounds N] [--keep DIR] [--bazel-flag=FLAG]...
                           [--build-system bazel|buck2|both] [--buck2 BIN]
Needs Bazel 4.2.3 with bazel-skylib and bazel-rules-java (scripts/bazel_test.sh installs
them), nginx, and the shared corpus (../shared or $KILN_SHARED_DIR); for Buck2, the shared
Buck2 binary (../shared/tools/buck2, unpacked into target/buck2) and BuildGrid's
dependencies (PostgreSQL, bubblewrap; buildgrid_lib.sh installs BuildGrid in a venv).
Python stdlib only.
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


def sources(ws, kiln):
    """Writes the workspace's sources (shared by both build systems) and returns its units:
    (package, name, source, output suffixes, `kiln build` flags) each."""
    ws.mkdir(parents=True, exist_ok=True)
    units = []
    # ISAX files: generated APS designs with real identities, by the `kiln-bench` built
    # beside `kiln` (`cargo build --release --workspace`).
    gen_bin = Path(kiln).with_name("kiln-bench")
    if not gen_bin.is_file():
        sys.exit("soc_bench: no %s beside %s (cargo build --release --workspace builds both)" % (gen_bin.name, kiln))
    isax = ws / "isax"
    isax.mkdir(exist_ok=True)
    for i, n in enumerate(ISAX_SIZES):
        name = "isax_%02d" % i
        run([gen_bin, "gen", "aps", "--functions", str(n), "--seed", str(100 + i), "-o", isax / (name + ".mlir")])
        units.append(("isax", name, name + ".mlir", ["cmt2.mlir", "rules.json", "sv"], "--emit sv"))
    # The Dynamatic unit library.
    lib = ws / "lib"
    if not (lib / "dynamatic").is_dir():
        shutil.copytree(SHARED / "dynamatic_blif/library", lib / "dynamatic")
    # Handshake kernels.
    kernels = ws / "kernels"
    kernels.mkdir(exist_ok=True)
    for k in KERNELS:
        shutil.copy(SHARED / "handshake_examples" / ("export_%s.mlir" % k), kernels / (k + ".mlir"))
        units.append(("kernels", k, k + ".mlir", ["synth.mlir", "aig", "blif", "hier.blif"], "--blif-lib"))
    # BLIF units.
    blif = ws / "blif"
    blif.mkdir(exist_ok=True)
    for i, src in enumerate(blif_sources()):
        name = "u%03d" % i
        shutil.copy(src, blif / (name + ".blif"))
        units.append(("blif", name, name + ".blif", ["aig"], ""))
    return units


def summary(ws):
    fns = sum(ISAX_SIZES)
    log("workspace %s: %d ISAX files (%d instructions), %d kernels, %d library files, %d BLIF units" % (
        ws, len(ISAX_SIZES), fns, len(KERNELS), sum(1 for _ in (ws / "lib/dynamatic").rglob("*.blif")), N_BLIF))


RULE = {"isax": "kiln_aps_library", "kernels": "kiln_handshake_synth", "blif": "kiln_blif_aig"}


def gen(ws, kiln):
    """The Bazel workspace: `//:kiln` (kiln's rules) and `//:oneshot` (genrules)."""
    units = sources(ws, kiln)
    (ws / "WORKSPACE").write_text(
        'workspace(name = "soc")\n\nlocal_repository(name = "rules_kiln", path = %r)\n\n'
        'load("@rules_kiln//:repositories.bzl", "kiln_dependencies", "kiln_register_toolchains")\n\n'
        "kiln_dependencies()\n\nkiln_register_toolchains()\n" % str(ROOT / "bazel")
    )
    rc = run(["bash", "-c", 'source "$1"; bazel_offline_rc "$2"', "-", ROOT / "scripts/bazel_offline_lib.sh", ws.parent / (ws.name + "-overrides")])
    (ws / ".bazelrc").write_text(rc.stdout + "build --show_result=0\n")
    kiln_targets, oneshot_targets = [], []
    builds = {pkg: ['load("@rules_kiln//:defs.bzl", "%s")\n' % rule, PUBLIC] for pkg, rule in RULE.items()}
    for pkg, name, src, suffixes, flags in units:
        build = builds[pkg]
        outs = ["oneshot/%s/%s.%s" % (name, name, s) for s in suffixes]
        lib = ""
        if pkg == "kernels":
            build.append('%s(\n    name = "%s",\n    src = "%s",\n    library = "//lib:dynamatic",\n)\n' % (RULE[pkg], name, src))
            srcs, lib = [src, "//lib:dynamatic_files"], " lib/dynamatic"
        else:
            build.append('%s(\n    name = "%s",\n    src = "%s",\n)\n' % (RULE[pkg], name, src))
            srcs = [src]
        flags = flags + lib + " " if flags else ""
        build.append(genrule(name + "_oneshot", srcs, outs,
                             "%s build --no-daemon %s-o $(RULEDIR)/oneshot/%s $(location %s)" % (KILN, flags, name, src)))
        kiln_targets.append("//%s:%s" % (pkg, name))
        oneshot_targets.append("//%s:%s_oneshot" % (pkg, name))
    for pkg, build in builds.items():
        (ws / pkg / "BUILD.bazel").write_text("\n".join(build))
    (ws / "lib/BUILD.bazel").write_text(
        'load("@rules_kiln//:defs.bzl", "kiln_blif_library")\n\npackage(default_visibility = ["//visibility:public"])\n\n'
        'kiln_blif_library(\n    name = "dynamatic",\n    srcs = glob(["dynamatic/**/*.blif"]),\n    strip_prefix = "dynamatic",\n)\n\n'
        'filegroup(\n    name = "dynamatic_files",\n    srcs = glob(["dynamatic/**/*.blif"]),\n)\n'
    )
    (ws / "BUILD.bazel").write_text(
        'filegroup(\n    name = "kiln",\n    srcs = [\n%s    ],\n)\n\nfilegroup(\n    name = "oneshot",\n    srcs = [\n%s    ],\n)\n'
        % ("".join('        "%s",\n' % t for t in kiln_targets), "".join('        "%s",\n' % t for t in oneshot_targets))
    )
    (ws / ".bazelignore").write_text("".join("bazel-%s\n" % s for s in ["bin", "out", "testlogs", "soc"]))
    summary(ws)
    return kiln_targets, oneshot_targets


BUCKCONFIG = """[cells]
  root = .
  prelude = prelude
  toolchains = toolchains
  kiln_rules = kiln_rules
  none = none

[cell_aliases]
  config = prelude
  ovr_config = prelude
  fbcode = none
  fbsource = none
  fbcode_macros = none
  buck = none

[external_cells]
  prelude = bundled

[parser]
  target_platform_detector_spec = target:root//...->prelude//platforms:default \\
    target:toolchains//...->prelude//platforms:default

[build]
  execution_platforms = toolchains//:platforms

# Buck2's default watcher (inotify) missed edits of sources here (a build right after an
# edit, or seconds later, ran nothing); the crawler hashes the project at each command.
[buck2]
  file_watcher = fs_hash_crawler
"""


# The prelude's genrule asks Buck2 to upload its results to a remote cache only when it is
# labelled to run locally; `large_copy` prefers local execution (and there is no other).
GENRULE_LABELS = '    labels = ["large_copy"],\n'


def gen_buck2(ws, kiln):
    """The same targets as a Buck2 project (the example's cells: `kiln_rules` holds
    buck2-rules/kiln.bzl, `toolchains` the example's platform and worker, plus the prelude's
    genrule toolchain): `//pkg:name` (kiln's rules) and `//pkg:name_oneshot` (genrules)."""
    units = sources(ws, kiln)
    (ws / ".buckconfig").write_text(BUCKCONFIG)
    (ws / ".buckroot").write_text("")
    (ws / "kiln_rules").mkdir(exist_ok=True)
    shutil.copy(ROOT / "buck2-rules/kiln.bzl", ws / "kiln_rules/kiln.bzl")
    tc = ws / "toolchains"
    tc.mkdir(exist_ok=True)
    example = ROOT / "examples/buck2/toolchains"
    shutil.copy(example / "platforms.bzl", tc / "platforms.bzl")
    (tc / "BUCK").write_text(
        'load("@prelude//toolchains:genrule.bzl", "system_genrule_toolchain")\n' + (example / "BUCK").read_text()
        + '\nsystem_genrule_toolchain(\n    name = "genrule",\n    visibility = ["PUBLIC"],\n)\n'
        + '\n# The same binary for the genrules.\ncommand_alias(\n    name = "kiln_cli",\n    exe = ":kiln_bin",\n    visibility = ["PUBLIC"],\n)\n'
    )
    (tc / "kiln").unlink(missing_ok=True)  # a kept project's, perhaps running as a daemon
    shutil.copy(kiln, tc / "kiln")
    (ws / "lib/BUCK").write_text(
        'load("@kiln_rules//:kiln.bzl", "kiln_blif_library")\n\n_LIB = "dynamatic/"\n\n'
        'kiln_blif_library(\n    name = "dynamatic",\n    srcs = {p[len(_LIB):]: p for p in glob([_LIB + "**/*.blif"])},\n'
        '    visibility = ["PUBLIC"],\n)\n\n'
        'filegroup(\n    name = "dynamatic_files",\n    srcs = {p[len(_LIB):]: p for p in glob([_LIB + "**/*.blif"])},\n'
        '    visibility = ["PUBLIC"],\n)\n'
    )
    kiln_targets, oneshot_targets = [], []
    builds = {pkg: ['load("@kiln_rules//:kiln.bzl", "%s")\n' % rule] for pkg, rule in RULE.items()}
    for pkg, name, src, suffixes, flags in units:
        library = '    library = "//lib:dynamatic",\n' if pkg == "kernels" else ""
        builds[pkg].append('%s(\n    name = "%s",\n    src = "%s",\n%s)\n' % (RULE[pkg], name, src, library))
        if pkg == "kernels":
            flags += " $(location //lib:dynamatic_files)"
        outs = "".join('        "%s": ["%s.%s"],\n' % (x, name, x) for x in suffixes)
        cmd = "$(exe toolchains//:kiln_cli) build --no-daemon %s-o $OUT $SRCS" % (flags + " " if flags else "")
        builds[pkg].append('genrule(\n    name = "%s_oneshot",\n    srcs = ["%s"],\n    outs = {\n%s    },\n    cmd = "%s",\n%s)\n'
                           % (name, src, outs, cmd, GENRULE_LABELS))
        kiln_targets.append("//%s:%s" % (pkg, name))
        oneshot_targets.append("//%s:%s_oneshot" % (pkg, name))
    for pkg, build in builds.items():
        (ws / pkg / "BUCK").write_text("\n".join(build))
    summary(ws)
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
    length change, as `kiln-bench daemon` does."""
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


BUILDGRID = """set -e
ROOT=$1 TMP=$2 BG_THREAD_POOL_SIZE=256
fail() { echo "soc_bench: $*" >&2; exit 1; }
source "$ROOT/scripts/buildgrid_lib.sh"
"""


def start_buildgrid(tmp):
    """BuildGrid (REAPI cache and execution, scripts/buildgrid_lib.sh): (port, its state for
    `stop_buildgrid`)."""
    script = BUILDGRID + 'buildgrid_install >&2\nbuildgrid_start\necho "$BG_PORT $BOT_PID $BG_PID $PG_PID $PG_DIR"\n'
    r = run(["bash", "-c", script, "-", ROOT, tmp])
    port, *state = r.stdout.split()
    return int(port), state


def stop_buildgrid(tmp, state):
    script = BUILDGRID + 'BOT_PID=$3 BG_PID=$4 PG_PID=$5 PG_DIR=$6\nbuildgrid_stop\n'
    subprocess.run(["bash", "-c", script, "-", ROOT, tmp] + state, capture_output=True)


class Buck2Setup:
    """One setup of the Buck2 project, in its own isolation dir (daemon and buck-out)."""

    def __init__(self, name, targets, config, buck2, env):
        self.name, self.targets, self.config, self.buck2_bin, self.env = name, targets, config, buck2, env

    def cmd(self, ws, *args, iso=None, check=True):
        r = subprocess.run([self.buck2_bin, "--isolation-dir", iso or self.name] + list(args), cwd=ws,
                           capture_output=True, text=True, env=self.env)
        if check and r.returncode != 0:
            sys.exit("soc_bench: %s: buck2 %s failed:\n%s" % (self.name, " ".join(args[:3]), r.stderr[-6000:]))
        return r

    def build(self, ws, iso=None, extra=()):
        """(seconds, how its actions ran, the `Commands:` line)."""
        t = time.monotonic()
        r = self.cmd(ws, "build", *self.config, *extra, *self.targets, iso=iso)
        dt = time.monotonic() - t
        m = re.findall(r"Commands: (.*)", r.stderr)
        return dt, self.ran(ws, iso), (m[-1] if m else "")

    def ran(self, ws, iso=None):
        """The last command's actions by how they ran (`buck2 log what-ran`)."""
        counts = {}
        for line in self.cmd(ws, "log", "what-ran", iso=iso).stdout.splitlines():
            f = line.split("\t")
            if len(f) >= 3 and f[0] == "build" and f[2] != "worker_init":
                counts[f[2]] = counts.get(f[2], 0) + 1
        return ", ".join("%d %s action%s" % (n, how, "" if n == 1 else "s") for how, n in sorted(counts.items()))

    def stop(self, ws, iso=None):
        """Stops the Buck2 daemon of `iso` and a kiln daemon its workers started."""
        self.cmd(ws, "kill", iso=iso, check=False)
        if self.name == "a":
            subprocess.run([self.env["KILN_BINARY"], "shutdown"], cwd=ws, capture_output=True,
                           env=dict(self.env, KILN_WORKSPACE=str(ws)))


def buck2_outputs(ws, iso, targets, oneshot):
    """Every output file of the targets in buck-out/ISO, by (package, target, file name) -> digest."""
    out = {}
    for t in targets:
        pkg, name = t[2:].split(":")
        base = name[: -len("_oneshot")] if oneshot else name
        dirs = list((ws / "buck-out" / iso / "art/root").glob("*/%s/__%s__/%s" % (pkg, name, "out" if oneshot else name)))
        if len(dirs) != 1:
            sys.exit("soc_bench: %s: %d output directories in buck-out/%s" % (t, len(dirs), iso))
        for f in sorted(dirs[0].iterdir()):
            if f.is_file():
                out[(pkg, base, f.name)] = hashlib.sha256(f.read_bytes()).hexdigest()
    return out


def check_buck2_outputs(ws, a, b, when, iso=("a", "b")):
    got_a = buck2_outputs(ws, iso[0], a.targets, False)
    got_b = buck2_outputs(ws, iso[1], b.targets, True)
    if got_a != got_b:
        diff = sorted(set(got_a.items()) ^ set(got_b.items()))[:6]
        sys.exit("soc_bench: buck2: %s: the two setups' outputs differ: %s" % (when, diff))
    log("buck2: %s: %d outputs byte-identical in both setups" % (when, len(got_a)))


def bench_buck2(args, kiln, tmp):
    """The Buck2 rows: (a) kiln's rules on the local worker through kiln's daemon, (b) the
    prelude's genrules; each setup in its own isolation dir."""
    buck2 = Path(args.buck2).resolve() if args.buck2 else unpack_buck2()
    ws = tmp / "soc-buck2"
    kiln_targets, oneshot_targets = gen_buck2(ws, kiln)
    victim, users = library_victim(ws, kiln)
    log("buck2: library edit: lib/dynamatic/%s (used by %d of %d kernels)" % (victim, users, len(KERNELS)))
    isax_big = ws / "isax" / ("isax_%02d.mlir" % (len(ISAX_SIZES) - 1))
    runtime = tmp / "xdg"
    runtime.mkdir(mode=0o700, exist_ok=True)
    env = dict(os.environ, KILN_BINARY=str(kiln), XDG_RUNTIME_DIR=str(runtime), KILN_CACHE_DIR=str(tmp / "kiln-cache-buck2"))
    a = Buck2Setup("a", kiln_targets, ["-c", "kiln.daemon=start"], buck2, env)
    b = Buck2Setup("b", oneshot_targets, [], buck2, env)
    setups = [a, b]
    rows = {}
    bg = None
    ws2 = tmp / "soc-buck2-second"
    try:
        for s in setups:
            s.stop(ws)
            shutil.rmtree(ws / "buck-out" / s.name, ignore_errors=True)
            dt, ran, _ = s.build(ws)
            rows.setdefault("cold build (fresh buck-out, Buck2 daemon start)", {})[s.name] = (dt, ran)
            log("buck2: %s: cold %s (%s)" % (s.name, fmt_s(dt), ran))
        check_buck2_outputs(ws, a, b, "cold build")
        for s in setups:
            times = [s.build(ws)[0] for _ in range(args.rounds)]
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
                    got[s.name].append(s.build(ws)[:2])
            rows[row] = {n: (statistics.median(t for t, _ in v), v[-1][1]) for n, v in got.items()}
            for n, v in got.items():
                log("buck2: %s: %s: %s (%s)" % (n, row, ", ".join(fmt_s(t) for t, _ in v), v[-1][1]))
            check_buck2_outputs(ws, a, b, row)
        lib_file.write_text(original)
        for s in setups:
            s.stop(ws)

        # Remote cache: a first checkout fills BuildGrid's cache, a second checkout of the same
        # sources (fresh buck-out and daemon, same isolation dir name: buck-out paths are in
        # every action's key) builds from it.
        port, bg = start_buildgrid(tmp)
        shutil.rmtree(ws2, ignore_errors=True)
        shutil.copytree(ws, ws2, ignore=shutil.ignore_patterns("buck-out"))
        for d in (ws, ws2):
            (d / ".buckconfig.local").write_text(
                "[buck2_re_client]\n  engine_address = grpc://127.0.0.1:{0}\n  action_cache_address = grpc://127.0.0.1:{0}\n"
                "  cas_address = grpc://127.0.0.1:{0}\n  tls = false\n\n# Local results go to the cache.\n"
                "[buck2]\n  default_allow_cache_upload = true\n".format(port))
        rc = ["-c", "kiln.remote_cache=true"]
        for s in setups:
            iso = "rc-" + s.name
            _, ran, commands = s.build(ws, iso=iso, extra=rc)
            log("buck2: %s: remote cache filled by the first checkout (%s; %s)" % (s.name, ran, commands))
            s.stop(ws, iso=iso)
            dt, ran, commands = s.build(ws2, iso=iso, extra=rc)
            m = re.match(r"(\d+) \(cached: (\d+)", commands)
            hits = "%s/%s hits" % (m.group(2), m.group(1)) if m else commands
            rows.setdefault("second checkout, remote cache only", {})[s.name] = (dt, hits)
            log("buck2: %s: remote cache: %s (%s; %s)" % (s.name, fmt_s(dt), ran, commands))
            s.stop(ws2, iso=iso)
        check_buck2_outputs(ws2, a, b, "second checkout", iso=("rc-a", "rc-b"))
    finally:
        if bg:
            stop_buildgrid(tmp, bg)
        for d in (ws, ws2):
            for s in setups:
                for iso in (s.name, "rc-" + s.name):
                    if (d / "buck-out" / iso).exists():
                        s.stop(d, iso=iso)
    return rows, "Buck2 " + run([buck2, "--version"]).stdout.split()[1][:10]


def unpack_buck2():
    """The shared Buck2 binary (unpacked once into target/buck2, as scripts/buck2_test.sh does)."""
    buck2 = ROOT / "target/buck2/buck2"
    if not os.access(buck2, os.X_OK):
        if not (SHARED / "tools/buck2/buck2.zst").is_file():
            sys.exit("soc_bench: no Buck2 (%s/tools/buck2/buck2.zst; or pass --buck2)" % SHARED)
        run(["sh", SHARED / "tools/buck2/unpack.sh", ROOT / "target/buck2"])
    return buck2


def fmt_s(x):
    return "%.2f s" % x if x >= 1 else "%.0f ms" % (x * 1000)


def bench(args):
    kiln = Path(args.kiln).resolve()
    tmp = Path(args.keep).resolve() if args.keep else Path(tempfile.mkdtemp(prefix="soc-bench-"))
    tmp.mkdir(parents=True, exist_ok=True)
    tables = []
    try:
        if args.build_system in ("bazel", "both"):
            tables.append(table(bench_bazel(args, kiln, tmp), kiln, " ".join(args.bazel_flag) or "no extra Bazel flags"))
        if args.build_system in ("buck2", "both"):
            rows, version = bench_buck2(args, kiln, tmp)
            tables.append(table(rows, kiln, version))
    finally:
        for root in tmp.glob("root-*"):
            subprocess.run(["chmod", "-R", "u+w", root], capture_output=True)
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    print("\n\n".join(tables))


def bench_bazel(args, kiln, tmp):
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
    return rows


def shutdown(s, ws, root):
    """Stops the Bazel server of `root` and a kiln daemon its workers started."""
    execroot = s.info(ws, "execution_root", root=root)
    if s.name == "a" and execroot and Path(execroot).is_dir():
        # Bazel's workers get no --action_env: their daemon has the default runtime dir.
        for env in (dict(s.env, XDG_RUNTIME_DIR=str(s.roots.parent / "xdg")), {k: v for k, v in s.env.items() if k != "XDG_RUNTIME_DIR"}):
            subprocess.run([str(Path(s.env["KILN_BINARY"])), "shutdown"], cwd=execroot, capture_output=True, env=env)
    subprocess.run(["bazel", "--output_user_root=%s" % root, "shutdown"], cwd=ws, capture_output=True, env=s.env)


def check_outputs(ws, a, b, kiln_targets, oneshot_targets, when):
    got_a = outputs(a.info(ws, "bazel-bin"), kiln_targets, False)
    got_b = outputs(b.info(ws, "bazel-bin"), oneshot_targets, True)
    if got_a != got_b:
        diff = sorted(set(got_a.items()) ^ set(got_b.items()))[:6]
        sys.exit("soc_bench: %s: the two setups' outputs differ: %s" % (when, diff))
    log("%s: %d outputs byte-identical in both setups" % (when, len(got_a)))


def table(rows, kiln, flags):
    version = run([kiln, "--version"]).stdout.strip()
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
    g.add_argument("--build-system", choices=["bazel", "buck2"], default="bazel")
    r = sub.add_parser("run")
    r.add_argument("--build-system", choices=["bazel", "buck2", "both"], default="bazel")
    r.add_argument("--buck2", help="the Buck2 binary (default: the shared one, unpacked into target/buck2)")
    r.add_argument("--kiln", default=str(ROOT / "target/release/kiln"))
    r.add_argument("--rounds", type=int, default=3)
    r.add_argument("--keep", help="work in this directory and keep it")
    r.add_argument("--bazel-flag", action="append", default=[],
                   help="a Bazel build flag for both setups (repeatable), e.g. --watchfs")
    args = p.parse_args()
    if not (SHARED / "dynamatic_blif/library").is_dir():
        sys.exit("soc_bench: the shared corpus is missing (%s; set KILN_SHARED_DIR)" % SHARED)
    if args.cmd == "gen":
        (gen_buck2 if args.build_system == "buck2" else gen)(Path(args.dir).resolve(), Path(args.kiln).resolve())
    else:
        bench(args)


if __name__ == "__main__":
    main()
