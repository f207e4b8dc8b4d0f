#!/usr/bin/env python3
"""Percentiles of the MLPerf Inference datasets' prompt and output lengths, as models/servingcase.cpp holds them.

Reads the per-sample token counts that openshift-psap/performance-dashboard extracted from MLCommons' dataset
files (mlperf-data/summaries/<dataset>.csv, columns input_length,output_length; all five as of commit
67033bae) and prints, for each, the lengths at the percentiles below (linear between order statistics) and
the mean. Usage: validation/dataset-percentiles.py DIR_WITH_SUMMARIES
"""
import csv
import sys

PERCENTS = [0, 1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 97.5, 99, 99.5, 99.9, 100]
DATASETS = ["llama2-70b-99", "mixtral-8x7b", "llama3-1-405b", "llama3-1-8b-datacenter", "deepseek-r1"]


def percentile(sorted_values, percent):
    position = percent / 100 * (len(sorted_values) - 1)
    low = int(position)
    high = min(low + 1, len(sorted_values) - 1)
    return sorted_values[low] + (position - low) * (sorted_values[high] - sorted_values[low])


def main(folder):
    for name in DATASETS:
        with open(f"{folder}/{name}.csv", newline="") as f:
            rows = list(csv.DictReader(f))
        for column in ("input_length", "output_length"):
            values = sorted(int(r[column]) for r in rows if r[column] and int(r[column]) > 0)
            points = ", ".join(f"{{{p:g}, {round(percentile(values, p))}}}" for p in PERCENTS)
            mean = sum(values) / len(values)
            print(f"{name} {column} n={len(values)} mean={mean:.2f}\n    {{{points}}}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
