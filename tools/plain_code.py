"""One statement per line in every exported notebook cell (CONVENTIONS.md, issue #29; ruff E701, E702, E703).

    python tools/plain_code.py            # rewrite the exported cells of every notebook under nbs/, split long cells
    python tools/plain_code.py --check    # list the exported cells that still join statements; exit 1 if any

The rewrite works on `ast` positions and `tokenize` tokens, never on regexes over raw text, so strings, f-strings,
comments and continuation lines come through untouched. It makes three kinds of edit:

- a simple statement on its compound header's line (`if x: y`, `else: y`, `def f(): return x`) moves to the next line,
  indented 4 spaces under the header;
- a `;` between two statements becomes a line break at the statement list's indentation;
- a trailing `;` is dropped.

A moved statement's continuation lines shift by as many columns as its first line moved (lines inside a multi-line
string never move). Then an exported cell of more than SPLIT_OVER lines with several top-level statements is split at
top-level statement boundaries (never inside one) into cells of about PACK_LINES lines, each carrying the original's
directive lines and a fresh 8-hex-digit id.

The proof that behaviour is unchanged is built in and runs on every cell touched: `ast.dump(ast.parse(old))` must equal
`ast.dump(ast.parse(new))` (positions are not part of the dump), and for a split cell the concatenation of the new
cells' code must parse to the old cell's AST. If any cell fails it, the tool writes nothing and exits 1, naming the
notebook and cell.
"""
from __future__ import annotations

import argparse
import ast
import hashlib
import io
import json
import re
import sys
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NBS = ROOT / "nbs"
EXPORT = re.compile(r"#\s*\|\s*exports?\b")     # nbdev's `#| export`, `#| exports`, `#|export`
DIRECTIVE = re.compile(r"\s*#\s*\|")
SPLIT_OVER = 40      # an exported cell longer than this, with several top-level statements, is split
PACK_LINES = 30      # the split packs whole top-level statements into cells of at most this many lines (when it can)
MAX_CELL_LINES = 60  # tests/test_ci_checks.py fails on a longer code cell
TINY_LINES = 3       # a pack this short is not a cell of its own where joining a neighbour keeps under MAX_CELL_LINES


# ---------------------------------------------------------------------------------------------------------------
# Reading a cell

def cell_text(cell: dict) -> str:
    source = cell["source"]
    return source if isinstance(source, str) else "".join(source)


def directive_lines(text: str) -> list[str]:
    "The `#| ...` lines that open the cell (nbdev reads directives only there)."
    out = []
    for line in text.splitlines(keepends=True):
        if not DIRECTIVE.match(line):
            break
        out.append(line if line.endswith("\n") else line + "\n")
    return out


def is_exported(cell: dict) -> bool:
    if cell["cell_type"] != "code":
        return False
    return any(EXPORT.match(line.strip()) for line in directive_lines(cell_text(cell)))


def same_ast(old: str, new: str) -> bool:
    "The proof: the two texts are the same program (ast.dump leaves line and column attributes out)."
    return ast.dump(ast.parse(old)) == ast.dump(ast.parse(new))


# ---------------------------------------------------------------------------------------------------------------
# Finding the joined statements

class Source:
    "A cell's text with the maps between (line, utf-8 column) positions and character offsets."

    def __init__(self, text: str):
        self.text = text
        self.lines = text.splitlines(keepends=True)
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line))
        self.tree = ast.parse(text)
        self.tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))

    def offset(self, row: int, byte_col: int) -> int:
        "Character offset of an ast position (ast columns count utf-8 bytes)."
        line = self.lines[row - 1] if row - 1 < len(self.lines) else ""
        return self.starts[row - 1] + len(line.encode()[:byte_col].decode(errors="ignore"))

    def token_offset(self, row: int, col: int) -> int:
        "Character offset of a tokenize position (tokenize columns count characters)."
        return self.starts[row - 1] + col

    def indent_of(self, row: int) -> str:
        line = self.lines[row - 1]
        return line[:len(line) - len(line.lstrip(" \t"))]


def statement_lists(tree: ast.AST):
    "(owner, statements) for every statement list: a module's, a compound's body and each of its clauses."
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            value = getattr(node, field, None)
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                yield node, value
        if isinstance(node, ast.match_case):
            yield node, node.body


