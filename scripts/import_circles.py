#!/usr/bin/env python3
"""Import circles between the modules of kiln's crates (issue 32: "rooms" that import each
other in a circle are one room).

Each `.rs` file is a module; there is an edge a -> b when a's code (comments and the
`#[cfg(test)]` tail left out) names b by a path that starts at `crate::`, `super::` or
`self::` (`use super::{x, y}` included). References to an ancestor used only as a
namespace, unqualified paths to a child module and glob imports are not counted, so a
module and its parent never form a circle here: what is counted is siblings and cousins
naming each other. Prints each crate's circles (strongly connected components of more
than one module).

Usage: scripts/import_circles.py [SRC_DIR ...]   (default: every crate's src/)
"""
import os, re, sys
from collections import defaultdict

def modules(src):
    mods = {}
    for root, _, files in os.walk(src):
        for f in files:
            if not f.endswith('.rs'):
                continue
            p = os.path.join(root, f)
            rel = os.path.relpath(p, src)[:-3].split(os.sep)
            if rel[-1] in ('mod', 'lib', 'main'):
                rel = rel[:-1]
            if rel and rel[0] == 'bin':
                continue
            mods[tuple(rel)] = p
    return mods

def strip(text):
    text = re.sub(r'//[^\n]*', '', text)
    # drop #[cfg(test)] mod tests { ... } roughly: cut from '#[cfg(test)]' to end
    i = text.find('#[cfg(test)]')
    if i >= 0:
        text = text[:i]
    return text

def resolve(mods, base, parts):
    # longest prefix of parts that is a module
    for n in range(len(parts), 0, -1):
        t = tuple(parts[:n])
        if t in mods:
            return t
    return None

def edges(mods):
    g = defaultdict(set)
    for m, p in mods.items():
        text = strip(open(p).read())
        # the module that `super` means: parent of m (for a mod.rs or file alike)
        paths = []
        for mt in re.finditer(r'\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+|::\{[^}]*\})', text):
            head, tail = mt.group(1), mt.group(2)
            if head == 'crate':
                base = []
            elif head == 'super':
                base = list(m[:-1])
            else:
                base = list(m)
            # follow chained super::super
            rest = tail
            while rest.startswith('::super'):
                base = base[:-1]
                rest = rest[len('::super'):]
            if rest.startswith('::{'):
                inner = rest[3:-1]
                for item in re.split(r',', inner):
                    item = item.strip()
                    if not item:
                        continue
                    seg = re.findall(r'[A-Za-z_][A-Za-z0-9_]*', item.split(' as ')[0])
                    if seg:
                        paths.append(base + seg)
            else:
                seg = rest.split('::')[1:]
                paths.append(base + seg)
        for parts in paths:
            t = resolve(mods, m, parts)
            if t is not None and t != m and not (len(t) < len(m) and m[:len(t)] == t and len(parts) == len(t)):
                # skip edges to an ancestor used only as a namespace (e.g. `super::Type` of the parent)
                g[m].add(t)
    return g

def sccs(nodes, g):
    index = {}; low = {}; st = []; on = set(); out = []; i = [0]
    sys.setrecursionlimit(10000)
    def visit(v):
        index[v] = low[v] = i[0]; i[0] += 1; st.append(v); on.add(v)
        for w in g.get(v, ()):
            if w not in index:
                visit(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            c = []
            while True:
                w = st.pop(); on.discard(w); c.append(w)
                if w == v: break
            out.append(c)
    for v in nodes:
        if v not in index:
            visit(v)
    return out

dirs = sys.argv[1:] or [
    d for d in ("compiler/src", "daemon/src", "client/src", "bench/src") if os.path.isdir(d)
]
total = 0
for src in dirs:
    mods = modules(src)
    g = edges(mods)
    cs = [c for c in sccs(sorted(mods), g) if len(c) > 1]
    print(f"{src}: {len(mods)} modules, {len(cs)} circles")
    for c in cs:
        print("  ", sorted('/'.join(x) or '<root>' for x in c))
    total += len(cs)
print(f"total: {total} circles")
