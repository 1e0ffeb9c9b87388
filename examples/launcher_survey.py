"""How far litmus reads launchers it was never tuned to: every plain-Python entry of every op file under the folders
given (unpacked wheels, e.g. `pip download --no-deps liger-kernel flag-gems`), read as `litmus init FILE --entry NAME`
reads it, and classified:

- derived: the reader gave launch descriptions (what `litmus init` prints);
- refused: a usage error (exit 3) naming the construct and the line: the message is kept, and the refusals are
  grouped by construct (the message with its quoted code and numbers taken out), most frequent first;
- crash: any other exception (a traceback: a bug, even where the command line would fold it into exit 3);
- timeout: the reading took longer than --timeout seconds.

    .venv/bin/python examples/launcher_survey.py /work/tmp/wheels/liger_kernel/liger_kernel/ops \
        /work/tmp/wheels/flag_gems/flag_gems/ops [--json out.json] [--show-crashes]

It reads each file in this process (the reader runs nothing from the file) with an alarm per entry; it checks
nothing (no kernel is run), so it is quick: a few seconds a hundred files on a quiet machine.
"""
import argparse
import collections
import json
import re
import signal
import sys
import traceback
from pathlib import Path

from litmus.kernelfile import KernelFileError
from litmus.launcher import file_literal, launchers, literal_text, read_launches


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout()


def construct(message: str) -> str:
    "A refusal's construct: what the launcher 'does' in the message, with quoted code, names and numbers taken out."
    what = message
    m = re.search(r"line \d+: (?:the launcher '[^']*' )?(.*?)(?:; litmus reads launchers|$)", message)
    if m:
        what = m.group(1)
    what = re.sub(r"`[^`]*`", "`…`", what)
    what = re.sub(r"'[^']*'", "'…'", what)
    what = re.sub(r"\b\d+\b", "N", what)
    what = re.sub(r"\b_*[A-Za-z]\w*_\w*\b", "NAME", what)     # kernel and parameter names: the construct stays
    what = re.sub(r"\([^()]*\)", "(…)", what)
    return what[:140]


def survey_entry(path: Path, entry: str, timeout: int) -> dict:
    "One entry read as `litmus init` reads it: {'status': derived | refused | crash | timeout, ...}."
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(timeout)
    try:
        metas, notes = read_launches(path, entry, None, {}, file_literal(path))
        literal_text(metas, notes)
        return {"status": "derived", "launches": len(metas)}
    except _Timeout:
        return {"status": "timeout"}
    except KernelFileError as e:        # a LauncherError is one: the usage error (exit 3) the command line prints
        line = re.search(r"line (\d+)", str(e))
        return {"status": "refused", "message": str(e), "construct": construct(str(e)),
                "line": int(line.group(1)) if line else None}
    except Exception as e:              # anything else is a bug in the reader
        return {"status": "crash", "error": f"{type(e).__name__}: {e}"[:300], "traceback": traceback.format_exc()}
    finally:
        signal.alarm(0)


def survey(folders, timeout: int = 30) -> list[dict]:
    "One record per (file, entry) of every .py directly under each folder; a file with no launcher is one record too."
    out = []
    for folder in folders:
        for path in sorted(Path(folder).glob("*.py")):
            try:
                entries = launchers(path)
            except KernelFileError as e:
                out.append({"file": str(path), "entry": None, "status": "unloadable", "message": str(e)[:300]})
                continue
            if not entries:
                out.append({"file": str(path), "entry": None, "status": "no launcher"})
            for entry in entries:
                out.append({"file": str(path), "entry": entry, **survey_entry(path, entry, timeout)})
    return out


def summary(records: list[dict], top: int = 25) -> str:
    entries = [r for r in records if r["entry"] is not None]
    files = {r["file"] for r in records}
    with_entry = {r["file"] for r in entries}
    counts = collections.Counter(r["status"] for r in entries)
    lines = [f"{len(files)} files, {len(with_entry)} with a plain-Python launcher, {len(entries)} entries: "
             + ", ".join(f"{k} {counts.get(k, 0)}" for k in ("derived", "refused", "crash", "timeout")),
             f"files without a launcher: {sum(r['status'] == 'no launcher' for r in records)}, "
             f"unloadable: {sum(r['status'] == 'unloadable' for r in records)}", "", "refusals by construct:"]
    constructs = collections.Counter(r["construct"] for r in entries if r["status"] == "refused")
    for what, n in constructs.most_common(top):
        example = next(r for r in entries if r.get("construct") == what)
        lines.append(f"  {n:3d}  {what}    [e.g. {Path(example['file']).name}:{example['entry']} line {example['line']}]")
    crashes = [r for r in entries if r["status"] in ("crash", "timeout")]
    if crashes:
        lines += ["", "crashes and timeouts:"]
        lines += [f"  {Path(r['file']).name}:{r['entry']}: {r.get('error', 'timeout')}" for r in crashes]
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("folders", nargs="+")
    p.add_argument("--timeout", type=int, default=30, help="seconds per entry")
    p.add_argument("--json", help="write every record to this file")
    p.add_argument("--show-crashes", action="store_true", help="print each crash's traceback")
    p.add_argument("--top", type=int, default=25, help="constructs to list")
    args = p.parse_args(argv)
    records = survey(args.folders, args.timeout)
    print(summary(records, args.top))
    if args.show_crashes:
        for r in records:
            if r["status"] == "crash":
                print(f"\n== {r['file']}:{r['entry']}\n{r['traceback']}")
    if args.json:
        Path(args.json).write_text(json.dumps(records, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
