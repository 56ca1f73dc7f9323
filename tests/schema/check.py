#!/usr/bin/python3
"""check.py SCHEMA FILE [TYPE]: every JSON object of FILE (one a line) whose
"type" is TYPE (all of them without TYPE) has exactly the fields SCHEMA
names, each of its type ("integer|null": either).  A renamed, missing or
extra field fails.  Prints how many objects were checked; exits 1 on the
first that does not fit, or when none was checked."""
import json
import sys

KINDS = {
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}


def fits(value, kinds):
    return any(KINDS[k](value) for k in kinds.split("|"))


def main():
    schema = json.load(open(sys.argv[1]))
    want_type = sys.argv[3] if len(sys.argv) > 3 else None
    fields, optional = schema["fields"], schema.get("optional", {})
    checked = 0
    for n, line in enumerate(open(sys.argv[2]), 1):
        line = line.strip()
        if not line.startswith("{"):
            continue
        obj = json.loads(line)
        if want_type and obj.get("type") != want_type:
            continue
        where = "%s:%d" % (sys.argv[2], n)
        for k, kinds in fields.items():
            if k not in obj:
                sys.exit("%s: field '%s' missing (%s)" % (where, k, sys.argv[1]))
            if not fits(obj[k], kinds):
                sys.exit("%s: field '%s' is %r, want %s" % (where, k, obj[k], kinds))
        for k, v in obj.items():
            if k in fields:
                continue
            if k not in optional:
                sys.exit("%s: field '%s' is not in %s" % (where, k, sys.argv[1]))
            if not fits(v, optional[k]):
                sys.exit("%s: field '%s' is %r, want %s" % (where, k, v, optional[k]))
        checked += 1
    if not checked:
        sys.exit("%s: no object%s to check" % (sys.argv[2], " of type " + want_type if want_type else ""))
    print(checked)


if __name__ == "__main__":
    main()