def owner_row(owner: ast.AST) -> int:
    "The line whose indentation a clause's body is indented under (a match case has no position of its own)."
    if isinstance(owner, ast.match_case):
        return owner.pattern.lineno
    return owner.lineno


def previous_tokens(src: Source) -> dict[int, tokenize.TokenInfo]:
    "Character offset of each token's start -> the token before it (so a statement's start finds what precedes it)."
    out = {}
    previous = None
    for tok in src.tokens:
        out.setdefault(src.token_offset(*tok.start), previous)
        if tok.type not in (tokenize.INDENT, tokenize.DEDENT):
            previous = tok
    return out


def string_interior_rows(tree: ast.AST) -> set[int]:
    "Rows that begin inside a multi-line string literal (their leading spaces are part of the string)."
    rows = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Constant, ast.JoinedStr)) and node.end_lineno > node.lineno:
            rows.update(range(node.lineno + 1, node.end_lineno + 1))
    return rows


def joined(src: Source) -> list[tuple[str, int]]:
    "(kind, row) of each statement that shares its line: 'E701' after a header's colon, 'E702' after `;`, 'E703'."
    before = previous_tokens(src)
    found = []
    for _owner, statements in statement_lists(src.tree):
        for stmt in statements:
            tok = before.get(src.offset(stmt.lineno, stmt.col_offset))
            if tok is not None and tok.type == tokenize.OP and tok.string == ":":
                found.append(("E701", stmt.lineno))
            elif tok is not None and tok.type == tokenize.OP and tok.string == ";":
                found.append(("E702", stmt.lineno))
    for index, tok in enumerate(src.tokens):
        if tok.type == tokenize.OP and tok.string == ";":
            following = next(t for t in src.tokens[index + 1:] if t.type != tokenize.COMMENT)
            if following.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
                found.append(("E703", tok.start[0]))
    return found


# ---------------------------------------------------------------------------------------------------------------
# Rewriting

def plain(text: str) -> str:
    "The same program with one statement per line (see the module docstring for the three edits)."
    src = Source(text)
    before = previous_tokens(src)
    interior = string_interior_rows(src.tree)
    edits = []                                  # (start, end, replacement) on character offsets, never overlapping
    row_shift = {}                              # row -> (column, shift): how far the text after that column moves
    for owner, statements in statement_lists(src.tree):
        first = statements[0]
        first_tok = before.get(src.offset(first.lineno, first.col_offset))
        on_header = first_tok is not None and first_tok.type == tokenize.OP and first_tok.string == ":"
        if isinstance(owner, ast.Module):
            indent = ""
        elif on_header:
            indent = src.indent_of(owner_row(owner)) + "    "
        else:
            indent = src.indent_of(first.lineno)
        for stmt in statements:
            start = src.offset(stmt.lineno, stmt.col_offset)
            tok = before.get(start)
            if tok is None or tok.type != tokenize.OP or tok.string not in (":", ";"):
                continue
            if tok.string == ":":
                cut = src.token_offset(*tok.end)
            else:
                cut = src.token_offset(*tok.start)
                while cut > 0 and src.text[cut - 1] in " \t":   # the spaces before the `;` go with it
                    cut -= 1
            edits.append((cut, start, "\n" + indent))
            column = start - src.starts[stmt.lineno - 1]
            shift = len(indent) - column                   # columns the statement's first line moves
            row_shift[stmt.lineno] = max(row_shift.get(stmt.lineno, (-1, 0)), (column, shift))
            for row in range(stmt.lineno + 1, stmt.end_lineno + 1):
                if row in interior:
                    continue
                line = src.lines[row - 1]
                if not line.strip() or line.lstrip(" ").startswith("\t"):
                    continue
                lead = len(line) - len(line.lstrip(" "))
                edits.append((src.starts[row - 1], src.starts[row - 1] + lead, " " * max(lead + shift, 0)))
                row_shift[row] = max(row_shift.get(row, (-1, 0)), (0, shift))
    code_types = (tokenize.NEWLINE, tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.COMMENT)
    for index, tok in enumerate(src.tokens):
        if tok.type == tokenize.OP and tok.string == ";":
            following = next(t for t in src.tokens[index + 1:] if t.type != tokenize.COMMENT)
            if following.type not in (tokenize.NEWLINE, tokenize.ENDMARKER):
                continue
            cut = src.token_offset(*tok.start)
            while cut > 0 and src.text[cut - 1] in " \t":
                cut -= 1
            if src.tokens[index + 1].type != tokenize.COMMENT:   # with a comment after it, the comment's edit drops it
                edits.append((cut, src.token_offset(*tok.end), ""))
    comment_columns = {t.start[0]: t.start[1] for t in src.tokens if t.type == tokenize.COMMENT}
    # A comment after code keeps its column if it is one of a column of comments (so they stay aligned), else its gap
    for index, tok in enumerate(src.tokens):
        if tok.type != tokenize.COMMENT or index == 0:
            continue
        code = src.tokens[index - 1]
        if code.type in code_types or code.end[0] != tok.start[0]:
            continue
        trailing_semicolon = code.type == tokenize.OP and code.string == ";"
        if trailing_semicolon:
            code = src.tokens[index - 2]
        row = tok.start[0]
        if row not in row_shift and not trailing_semicolon:
            continue
        shift = row_shift.get(row, (0, 0))[1]
        gap = tok.start[1] - code.end[1] - (1 if trailing_semicolon else 0)   # the spaces before it, less the `;`
        if comment_columns.get(row - 1) == tok.start[1] or comment_columns.get(row + 1) == tok.start[1]:
            spaces = max(min(gap, 2), tok.start[1] - (code.end[1] + shift))   # one of a column of comments
        else:
            spaces = max(gap, 2 if trailing_semicolon else 1)
        edits.append((src.token_offset(*code.end), src.token_offset(*tok.start), " " * spaces))
    out = src.text
    for start, end, replacement in sorted(edits, reverse=True):
        out = out[:start] + replacement + out[end:]
    return out


