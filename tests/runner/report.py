"""The end of a runner test: each failure on a line of its own, then one summary line; the exit
code (1 if anything failed)."""


def report(failures, summary):
    for f in failures:
        print("FAIL", f)
    print(f"{'FAILED' if failures else 'passed'}: {summary}")
    return 1 if failures else 0
