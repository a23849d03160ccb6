"""Test driver of the post-processing scripts (standard library only).

    run_post.py run DIR -- EDDY run DECK          remove DIR, then run the deck (which writes DIR)
    run_post.py plot PYTHON PNG -- SCRIPT ARGS    run a matplotlib script with PYTHON
    run_post.py pv PVBATCH XVFB_RUN PNG -- SCRIPT ARGS
                                                  run a pvbatch script (under xvfb-run when given)

`plot` and `pv` remove PNG first, run the script, then check the picture with check_png.py.
They exit with 77 (SKIP_RETURN_CODE of the tests) only when the tools are missing: PYTHON
cannot import numpy, h5py, yaml and matplotlib, or pvbatch was not found. Any other failure is
status 1 with the output of what failed. Starting Xvfb can fail on a busy machine ("bad X
server connection"): such a start is retried four times after growing pauses, any other failure
is not.
"""
import os
import shutil
import subprocess
import sys
import time

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))
X_FAILURES = ("bad X server connection", "cannot open display", "Can't open display")


def split(argv):
    if "--" not in argv:
        sys.exit("run_post.py: expected -- before the command")
    i = argv.index("--")
    return argv[:i], argv[i + 1:]


def execute(cmd, attempts=1):
    for attempt in range(attempts):
        print("run_post.py: " + " ".join(cmd), flush=True)
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        print(p.stdout, end="", flush=True)
        if p.returncode == 0 or not any(x in p.stdout for x in X_FAILURES):
            break
        print("run_post.py: X server start failed (attempt %d); retrying" % (attempt + 1))
        time.sleep(3 * (attempt + 1))  # a busy machine: give the last X server time to go
    if p.returncode != 0:
        print("run_post.py: FAIL: exit status %d" % p.returncode)
        sys.exit(1)


def check(png):
    execute([sys.executable, os.path.join(HERE, "check_png.py"), png])


def usable(program):
    return program and not program.endswith("-NOTFOUND") and shutil.which(program)


def main():
    mode, rest = sys.argv[1] if len(sys.argv) > 1 else "", sys.argv[2:]
    args, cmd = split(rest)
    if mode == "run":
        shutil.rmtree(args[0], ignore_errors=True)
        execute(cmd)
    elif mode == "plot":
        python, png = args
        need = "import numpy, h5py, yaml, matplotlib"
        if not usable(python) or subprocess.run([python, "-c", need],
                                                capture_output=True).returncode != 0:
            print("SKIP: %s cannot import numpy, h5py, yaml and matplotlib (scripts/setup "
                  "installs them)" % python)
            sys.exit(SKIP)
        if os.path.exists(png):
            os.remove(png)
        execute([python] + cmd)
        check(png)
    elif mode == "pv":
        pvbatch, xvfb_run, png = args
        if not usable(pvbatch):
            print("SKIP: pvbatch not found (scripts/setup installs paraview)")
            sys.exit(SKIP)
        prefix = [pvbatch]
        if usable(xvfb_run):
            prefix = [xvfb_run, "-a", "-s", "-screen 0 1024x768x24", pvbatch]
        elif not os.environ.get("DISPLAY"):
            print("SKIP: no xvfb-run and no DISPLAY for pvbatch")
            sys.exit(SKIP)
        if os.path.exists(png):
            os.remove(png)
        execute(prefix + cmd, attempts=5)
        check(png)
    else:
        sys.exit("run_post.py: unknown mode '%s' (run, plot or pv)" % mode)


if __name__ == "__main__":
    main()
