#!/usr/bin/env python3
"""Lists the enum values of the API reference that have no documentation.

A value is documented by its own comment (`/**< ... */` after it or `/** ... */`
before it), or by the enum's doc comment naming it (for one-line enums such as
`enum glia_fan_mode { GLIA_FAN_IN = 0, GLIA_FAN_OUT = 1 }`).

Doxygen 1.9 (Debian's) warns about undocumented functions, structs, members,
macros and typedefs, but not about enum values; this reads doxygen's XML
output (docs/api/Doxyfile sets GENERATE_XML) and prints one line per
undocumented value, "path:line: enum value NAME of enum ENUM is not
documented", in doxygen's warning format. Exit status 1 when there is any.

    python3 docs/api/check_enum_values.py <xml dir>
"""
import glob
import os
import re
import sys
import xml.etree.ElementTree as ET


def text(node):
    return "".join(node.itertext()).strip() if node is not None else ""


def main(xml_dir):
    seen = {}
    for path in sorted(glob.glob(os.path.join(xml_dir, "*.xml"))):
        if os.path.basename(path) in ("index.xml", "Doxyfile.xml"):
            continue
        root = ET.parse(path).getroot()
        for enum in root.iter("memberdef"):
            if enum.get("kind") != "enum":
                continue
            enum_name = text(enum.find("name"))
            enum_doc = text(enum.find("briefdescription")) + " " + text(enum.find("detaileddescription"))
            for value in enum.iter("enumvalue"):
                name = text(value.find("name"))
                documented = bool(text(value.find("briefdescription")) or text(value.find("detaileddescription")) or
                                  re.search(r"\b%s\b" % re.escape(name), enum_doc))
                loc = enum.find("location")
                where = "%s:%s" % (loc.get("file"), loc.get("line")) if loc is not None else "?"
                # An enum is listed in its file's and in its group's XML: report each value once.
                previous = seen.get(name)
                seen[name] = (documented or (previous is not None and previous[0]), where, enum_name)
    missing = [(where, name, enum_name) for name, (documented, where, enum_name) in seen.items() if not documented]
    for where, name, enum_name in sorted(missing):
        print("%s: enum value %s of enum %s is not documented." % (where, name, enum_name))
    return 1 if missing else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