# ---------------------------------------------------------------------------------------------------------------
# Splitting long cells

def units(text: str) -> list[tuple[int, int]]:
    """(first row, last row) of each top-level statement with the comment lines just above it (1-based, inclusive);
    the rows between units are blank. The directive lines are not part of any unit."""
    tree = ast.parse(text)
    lines = text.splitlines()
    skip = len(directive_lines(text))
    out = []
    floor = skip + 1
    for stmt in tree.body:
        first = min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", [])])
        while first - 1 >= floor and lines[first - 2].strip().startswith("#"):
            first -= 1                         # a comment above a statement belongs to it
        out.append((first, stmt.end_lineno))
        floor = stmt.end_lineno + 1
    # a trailing comment after the last statement belongs to it
    if out:
        last = len(lines)
        while last > out[-1][1] and not lines[last - 1].strip():
            last -= 1
        out[-1] = (out[-1][0], last)
    return out


def split_groups(text: str) -> list[str] | None:
    "The cell's code cut at top-level boundaries into packs of about PACK_LINES lines, or None if it stays whole."
    lines = text.splitlines(keepends=True)
    if len(lines) <= SPLIT_OVER:
        return None
    found = units(text)
    if len(found) < 2:
        return None
    def rows(pack, unit):
        return unit[1] - pack[0][0] + 1

    packs = [[found[0]]]
    for unit in found[1:]:
        size = rows(packs[-1], unit)
        small = rows(packs[-1], packs[-1][-1]) <= TINY_LINES    # a line or two stays with what follows it
        if size > PACK_LINES and not (small and size <= MAX_CELL_LINES):
            packs.append([unit])
        else:
            packs[-1].append(unit)
    last_is_tiny = len(packs) > 1 and rows(packs[-1], packs[-1][-1]) <= TINY_LINES
    if last_is_tiny and rows(packs[-2], packs[-1][-1]) <= MAX_CELL_LINES:
        last = packs.pop()
        packs[-1] += last                       # and a last line or two stays with what precedes it
    if len(packs) < 2:
        return None
    head = "".join(directive_lines(text))
    out = []
    for index, pack in enumerate(packs):
        first = pack[0][0] if index else len(directive_lines(text)) + 1
        last = packs[index + 1][0][0] - 1 if index + 1 < len(packs) else len(lines)
        body = "".join(lines[first - 1:last]).strip("\n")
        out.append(head + body)
    return out


