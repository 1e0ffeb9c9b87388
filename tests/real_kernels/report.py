"""Run litmus over the real-kernel suite and print the table: case -> label -> verdict -> the cause litmus names.

Usage: .venv/bin/python tests/real_kernels/report.py [--json OUT.json] [--md OUT.md] [CASE ...]

Each case is a folder of this directory holding one kernel file (named like the kernel, as litmus's loader picks it).
The label (correct or a planted-bug family) is read from the file's LITMUS literal with `ast.literal_eval`; nothing
in the file runs here. litmus's verdict comes from `litmus.check.check(path, quick=True)`; a file litmus's loader
refuses (`KernelFileError`, or another usage error, ValueError) is reported as REFUSED with litmus's message as its
cause.

The figures printed: % of correct kernels ACCEPTed, % of planted bugs REJECTed, and the false verdicts (an ACCEPT of
a buggy kernel, a REJECT of a correct one, a REJECT without a witness), which must be 0."""
from __future__ import annotations
import argparse, ast, json, re, sys, time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCES = {"liger": "Liger-Kernel 0.8.5", "fg": "FlagGems 5.0.2", "tut": "tutorial-style (written here)"}


def kernel_file(case: str) -> Path:
    "The one kernel file of a case folder."
    files = sorted(p for p in (HERE / case).glob("*.py"))
    if len(files) != 1:
        raise ValueError(f"case {case}: expected one kernel file in {HERE / case}, found {[p.name for p in files]}")
    return files[0]


