#!/usr/bin/env python3
"""Score a corpus with bleu-stream on Spark: every partition of the input is piped through
`bleu-stream --emit stats` (rdd.pipe), the stats documents come back in partition order (which is
input order), and `bleu-stream merge` sums them into the corpus report of the whole input -- the
same report, bit for bit, as one `bleu-stream` run over the file.

Usage:
  spark_bleu.py [--master URL] [--split-size BYTES] [--bleu-stream PATH]
                [--merge-options "OPTS"] INPUT [-- BLEU_STREAM_OPTIONS...]

  INPUT              a TSV (`hyp<TAB>ref1<TAB>ref2...`) or JSON Lines file, any path Spark reads
                     (local, hdfs://, s3a://...)
  BLEU_STREAM_OPTIONS metric and framing options of every shard's run, e.g.
                     `-- -m bleu,chrf --refs 2`. Give --refs N (and --input tsv|jsonl): with the
                     defaults each shard would infer them from its own first lines.
  --merge-options    options of `bleu-stream merge`, one string: "-f jsonl", "-b", "-w 4"...
  --split-size       largest input split in bytes (suffix k, m, g), i.e. the size of a shard;
                     default: the file system's block size
  --bleu-stream      the binary, which must exist on every executor (default: bleu-stream on
                     PATH; ship it with spark-submit --files and give ./bleu-stream)
  --master           Spark master (default: spark-submit's --master; local[*] when run by
                     python3 itself)

Examples:
  python3 scripts/spark_bleu.py corpus.tsv -- -m bleu,chrf --refs 2
  spark-submit --files target/release/bleu-stream scripts/spark_bleu.py \\
      --bleu-stream ./bleu-stream hdfs:///data/corpus.tsv -- --refs 1 -m bleu,chrf,nist

The report is printed on stdout and the exit status is merge's (0, or 2 when documents cannot
be merged, 3 below --fail-under given in --merge-options). Lines are split at "\\n" only, as
bleu-stream splits them; Spark decodes them as UTF-8, so invalid UTF-8 reaches bleu-stream as
U+FFFD (what --invalid-utf8 lossy does), not as a bad line.
"""

import argparse
import shlex
import shutil
import subprocess
import sys


def size(text):
    """`256k`, `64m`, `1g` or a number of bytes."""
    units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
    text = text.strip().lower()
    if text and text[-1] in units:
        return int(text[:-1]) * units[text[-1]]
    return int(text)


def parse_args(argv):
    if "--" in argv:
        i = argv.index("--")
        argv, shard_options = argv[:i], argv[i + 1 :]
    else:
        shard_options = []
    p = argparse.ArgumentParser(
        prog="spark_bleu.py",
        description="bleu-stream on Spark: rdd.pipe('bleu-stream --emit stats') per partition, "
        "then bleu-stream merge.",
        epilog="Options after -- go to every shard's bleu-stream run.",
    )
    p.add_argument("input", help="TSV or JSON Lines input (any path Spark reads)")
    p.add_argument("--master", help="Spark master (default: spark-submit's, or local[*])")
    p.add_argument("--split-size", type=size, help="largest input split (shard) in bytes")
    p.add_argument("--bleu-stream", default="bleu-stream", help="path of the binary")
    p.add_argument("--merge-options", default="", help='options of merge, e.g. "-f jsonl"')
    args = p.parse_args(argv)
    args.shard_options = shard_options
    return args


def main(argv):
    args = parse_args(argv)
    # PySpark's rdd.pipe runs the command with an empty environment (no PATH): a bare name is
    # looked up here, on the driver's PATH, and the executors get its full path.
    args.bleu_stream = shutil.which(args.bleu_stream) or args.bleu_stream
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName("bleu-stream").config(
        "spark.ui.showConsoleProgress", "false"
    )
    if args.master:
        builder = builder.master(args.master)
    spark = builder.getOrCreate()
    sc = spark.sparkContext
    sc.setLogLevel("WARN")
    try:
        # Lines end at "\n" only (Hadoop's default also ends them at a bare "\r"); a "\r\n" line
        # keeps its "\r", which bleu-stream drops as it does on its own input.
        conf = {"textinputformat.record.delimiter": "\n"}
        if args.split_size:
            conf["mapreduce.input.fileinputformat.split.maxsize"] = str(args.split_size)
        lines = sc.newAPIHadoopFile(
            args.input,
            "org.apache.hadoop.mapreduce.lib.input.TextInputFormat",
            "org.apache.hadoop.io.LongWritable",
            "org.apache.hadoop.io.Text",
            conf=conf,
        ).map(lambda kv: kv[1])
        command = " ".join(
            shlex.quote(a) for a in [args.bleu_stream, "--emit", "stats", *args.shard_options]
        )
        # One stats document (one line) per partition; collect() keeps partition order. A shard
        # whose run fails (exit status not 0) fails the job (checkCode).
        docs = lines.pipe(command, checkCode=True).collect()
        partitions = lines.getNumPartitions()
    finally:
        spark.stop()
    if len(docs) != partitions:
        sys.exit(f"spark_bleu.py: {len(docs)} documents from {partitions} partitions")
    merge = subprocess.run(
        [args.bleu_stream, "merge", *shlex.split(args.merge_options)],
        input="".join(d + "\n" for d in docs).encode("utf-8"),
        check=False,
    )
    print(f"spark_bleu.py: merged {partitions} partitions", file=sys.stderr)
    return merge.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
