#!/usr/bin/env python3
"""Parses and verifies MLIR files with CIRCT's own parser and verifier.

CIRCT is taken from the `pycde` wheel on PyPI, which bundles a recent CIRCT (hw, seq, comb and
synth dialects) as Python bindings; `circt-opt` itself is not packaged for Debian or PyPI, and
`Module.parse` runs the same parser and op verifiers that `circt-opt` runs on its input.
Prints `ok PATH` or `error PATH: MESSAGE` per file; exits 1 if any file fails.
"""
import sys

from pycde.circt import ir
import pycde.circt as circt


def check(path):
    ctx = ir.Context()
    circt.register_dialects(ctx)
    with open(path) as f:
        module = ir.Module.parse(f.read(), ctx)
    if not module.operation.verify():
        raise RuntimeError("verifier failed")


def main(paths):
    bad = 0
    for path in paths:
        try:
            check(path)
            print(f"ok {path}")
        except Exception as e:  # parse and verify errors both arrive as exceptions
            bad += 1
            message = " ".join(str(e).split())
            print(f"error {path}: {message}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
