#!/usr/bin/env python3
"""make check: the module's layering.

Reads the #include "..." lines of ramster/*.[ch] and fails (exit 1, one
line per finding) if

  - the include graph between the module's units has a cycle: a unit is
    a file's stem, where X_internal.h and X_debug.c belong to unit X and
    the KUnit suites (*_test.c) are units of their own; layers only call
    downward, and whatever must go up goes through ops or callbacks
    registered from above;
  - the transport includes anything but the layers below it: it never
    names its users (services register with it).

Prints "ok ..." lines otherwise.  Usage: check-layers.py [DIR]
"""
import os
import re
import sys

TRANSPORT = "transport"
BELOW_TRANSPORT = {"ramster", "stats", "wire", "cluster", "transport",
                   "auth", "frame_io", "handshake"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def unit(name):
    stem = os.path.splitext(os.path.basename(name))[0]
    for suffix in ("_internal", "_debug"):
        if stem.endswith(suffix) and not stem.endswith("_test"):
            return stem[: -len(suffix)]
    return stem


def read_graph(top):
    graph, files = {}, {}
    for name in sorted(os.listdir(top)):
        if not name.endswith((".c", ".h")):
            continue
        with open(os.path.join(top, name), encoding="utf-8") as f:
            includes = INCLUDE.findall(f.read())
        u = unit(name)
        graph.setdefault(u, set())
        files.setdefault(u, []).append((name, includes))
        for inc in includes:
            if unit(inc) != u:
                graph[u].add(unit(inc))
    return graph, files


def find_cycle(graph):
    """A list of units forming a cycle, or None (iterative DFS)."""
    state = {}
    for start in sorted(graph):
        if state.get(start):
            continue
        stack = [(start, iter(sorted(graph.get(start, ()))))]
        path = [start]
        state[start] = 1
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[node] = 2
                stack.pop()
                path.pop()
                continue
            if state.get(child) == 1:
                return path[path.index(child):] + [child]
            if not state.get(child):
                state[child] = 1
                path.append(child)
                stack.append((child, iter(sorted(graph.get(child, ())))))
    return None


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "ramster")
    graph, files = read_graph(top)
    problems = []
    cycle = find_cycle(graph)
    if cycle:
        problems.append("include cycle: " + " -> ".join(cycle))
    for name, includes in files.get(TRANSPORT, []):
        for inc in includes:
            if unit(inc) not in BELOW_TRANSPORT:
                problems.append(f"{name} includes {inc}: the transport "
                                "never names its users")
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"ok      layering: {len(graph)} units, no include cycle, "
          "the transport includes only the layers below it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
