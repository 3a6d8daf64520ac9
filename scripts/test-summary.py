#!/usr/bin/python3
"""Prints one closing line, 'N passed, N failed, N skipped', counting every
TAP subtest of every test program and every non-TAP test once, over all
the meson logs (testlog*.json) and plain TAP files (*.tap) given; a file
that does not exist counts as one failed test (its step did not run)."""
import json
import re
import sys

TAP = re.compile(r"^\s*(not ok|ok)\b(.*)$")


def count(path):
    passed = failed = skipped = 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            test = json.loads(line)
            output = test.get("stdout") or ""
            tap = [TAP.match(l) for l in output.splitlines()]
            tap = [m for m in tap if m]
            if tap:
                for m in tap:
                    if m.group(1) == "not ok":
                        if "# TODO" in m.group(2).upper():
                            continue
                        failed += 1
                    elif "# SKIP" in m.group(2).upper():
                        skipped += 1
                    else:
                        passed += 1
                # a crash after the last subtest still fails the program
                crashed = test.get("result") not in ("OK", "SKIP", "EXPECTEDFAIL")
                if crashed and not any(m.group(1) == "not ok" for m in tap):
                    failed += 1
                continue
            result = test.get("result")
            if result == "OK" or result == "EXPECTEDFAIL":
                passed += 1
            elif result == "SKIP":
                skipped += 1
            else:
                failed += 1
    return passed, failed, skipped


def count_tap(path):
    passed = failed = skipped = 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = TAP.match(line)
            if not m:
                continue
            if m.group(1) == "not ok":
                failed += 1
            elif "# SKIP" in m.group(2).upper():
                skipped += 1
            else:
                passed += 1
    return passed, failed, skipped


def main():
    totals = [0, 0, 0]
    for path in sys.argv[1:]:
        try:
            counts = count_tap(path) if path.endswith(".tap") else count(path)
        except FileNotFoundError:
            print(f"test-summary: {path} is missing", file=sys.stderr)
            counts = (0, 1, 0)
        totals = [a + b for a, b in zip(totals, counts)]
    print(f"{totals[0]} passed, {totals[1]} failed, {totals[2]} skipped")


if __name__ == "__main__":
    main()
