"""Checks that vendored framework sources are verbatim copies of the commit they cite.

Each framework's folder under ``clients/python/tests/vendor/`` holds a ``VENDOR.json``::

    {"repo": "verl-project/verl", "commit": "<40 hex digits>", "license": "LICENSE",
     "files": {"verl/experimental/agent_loop/agent_loop.py": "<git blob id at that commit>", ...}}

and the files themselves at those paths inside the folder (the licence file among them). A file is
verbatim when its git blob id (``git hash-object``: sha1 of ``blob <size>\\0<bytes>``) is the one the
commit's tree gives (``git ls-tree -r <commit>`` in a clone of ``repo``), so a hand edit of a vendored
file fails here. ``python3 check_vendor.py [FOLDER...]`` prints one line per problem and exits 1 on any.
"""
import hashlib
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def blob_id(data):
    """The git blob id of some bytes."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def check_folder(folder):
    """Problems of one vendored framework folder (an empty list when every file is verbatim)."""
    problems = []
    manifest_path = os.path.join(folder, "VENDOR.json")
    try:
        with open(manifest_path, "rb") as f:
            manifest = json.loads(f.read().decode("utf-8"))
    except (OSError, ValueError) as e:
        return ["%s: cannot read (%s)" % (manifest_path, e)]
    for key in ("repo", "commit", "license", "files"):
        if key not in manifest:
            problems.append("%s: missing %r" % (manifest_path, key))
    if problems:
        return problems
    if not re.fullmatch(r"[0-9a-f]{40}", manifest["commit"]):
        problems.append("%s: commit must be 40 hex digits" % manifest_path)
    if manifest["license"] not in manifest["files"]:
        problems.append("%s: the licence file %r is not among the vendored files" % (manifest_path, manifest["license"]))
    for rel, want in sorted(manifest["files"].items()):
        path = os.path.join(folder, rel)
        try:
            with open(path, "rb") as f:
                got = blob_id(f.read())
        except OSError as e:
            problems.append("%s: cannot read (%s)" % (path, e))
            continue
        if got != want:
            problems.append("%s: blob %s, but %s@%s has %s: not a verbatim copy" % (path, got, manifest["repo"], manifest["commit"][:12], want))
    return problems


def folders():
    """Every vendored framework folder: each folder under this one holding a VENDOR.json (nested ones too,
    e.g. a framework's own dependency vendored beside it)."""
    found = []
    for root, dirs, files in os.walk(HERE):
        dirs.sort()
        if root != HERE and "VENDOR.json" in files:
            found.append(root)
    return sorted(found)


def main(argv):
    chosen = [os.path.abspath(a) for a in argv] or folders()
    problems = [p for folder in chosen for p in check_folder(folder)]
    for p in problems:
        print(p)
    if not problems:
        print("ok: %d vendored framework%s verbatim" % (len(chosen), "" if len(chosen) == 1 else "s"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
