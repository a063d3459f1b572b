"""`python -m tests.nonseq_child ARGS...`: the real `nonseq` CLI in a child process (devkit/child.py)."""

from devkit.child import main

if __name__ == "__main__":
    main()
