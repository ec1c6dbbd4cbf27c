#!/usr/bin/env python3
"""Every Swift target imports only the package modules it declares as dependencies (Package.swift), so a module
never leans on another one only transitively and the module map in ARCHITECTURE.md stays true. SwiftPM's
`--explicit-target-dependency-import-check` does not report these with the native build system, so this reads the
manifest and the `import` lines itself. Exits 1 naming each undeclared import."""
import re
import sys
from pathlib import Path

top = Path(__file__).resolve().parents[1]
manifest = (top / "Package.swift").read_text()
targets = {}
pattern = re.compile(r'\.(target|testTarget|executableTarget|systemLibrary)\(\s*name:\s*"([^"]+)"(.*?)\)\s*,\s*(?=//|\.|\])', re.S)
for kind, name, rest in pattern.findall(manifest):
    dependencies = set(re.findall(r'"([A-Za-z][A-Za-z0-9_]*)"', rest.split("path:")[0]))
    dependencies |= set(re.findall(r'\.product\(name:\s*"([^"]+)"', rest))
    path = re.search(r'path:\s*"([^"]+)"', rest)
    folder = path.group(1) if path else ("Tests/" if kind == "testTarget" else "Sources/") + name
    targets[name] = (kind, dependencies, top / folder)
systems = set(re.findall(r'systemLibrary\("([^"]+)"', manifest)) | {n for n, t in targets.items() if t[0] == "systemLibrary"}
modules = set(targets) | systems | {"ArgumentParser"}
failures = []
for name, (kind, dependencies, folder) in sorted(targets.items()):
    if kind == "systemLibrary" or not folder.is_dir():
        continue
    imported = set()
    sources = sorted(folder.rglob("*.swift"))
    for source in sources:
        for line in source.read_text().splitlines():
            match = re.match(r"\s*(?:@testable\s+|@_exported\s+)?import\s+([A-Za-z_][A-Za-z0-9_]*)", line)
            if match and match.group(1) in modules and match.group(1) != name:
                imported.add(match.group(1))
                if match.group(1) not in dependencies:
                    failures.append(f"{source.relative_to(top)}: imports {match.group(1)}, which {name} does not declare")
    # A declared Swift module nobody imports is a dependency in name only (C targets may be linked for their
    # symbols alone, so only Swift modules are held to this).
    swift_modules = {n for n, t in targets.items() if t[0] in ("target",) and not n.startswith("C")}
    for unused in sorted((dependencies & swift_modules) - imported):
        if sources:
            failures.append(f"{name} declares {unused} but imports it nowhere")
for failure in failures:
    print(failure)
print(f"check-imports: {len(targets)} targets, {len(failures)} undeclared imports")
sys.exit(1 if failures else 0)
