"""The report of Scripts/bench-ab.sh and Scripts/bench-apis.sh: reads the rounds file each writes (one line per row
and round, "title|value|value|...") and prints a Markdown table with, for each row, the median over its rounds of
the ratios asked for, as Scripts/bench.sh reports them.

    python3 Scripts/lib/ratios.py ROUNDS-FILE DIGITS "HEADING=A/B"...

A and B count the values after the title from 0: "new/old speed=0/1" is the median of value 0 / value 1.
"""
import statistics
import sys


def main(path, digits, columns):
    rows = {}
    for line in open(path):
        title, *values = line.strip().split("|")
        rows.setdefault(title, []).append([float(v) for v in values])
    pairs = []
    for column in columns:
        heading, quotient = column.rsplit("=", 1)
        a, b = (int(i) for i in quotient.split("/"))
        pairs.append((heading, a, b))
    print("| Row | " + " | ".join(heading for heading, _, _ in pairs) + " |")
    print("| --- |" + " ---: |" * len(pairs))
    for title, samples in rows.items():
        cells = (f"{statistics.median(s[a] / s[b] for s in samples):.{digits}f}×" for _, a, b in pairs)
        print(f"| {title} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3:])
