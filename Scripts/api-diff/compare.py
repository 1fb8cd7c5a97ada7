"""Compares two symbol-graph directories (FoundationNetworking, FWURLSession); see Scripts/api-diff.sh."""

import collections
import fnmatch
import glob
import json
import re
import sys

NOISE = ["open ", "public ", "final ", "override ", "dynamic ", "nonisolated ", "any ", "convenience ",
         "required ", "mutating ", "class ", "static "]


def symbols(directory):
    """Every symbol of the graphs in `directory` (extensions of other modules included), synthesized ones left out."""
    found = []
    for path in sorted(glob.glob(directory + "/*.symbols.json")):
        found += json.load(open(path))["symbols"]
    return [s for s in found if "::SYNTHESIZED::" not in s["identifier"]["precise"]]


def path(symbol):
    return ".".join(symbol["pathComponents"])


def declaration(symbol):
    """The declaration as a caller sees it: no attributes, access, `any`, `let`/`var` or accessor blocks."""
    text = "".join(fragment["spelling"] for fragment in symbol.get("declarationFragments", []))
    text = re.sub(r"@\w+(\([^)]*\))?\s*", "", text)
    for word in NOISE:
        text = text.replace(word, "")
    text = text.replace("let ", "var ")
    text = re.sub(r"\s*\{ get( set)? \}", "", text)
    return re.sub(r"\s+", " ", text).strip()


def missing(theirs, ours):
    """The symbols of `theirs` that `ours` lacks, deduplicated by (path, declaration)."""
    our_paths = collections.defaultdict(set)
    for symbol in ours:
        our_paths[path(symbol)].add(declaration(symbol))
    their_paths = collections.defaultdict(list)
    for symbol in theirs:
        their_paths[path(symbol)].append(symbol)
    lacking = {}
    for name, group in their_paths.items():
        overloaded = len({declaration(s) for s in group}) > 1
        for symbol in group:
            present = declaration(symbol) in our_paths[name] if overloaded else bool(our_paths[name])
            if not present:
                lacking[(name, declaration(symbol))] = symbol
    return lacking


def allowlist(file):
    """(pattern, reason) per line: `PATTERN  # reason`; `*` in a pattern matches anything."""
    entries = []
    for line in open(file):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        pattern, _, reason = line.partition("#")
        entries.append((pattern.strip(), reason.strip()))
    return entries


def main():
    foundation, ours, listfile = sys.argv[1:4]
    verbose = "--list" in sys.argv[4:]
    theirs = symbols(foundation)
    lacking = missing(theirs, symbols(ours))
    entries = allowlist(listfile)
    used = set()
    groups = collections.defaultdict(list)
    for (name, decl) in sorted(lacking):
        match = next((e for e in entries if fnmatch.fnmatchcase(name, e[0])), None)
        if match:
            used.add(match[0])
        groups[name.split(".")[0]].append((name, decl, match))
    unexpected = 0
    print(f"api-diff: FoundationNetworking has {len({(path(s), declaration(s)) for s in theirs})} public symbols; "
          f"FWURLSession lacks {len(lacking)}")
    for group, items in sorted(groups.items(), key=lambda g: (-len(g[1]), g[0])):
        allowed = [i for i in items if i[2]]
        reasons = sorted({i[2][1] for i in allowed})
        print(f"  {group}: {len(items)} missing" + (f" ({len(allowed)} allowed: {'; '.join(reasons)})" if allowed else ""))
        for name, decl, match in items:
            if match is None:
                unexpected += 1
                print(f"    NOT ALLOWED: {name}  ::  {decl}")
            elif verbose:
                print(f"    {name}  ::  {decl}")
    stale = [pattern for pattern, _ in entries if pattern not in used]
    for pattern in stale:
        print(f"api-diff: allow-list entry '{pattern}' matches no missing symbol: remove it")
    if unexpected or stale:
        print(f"api-diff: FAILED: {unexpected} missing symbols not on the allow-list, {len(stale)} stale entries")
        return 1
    print(f"api-diff: every missing symbol is on the allow-list ({len(entries)} entries)")
    return 0


sys.exit(main())