def fresh_id(notebook: str, cell_id: str, index: int, taken: set[str]) -> str:
    "A stable 8-hex-digit id (the same run twice gives the same ids), unique in the notebook."
    salt = 0
    while True:
        new = hashlib.sha1(f"{notebook}:{cell_id}:{index}:{salt}".encode()).hexdigest()[:8]
        if new not in taken:
            taken.add(new)
            return new
        salt += 1


def as_source(text: str) -> list[str]:
    "nbformat's list of lines, the last without its newline."
    return text.splitlines(keepends=True)


# ---------------------------------------------------------------------------------------------------------------
# Notebooks

def notebooks() -> list[Path]:
    return sorted(p for p in NBS.rglob("*.ipynb")
                  if not any(part.startswith((".", "_")) for part in p.relative_to(NBS).parts))


def display(path: Path) -> str:
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)


def rewrite(path: Path, failures: list[str], stats: dict) -> str | None:
    "The notebook's new JSON text, or None when nothing changes; a line in `failures` for each cell the proof rejects."
    nb = json.loads(path.read_text())
    name = display(path)
    taken = {c.get("id") for c in nb["cells"]}
    cells = []
    changed = False
    for index, cell in enumerate(nb["cells"]):
        if not is_exported(cell):
            cells.append(cell)
            continue
        old = cell_text(cell)
        cell_id = cell.get("id", f"#{index}")
        try:
            new = plain(old)
        except SyntaxError as e:
            failures.append(f"{name} cell {cell_id}: does not parse ({e})")
            cells.append(cell)
            continue
        if not same_ast(old, new):
            failures.append(f"{name} cell {cell_id}: the rewrite changed the AST")
            cells.append(cell)
            continue
        if new != old:
            stats["rewritten"] += 1
        groups = split_groups(new)
        if groups is not None and not same_ast(old, "\n".join(groups)):
            failures.append(f"{name} cell {cell_id}: the split changed the AST")
            groups = None
        if groups is None:
            if new != old:
                cell = dict(cell, source=as_source(new))
                changed = True
            cells.append(cell)
            continue
        stats["split"] += 1
        stats["new_cells"] += len(groups) - 1
        changed = True
        cells.append(dict(cell, source=as_source(groups[0])))
        for k, group in enumerate(groups[1:], 1):
            extra = {key: value for key, value in cell.items() if key not in ("id", "source", "outputs")}
            extra.update(id=fresh_id(name, cell_id, k, taken), outputs=[], source=as_source(group))
            if "execution_count" in cell:
                extra["execution_count"] = None
            cells.append({key: extra[key] for key in sorted(extra)})
        if cell.get("outputs"):                 # what the cell printed now follows its last piece
            cells[-len(groups)]["outputs"], cells[-1]["outputs"] = [], cell["outputs"]
    if not changed:
        return None
    nb["cells"] = cells
    return json.dumps(nb, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def check() -> list[str]:
    "`notebook cell id: rows (kinds)` for each exported cell that still joins statements."
    out = []
    for path in notebooks():
        for index, cell in enumerate(json.loads(path.read_text())["cells"]):
            if not is_exported(cell):
                continue
            try:
                found = joined(Source(cell_text(cell)))
            except SyntaxError:
                continue
            if found:
                where = ", ".join(f"line {row} {kind}" for kind, row in found)
                out.append(f"{display(path)} cell {cell.get('id', f'#{index}')}: {where}")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true",
                    help="list exported cells that still join statements; exit 1 if any")
    ap.add_argument("paths", nargs="*", type=Path, help="notebooks (default: every notebook under nbs/)")
    args = ap.parse_args(argv)
    if args.check:
        left = check()
        for line in left:
            print(line)
        print(f"{len(left)} exported cells join statements" if left else "every exported cell: one statement per line")
        return 1 if left else 0
    paths = [p.resolve() for p in args.paths] or notebooks()
    failures, stats, out = [], dict(rewritten=0, split=0, new_cells=0), {}
    for path in paths:
        text = rewrite(path, failures, stats)
        if text is not None:
            out[path] = text
    if failures:
        print("refused, the AST proof failed (nothing written):", *failures, sep="\n  ", file=sys.stderr)
        return 1
    for path, text in out.items():
        path.write_text(text)
    print(f"{stats['rewritten']} cells rewritten, ASTs unchanged; {stats['split']} cells split into "
          f"{stats['split'] + stats['new_cells']}; {len(out)} notebooks written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
