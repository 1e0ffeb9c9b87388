"""Write litmus's corpus as a local dataset (parquet, with a dataset card), loadable with `datasets.load_dataset`.

    python scripts/build_dataset.py [--out build/litmus-kernels]
    >>> from datasets import load_dataset
    >>> ds = load_dataset("build/litmus-kernels", split="train")

One row per corpus kernel: its name, source, label ('correct' or the planted bug's family), family (None when
correct), witness (the answer key: the sizes and input recipe that expose the bug, as JSON), spec, domain, dims and the
one-line reason a standard test misses the bug. Nothing is downloaded and nothing is uploaded.
"""
import argparse, json, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CARD = """---
license: apache-2.0
configs:
- config_name: default
  data_files:
  - split: train
    path: data/train-*.parquet
---
# litmus-kernels

{n} Triton kernels from litmus's corpus ({correct} correct, {buggy} with a planted bug), one row each: `name`, `source`
(the kernel file: the `@triton.jit` kernel, its `LITMUS` launch literal and a numpy reference), `label`, `family`,
`witness` (JSON: the sizes and input recipe that expose the bug), `spec`, `domain` and `dims` (JSON), `why`.
Families: {families}.
"""


def rows() -> list[dict]:
    "The corpus as plain rows (JSON text for the nested fields, so every column has one type)."
    sys.path.insert(0, str(ROOT))
    from litmus import corpus
    return [{"name": k.name, "source": k.source, "label": k.label, "family": k.family,
             "witness": json.dumps(k.answer_key or {}, sort_keys=True), "spec": k.spec,
             "domain": json.dumps(k.domain, sort_keys=True), "dims": json.dumps(k.dims, sort_keys=True), "why": k.why}
            for k in corpus.kernels()]


def build(out: Path) -> Path:
    "Write out/data/train-00000-of-00001.parquet and out/README.md; return the parquet path."
    from datasets import Dataset
    from litmus import corpus
    table = rows()
    out = Path(out)
    (out / "data").mkdir(parents=True, exist_ok=True)
    path = out / "data" / "train-00000-of-00001.parquet"
    Dataset.from_list(table).to_parquet(str(path))
    buggy = sum(r["label"] != "correct" for r in table)
    (out / "README.md").write_text(CARD.format(n=len(table), correct=len(table) - buggy, buggy=buggy, families=", ".join(corpus.FAMILIES)))
    return path


def main(argv=None):
    p = argparse.ArgumentParser(description="write litmus's corpus as a local parquet dataset")
    p.add_argument("--out", default=str(ROOT / "build" / "litmus-kernels"))
    args = p.parse_args(argv)
    path = build(Path(args.out))
    print(f"wrote {path} ({len(rows())} kernels); load it with datasets.load_dataset({str(Path(args.out))!r}, split='train')")


if __name__ == "__main__":
    main()
