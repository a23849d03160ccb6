#!/usr/bin/env python3
"""Runs the commands of a Markdown page as a reader would type them.

    run_doc_commands.py --eddy EXE [--mpiexec EXE] [--copy DIR]... --scratch DIR PAGE.md

Every fenced ```bash block of PAGE runs, in page order, in one bash process started in the
empty directory DIR (removed first), with `set -e`: files, variables and the current directory
carry from one block to the next, as in the reader's shell, and the first command that fails
ends the run. `eddy` (and `mpirun` / `mpiexec` with --mpiexec) are first on PATH; Open MPI may
run as root and oversubscribe the cores, so `mpirun -n 2 eddy run ...` runs as written on a
machine with fewer cores. --copy puts a copy of a directory (e.g. the repository's inputs/)
into DIR, so that commands given from the repository's root find it.

A block whose last non-blank line before the fence is an HTML comment starting with `not run`
(`<!-- not run: why -->`) is skipped: commands that install, build or open a window.

Exit status: 0 when every block ran, 1 when one failed (its line in PAGE is named), 2 for a
page without runnable blocks or a bad command line.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys

FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)")
SKIP = re.compile(r"^\s*<!--\s*not run\b.*-->\s*$")


def blocks(path):
    """(first line number, language, text, skipped) of each fenced block of a Markdown file."""
    lines = open(path, encoding="utf-8").read().split("\n")
    out, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, lang = m.group(1), m.group(2), m.group(3).lower()
        before = next((l for l in reversed(lines[:i]) if l.strip()), "")
        body, j = [], i + 1
        while j < len(lines) and not lines[j].strip().startswith(fence):
            body.append(lines[j][len(indent):] if lines[j].startswith(indent) else lines[j])
            j += 1
        out.append((i + 2, lang, "\n".join(body), bool(SKIP.match(before))))
        i = j + 1
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--eddy", required=True, help="the eddy executable to put on PATH")
    ap.add_argument("--mpiexec", help="the MPI launcher, on PATH as mpirun and mpiexec")
    ap.add_argument("--copy", action="append", default=[], help="directory to copy into DIR")
    ap.add_argument("--scratch", required=True, help="directory the commands run in (emptied)")
    ap.add_argument("page")
    args = ap.parse_args()

    page = os.path.abspath(args.page)
    runnable = [b for b in blocks(page) if b[1] in ("bash", "sh", "shell")]
    run = [b for b in runnable if not b[3]]
    if not run:
        print("FAIL: %s has no runnable ```bash block" % page)
        return 2

    scratch = os.path.abspath(args.scratch)
    shutil.rmtree(scratch, ignore_errors=True)
    bindir = os.path.join(scratch, ".bin")
    os.makedirs(bindir)
    os.symlink(os.path.abspath(args.eddy), os.path.join(bindir, "eddy"))
    if args.mpiexec:
        for name in ("mpirun", "mpiexec"):
            os.symlink(os.path.abspath(args.mpiexec), os.path.join(bindir, name))
    for d in args.copy:
        shutil.copytree(d, os.path.join(scratch, os.path.basename(os.path.normpath(d))))

    # One script: each block announces itself, so a failure names the block it is in.
    script = ["set -e", "trap 'echo \"FAIL: the block at %s:$doc_line failed (exit $?)\"' ERR"
              % args.page]
    for line, _, text, _ in run:
        script += ["doc_line=%d" % line, "echo \"=== %s:%d\"" % (args.page, line), text]
    env = dict(os.environ)
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    env.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                "OMPI_MCA_rmaps_base_oversubscribe": "1",
                "PRTE_MCA_rmaps_default_mapping_policy": ":oversubscribe"})
    rc = subprocess.call(["bash", "-c", "\n".join(script)], cwd=scratch, env=env)
    skipped = [b[0] for b in runnable if b[3]]
    print("%s: %d block(s) run, %d skipped (marked `not run`, lines %s)"
          % (args.page, len(run), len(skipped), ", ".join(map(str, skipped)) or "none"))
    if rc != 0:
        print("FAIL: exit status %d" % rc)
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
