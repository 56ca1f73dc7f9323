"""The go file every test helper waits for (tests/helpers/go.h in C)."""
import os
import sys
import time


def wait_go(go):
    """Returns once the file go exists; exits when its directory is gone: the
    test that started the helper failed early and left, and must leave
    nothing running behind it."""
    while not os.path.exists(go):
        if not os.path.isdir(os.path.dirname(go) or "."):
            sys.exit("%s: the test that started it is gone" % os.path.basename(sys.argv[0]))
        time.sleep(0.01)