def cases() -> list[str]:
    "Every case folder, sorted (correct kernel and its buggy siblings sort next to each other)."
    return sorted(p.name for p in HERE.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")) and list(p.glob("*.py")))


def litmus_literal(path: Path) -> dict:
    "The LITMUS literal of a file, parsed, never run."
    tree = ast.parse(path.read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "LITMUS" for t in node.targets):
            return ast.literal_eval(node.value)
    raise ValueError(f"{path}: no LITMUS literal")


def label(case: str) -> str:
    return litmus_literal(kernel_file(case)).get("label") or "unlabelled"


def source(case: str) -> str:
    return SOURCES.get(case.split("_")[0], "?")


def run_case(case: str) -> dict:
    "litmus's verdict on one case: verdict, reasons, witness, seconds (REFUSED when the loader refuses the file)."
    from litmus.check import check
    from litmus.kernelfile import KernelFileError
    path, start = kernel_file(case), time.monotonic()
    try:
        r = check(path, quick=True)
        out = {"verdict": r.verdict, "reasons": list(r.reasons), "witness": r.witness}
    except (KernelFileError, ValueError) as e:   # litmus's usage errors: the file or its literal is refused
        out = {"verdict": "REFUSED", "reasons": [str(e).replace(str(path), path.name)], "witness": ""}
    return {"case": case, "file": f"{case}/{path.name}", "label": label(case), "source": source(case), **out,
            "seconds": round(time.monotonic() - start, 2)}


def is_false(row: dict) -> str:
    "Why a row is a false verdict, or '' when it is not."
    buggy = row["label"] != "correct"
    if buggy and row["verdict"] == "ACCEPT":
        return "ACCEPT of a buggy kernel"
    if not buggy and row["verdict"] == "REJECT":
        return "REJECT of a correct kernel"
    if row["verdict"] == "REJECT" and not row["witness"].strip():
        return "REJECT without a witness"
    return ""


_NOISE = [(re.compile(r"line \d+"), "line N"), (re.compile(r"\b\w*(_kernel|kernel_|_forward|_fwd)\w*\b"), "K"),
          (re.compile(r"(?<![\w.])-?\d+(\.\d+)?(e[-+]?\d+)?"), "#")]


def cause_key(reason: str) -> str:
    "A short, case-independent name of one reason litmus gives: lines, kernel names and numbers blanked."
    text = reason.split(" (not modelled:")[0].split("; a kernel may read only")[0].split("; known")[0]
    for pattern, repl in _NOISE:
        text = pattern.sub(repl, text)
    return text[:200]


def causes(row: dict) -> list[str]:
    "The distinct cause keys of a row, in the order litmus gives them."
    keys = [cause_key(r) for r in row["reasons"]] or ["(no reason given)"]
    return list(dict.fromkeys(keys))


def figures(rows: list[dict]) -> dict:
    correct = [r for r in rows if r["label"] == "correct"]
    buggy = [r for r in rows if r["label"] != "correct"]
    count = lambda rs, v: sum(r["verdict"] == v for r in rs)
    pct = lambda a, b: round(100.0 * a / b, 1) if b else 0.0
    return {"correct": len(correct), "correct_accept": count(correct, "ACCEPT"), "correct_unknown": count(correct, "UNKNOWN"),
            "correct_refused": count(correct, "REFUSED"), "correct_reject": count(correct, "REJECT"),
            "buggy": len(buggy), "buggy_reject": count(buggy, "REJECT"), "buggy_unknown": count(buggy, "UNKNOWN"),
            "buggy_refused": count(buggy, "REFUSED"), "buggy_accept": count(buggy, "ACCEPT"),
            "pct_correct_accepted": pct(count(correct, "ACCEPT"), len(correct)),
            "pct_bugs_rejected": pct(count(buggy, "REJECT"), len(buggy)),
            "false_verdicts": sum(bool(is_false(r)) for r in rows)}


def _figure_lines(title: str, rows: list[dict]) -> list[str]:
    f = figures(rows)
    return [f"**{title}**: correct kernels ACCEPTed {f['correct_accept']}/{f['correct']} ({f['pct_correct_accepted']}%), "
            f"UNKNOWN {f['correct_unknown']}, REFUSED {f['correct_refused']}, REJECT {f['correct_reject']}; "
            f"planted bugs REJECTed {f['buggy_reject']}/{f['buggy']} ({f['pct_bugs_rejected']}%), UNKNOWN {f['buggy_unknown']}, "
            f"REFUSED {f['buggy_refused']}, ACCEPT {f['buggy_accept']}; **false verdicts: {f['false_verdicts']}**", ""]


def markdown(rows: list[dict]) -> str:
    "The report: figures (all, upstream, tutorial-style), the per-file table, and the UNKNOWN/REFUSED causes grouped."
    out = ["## Figures", ""]
    out += _figure_lines("All", rows)
    out += _figure_lines("Upstream (Liger-Kernel, FlagGems)", [r for r in rows if not r["case"].startswith("tut_")])
    out += _figure_lines("Tutorial-style", [r for r in rows if r["case"].startswith("tut_")])
    falses = [r for r in rows if is_false(r)]
    if falses:
        out += ["**FALSE VERDICTS**: " + ", ".join(f"{r['case']} ({is_false(r)})" for r in falses), ""]
    out += ["## Per file", "", "| file | source | label | verdict | cause (litmus's reason text) | s |", "|---|---|---|---|---|---|"]
    for r in rows:
        why = "" if r["verdict"] == "ACCEPT" else "<br>".join(x.replace("|", "\\|").replace("\n", " ")[:400] for x in r["reasons"])
        out.append(f"| {r['file']} | {r['source']} | {r['label']} | {r['verdict']} | {why} | {r['seconds']} |")
    for title, pick in [("the first cause litmus names", lambda r: causes(r)[:1]), ("every cause litmus names (a file "
                        "counts once under each of its reasons)", causes)]:
        groups: dict = {}
        for r in rows:
            if r["verdict"] in ("UNKNOWN", "REFUSED"):
                for key in pick(r):
                    groups.setdefault((r["verdict"], key), []).append(r)
        out += ["", f"## UNKNOWN and REFUSED, grouped by {title}", "",
                "| verdict | cause | files | correct | buggy | cases |", "|---|---|---|---|---|---|"]
        for (verdict, key), rs in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            ok = sum(r["label"] == "correct" for r in rs)
            out.append(f"| {verdict} | {key.replace('|', '/')} | {len(rs)} | {ok} | {len(rs) - ok} | {', '.join(r['case'] for r in rs)} |")
    return "\n".join(out) + "\n"


def from_json(path) -> str:
    "The markdown of rows saved by an earlier `--json` run (no litmus run)."
    return markdown(json.loads(Path(path).read_text()))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("cases", nargs="*", help="case folders (default: all)")
    p.add_argument("--json", help="also write the rows as JSON here")
    p.add_argument("--md", help="also write the markdown report here")
    p.add_argument("--from-json", help="print the report of rows saved by an earlier --json run, running nothing")
    a = p.parse_args(argv)
    if a.from_json:
        print(from_json(a.from_json))
        return json.loads(Path(a.from_json).read_text())
    rows = []
    for case in a.cases or cases():
        rows.append(run_case(case))
        print(f"{case:40s} {rows[-1]['label']:16s} {rows[-1]['verdict']:8s} {rows[-1]['seconds']:6.1f}s", file=sys.stderr)
    text = markdown(rows)
    print(text)
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1))
    if a.md:
        Path(a.md).write_text(text)
    return rows


if __name__ == "__main__":
    main()
