#!/usr/bin/env python3
"""Fails on gtk-doc references left in a .gir's documentation, which gi-docgen shows as plain code, not as links
(bindings/glib and bindings/gtk run it before gi-docgen, whose own warnings only cover its [kind@Name] links):
    bindings/gir-doc-links.py FILE.gir [GIR_DIRECTORY...]
- a type, property or signal written the gtk-doc way: #VnPlayer, #VnPlayer:state, #VnPlayer::failed
  (write [class@Voicenote.Player], [property@Voicenote.Player:state], [signal@Voicenote.Player::failed]);
- a C function of the namespace or of the namespaces it includes, found in GIR_DIRECTORY... and /usr/share/gir-1.0,
  written as vng_player_play() (write [method@Voicenote.Player.play], [func@GLib.free]...).
Code spans (`...`) are left alone: they are meant as code. Prints each reference with the symbol it is in."""
import os
import re
import sys
import xml.etree.ElementTree as ET

CORE = "{http://www.gtk.org/introspection/core/1.0}"
C_IDENTIFIER = "{http://www.gtk.org/introspection/c/1.0}identifier"
GTKDOC_REFERENCE = re.compile(r"(?<![\w`])#[A-Z][A-Za-z0-9]+(?:::?[a-z0-9_-]+)?")
FUNCTION_REFERENCE = re.compile(r"(?<![\w`\[@.])([a-z_][a-z0-9_]*)\(\)")
CODE_SPAN = re.compile(r"`[^`]*`")


def function_identifiers(gir_path, directories, seen):
    """The C identifiers of every function in a .gir and in the .girs it includes (each read once)."""
    root = ET.parse(gir_path).getroot()
    names = {element.get(C_IDENTIFIER) for element in root.iter()
             if element.tag in (CORE + "function", CORE + "method", CORE + "constructor") and element.get(C_IDENTIFIER)}
    for include in root.findall(CORE + "include"):
        name = f"{include.get('name')}-{include.get('version')}.gir"
        if name in seen:
            continue
        seen.add(name)
        found = [os.path.join(d, name) for d in directories if os.path.exists(os.path.join(d, name))]
        if not found:
            sys.exit(f"{gir_path}: cannot find the included {name} in {', '.join(directories)}")
        names |= function_identifiers(found[0], directories, seen)
    return names


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    gir_path = sys.argv[1]
    directories = sys.argv[2:] + ["/usr/share/gir-1.0"]
    functions = function_identifiers(gir_path, directories, set())
    problems = []
    parents = {child: parent for parent in ET.parse(gir_path).getroot().iter() for child in parent}
    for element, parent in parents.items():
        if element.tag != CORE + "doc" or not element.text:
            continue
        text = CODE_SPAN.sub("", element.text)
        where = parent.get(C_IDENTIFIER) or parent.get("name") or parent.tag.replace(CORE, "")
        for match in GTKDOC_REFERENCE.finditer(text):
            problems.append(f"{where}: {match.group(0)} (a gtk-doc reference: write a gi-docgen link)")
        for match in FUNCTION_REFERENCE.finditer(text):
            if match.group(1) in functions:
                problems.append(f"{where}: {match.group(0)} (write a gi-docgen link: [method@...], [func@...])")
    for problem in problems:
        print(f"{gir_path}: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
