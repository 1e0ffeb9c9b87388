"""Build the docs site into docs/ without Quarto.

nbdev processes every notebook into `_proc/` (front matter, `#| hide`, execution); pandoc 3, from the
`pypandoc-binary` wheel, then renders each one as a standalone HTML page with a numbered sidebar in
reading order, no JavaScript, MathML for math and SVG inline, so the pages render with no network.

The page shows the code it teaches: every export cell (`#| export`, `#| exports` or `#| exporti`) is
printed in full where it stands, boxed and labelled with the module it goes to, and each name it defines
gets an anchor there. nbdev's signature cards are not made (they repeat the code beside them, and some
render wrongly), and nbdev's links to a docs host and a repository are not made either: a name in
backticks links to the local page that defines it, only within its own part (limn or litmus), so
`softmax` in a limn chapter never lands on litmus's page. Every code cell runs during the build, so a page
never shows an output the code no longer produces (`--saved-outputs` renders the outputs saved in the
notebooks instead, which is what the page tests use: they test the pages, not the chapters).

    python tools/build_docs.py                       # every chapter executed, into docs/
    python tools/build_docs.py --only 'limn/02|viz'  # only chapters whose path matches (while writing)
    python tools/build_docs.py --saved-outputs       # no execution: the outputs saved in the notebooks
    python tools/build_docs.py --run '^index'        # run only the front page, the rest show saved outputs
    python tools/build_docs.py --readme              # only README.md, from nbs/index.ipynb
"""
import argparse, ast, functools, html, json, multiprocessing, os, re, shutil, sys
from dataclasses import dataclass, field
from pathlib import Path
import yaml

ROOT = Path(__file__).resolve().parents[1]
NBS = ROOT / "nbs"
SITE = Path(__file__).resolve().parent / "site"
PARTS = {"limn": "Part I · limn", "litmus": "Part II · litmus", "bridge": "Part III · bridge"}
EXPORT_DIRECTIVES = ("export", "exports", "exporti")
# A page links into its own part and into the parts that part is built on: the bridge reads both limn and litmus.
BUILT_ON = {"bridge": ("limn", "litmus")}
# pandoc's markdown without smart quotes and without citations: the course cites nothing, and `@triton.jit` in prose is
# a decorator that pandoc would otherwise turn into a citation key
PANDOC_MARKDOWN = "markdown-smart-citations"


# ---- the chapters, read straight from nbs/ ------------------------------------------------------------

DIRECTIVE = re.compile(r"^\s*#\|\s*([\w-]+)\s*:?\s*(.*)$")

def directives(source: str) -> tuple[dict, str]:
    "Split a code cell into its leading `#| key: value` directives and the code a reader sees."
    found, code = {}, []
    for line in source.splitlines():
        m = DIRECTIVE.match(line)
        if m and not code: found[m.group(1)] = m.group(2).strip()
        else: code.append(line)
    return found, "\n".join(code).strip("\n")


def is_export(flags: dict) -> bool: return any(k in flags for k in EXPORT_DIRECTIVES)


@dataclass
class Chapter:
    "One notebook of the course: where it is, where its page goes, what it exports and which names it defines."
    path: Path                      # relative to nbs/, e.g. limn/02_tensor.ipynb
    part: str | None                # "limn", "litmus", or None for the front page
    number: str                     # "02" from the file name; "" for the front page
    name: str                       # "tensor"
    title: str
    description: str
    module: str | None              # "limn.tensor", "litmus.spec", or None
    symbols: dict = field(default_factory=dict)   # qualified name -> export cell index, first definition wins

    @property
    def href(self) -> str: return (self.path.parent / f"{self.name}.html").as_posix()
    @property
    def label(self) -> str: return f"{self.number} {self.name}" if self.number else self.title
    @property
    def module_file(self) -> str | None:
        "The file the module lives in, relative to the repository: `src/limn/tensor.py`, or `src/viz/__init__.py` for a package."
        if not self.module:
            return None
        path = "src/" + self.module.replace(".", "/")
        return f"{path}/__init__.py" if (ROOT / path / "__init__.py").is_file() else f"{path}.py"


def module_of(default_exp: str) -> str:
    "nbdev's `default_exp` as the module a reader imports: `limn.tensor`, `litmus.spec`, and `viz` for `viz.__init__`."
    return default_exp.removesuffix(".__init__")


def defined_names(code: str) -> list[str]:
    "Names an export cell defines, qualified as a reader writes them: functions, classes, constants, `Class.method`."
    try: tree = ast.parse(code)
    except SyntaxError: return []
    names = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            names.append(node.name)
            names += [f"{node.name}.{f.name}" for f in node.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            patched = any("patch" in ast.unparse(d) for d in node.decorator_list)
            first = node.args.args[0] if node.args.args else None
            if patched and first is not None and isinstance(first.annotation, (ast.Name, ast.Constant)):
                owner = first.annotation.id if isinstance(first.annotation, ast.Name) else str(first.annotation.value)
                names.append(f"{owner}.{node.name}")
            else: names.append(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                if isinstance(target, ast.Name) and len(target.id) > 1: names.append(target.id)
                elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name): names.append(f"{target.value.id}.{target.attr}")
    return names


def read_chapter(path: Path, nbs: Path = NBS) -> Chapter:
    "A Chapter from its notebook (relative to `nbs`), read without running it."
    cells = json.loads((nbs / path).read_text())["cells"]
    head = "".join(cells[0]["source"]) if cells and cells[0]["cell_type"] == "markdown" else ""
    title = re.search(r"^#\s+(.+)$", head, re.M)
    description = re.search(r"^>\s*(.+)$", head, re.M)
    number, _, name = path.stem.partition("_") if re.match(r"\d+_", path.stem) else ("", "", path.stem)
    part = path.parts[0] if len(path.parts) > 1 else ("limn" if number else None)
    chapter = Chapter(path, part, number, name, title.group(1).strip() if title else name,
                      description.group(1).strip() if description else "", None)
    for index, cell in enumerate(cells):
        if cell["cell_type"] != "code": continue
        flags, code = directives("".join(cell["source"]))
        if "default_exp" in flags: chapter.module = module_of(flags["default_exp"].split()[0])
        if is_export(flags):
            for symbol in defined_names(code): chapter.symbols.setdefault(symbol, index)
    return chapter


def chapters(nbs: Path = NBS) -> list[Chapter]:
    "Every notebook of the course in reading order: the front page, the top-level chapters, then each part of PARTS in turn."
    top = sorted(p.relative_to(nbs) for p in nbs.glob("*.ipynb"))
    top.sort(key=lambda p: p.name != "index.ipynb")
    parts = [sorted(p.relative_to(nbs) for p in (nbs / part).glob("*.ipynb")) for part in PARTS]
    return [read_chapter(p, nbs) for p in top + [p for part in parts for p in part]]


# ---- links: a name in backticks goes to the local page that defines it --------------------------------

class Links:
    "Where each exported name is defined, and how a page links to it (never across parts)."
    def __init__(self, course: list[Chapter]):
        self.course, self.by_module = course, {c.module: c for c in course if c.module}
        self.by_path = {c.path.as_posix(): c for c in course}

    def target(self, token: str, page: Chapter) -> tuple[Chapter, str] | None:
        "(chapter, anchor) for a name written in backticks on `page`, or None when it is not ours or is ambiguous."
        name = token.removesuffix("()")
        if not re.fullmatch(r"[A-Za-z_][\w.]*", name): return None
        if name in self.by_module and self.visible(self.by_module[name], page): return self.by_module[name], ""
        if name in page.symbols: return page, name
        for module, chapter in self.by_module.items():          # `corpus.load`, `limn.tensor.Tensor`
            for prefix in (f"{module}.", f"{module.rpartition('.')[2]}."):
                if name.startswith(prefix) and name[len(prefix):] in chapter.symbols and self.visible(chapter, page):
                    return chapter, name[len(prefix):]
        found = [c for c in self.course if name in c.symbols and self.visible(c, page)]
        return (found[0], name) if len(found) == 1 else None

    @staticmethod
    def visible(chapter: Chapter, page: Chapter) -> bool:
        "A page links within its own part and the parts it is built on (BUILT_ON); the front page may link anywhere."
        return page.part is None or chapter.part == page.part or chapter.part in BUILT_ON.get(page.part, ())

    def href(self, chapter: Chapter, anchor: str, page: Chapter) -> str:
        up = "../" * page.href.count("/")
        here = "" if chapter is page else up + chapter.href
        return f"{here}#{anchor}" if anchor else here

    FENCE_OR_NAME = re.compile(r"(?P<fence>^(?P<ticks>`{3,})[^\n]*\n.*?^(?P=ticks)[ \t]*$)|(?<![\[`])`(?P<name>[^`\n]+)`(?![`\]])",
                               re.M | re.S)

    def linkify(self, markdown: str, page: Chapter) -> str:
        "Link every `name` in the prose (not in code blocks, not already a link) to where it is defined."
        def link(m):
            found = None if m.group("fence") else self.target(m.group("name"), page)
            return f"[`{m.group('name')}`]({self.href(*found, page)})" if found else m.group(0)
        return self.FENCE_OR_NAME.sub(link, markdown)

    def notebook_links(self, markdown: str, page: Chapter) -> str:
        "Links written to notebooks (`../litmus/10_corpus.ipynb#x`) point at their pages instead."
        def local(m):
            target = os.path.normpath((page.path.parent / m.group(1)).as_posix()).replace(os.sep, "/")
            chapter = self.by_path.get(target)
            return f"]({self.href(chapter, '', page) or page.href.rpartition('/')[2]}{m.group(2) or ''})" if chapter else m.group(0)
        return re.sub(r"\]\(([^)#\s:]+\.ipynb)(#[^)\s]*)?\)", local, markdown)


# ---- a processed notebook as pandoc markdown ----------------------------------------------------------

def fence(text: str, cls: str) -> str:
    "A fenced block longer than any backtick run inside `text`."
    ticks = "`" * max(3, max((len(m) for m in re.findall(r"`+", text)), default=0) + 1)
    return f"{ticks} {{.{cls}}}\n{text.rstrip()}\n{ticks}"


def raw_html(text: str) -> str:
    return f"```{{=html}}\n{text.strip()}\n```"


def output_markdown(output: dict, asis: bool, pictures: bool = True) -> str:
    "One saved cell output as pandoc markdown, richest representation first (`pictures=False` drops images)."
    kind = output.get("output_type")
    if kind == "stream": return fence("".join(output["text"]), "output")
    if kind == "error": return fence(re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(output["traceback"])), "output")
    data = {k: "".join(v) if isinstance(v, list) else v for k, v in output.get("data", {}).items()}
    if "text/markdown" in data: return data["text/markdown"]          # Markdown() outputs, such as the front page's table
    if not pictures and {"image/svg+xml", "image/png"} & set(data): return ""
    if "image/svg+xml" in data: return raw_html(f'<div class="figure svg">{data["image/svg+xml"]}</div>')
    if "image/png" in data: return raw_html(f'<img class="figure" alt="figure" src="data:image/png;base64,{data["image/png"].strip()}">')
    if "text/html" in data: return raw_html(f'<div class="html-output">{data["text/html"]}</div>')
    if "text/plain" in data: return data["text/plain"] if asis else fence(data["text/plain"], "output")
    return ""


def export_block(code: str, names: list[str], module_file: str | None) -> str:
    "An export cell as the page shows it: its full source, boxed, labelled with its module, an anchor per name it defines."
    anchors = "".join(f'<span id="{html.escape(n)}"></span>' for n in names)
    label = html.escape(module_file or "exported")
    return "\n\n".join([raw_html(f'<div class="export" data-module="{label}">{anchors}'), fence(code, "python"), raw_html("</div>")])


def prose(source: str) -> str:
    """A markdown cell as the reader sees it: without the `#| key: value` lines nbdev writes at its top from the cell's
    metadata (a markdown cell flagged for export, the module's docstring, arrives as `#| export: true` and its text)."""
    lines = source.splitlines()
    while lines and DIRECTIVE.match(lines[0]):
        lines.pop(0)
    return "\n".join(lines)


def notebook_markdown(nb: dict, pictures: bool = True, module_file: str | None = None) -> tuple[dict, str]:
    "A processed notebook as (front matter, pandoc markdown), honouring echo/output/include directives."
    meta, parts, seen = {}, [], set()
    for cell in nb["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] == "raw" and source.startswith("---"):
            meta.update(yaml.safe_load(source.strip().strip("-")) or {})
        elif cell["cell_type"] == "markdown":
            parts.append(prose(source))
        elif cell["cell_type"] == "code":
            flags, code = directives(source)
            if flags.get("include") == "false" or "default_exp" in flags and not code: continue
            if code and is_export(flags):
                names = [n for n in dict.fromkeys(defined_names(code)) if n not in seen]
                seen.update(names)
                parts.append(export_block(code, names, module_file))
            elif code and flags.get("echo") != "false": parts.append(fence(code, "python"))
            if flags.get("output") != "false":
                parts += [md for o in cell.get("outputs", []) if (md := output_markdown(o, flags.get("output") == "asis", pictures))]
    return meta, "\n\n".join(parts)


def plain(markdown: str) -> str:
    """Inline markdown as plain text, for <title> and <meta>: backticks, emphasis and link targets dropped, while an
    underscore or star inside a word (`backend_c`, `ml_dtypes`) stays."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", markdown).replace("`", "")
    return re.sub(r"(?<!\w)[*_]+(?=\S)|(?<=\S)[*_]+(?!\w)", "", text)


# ---- nbdev's processing, without its cards and its links to elsewhere --------------------------------

def execute_every_cell(cell) -> bool:
    "nbdev's docs processor runs only the cells show_doc needs; the site runs them all, so its outputs are fresh."
    return cell.cell_type == "code" and bool(cell.source.strip()) and cell.directives_.get("eval", "").lower() != "false"


def exec_in_notebook_folder(src, dst, cb, exec_nb=None):
    "nbdev's per-notebook step, run from the notebook's own folder as Jupyter and nbdev-test run it."
    here = os.getcwd()
    os.chdir(Path(src).resolve().parent)
    try: exec_nb(src, dst, cb)
    finally: os.chdir(here)


def each_in_a_fresh_process(func, items, n_workers=2, **_):
    "Run each notebook in its own forked process (so chapters share no state), two at a time."
    with multiprocessing.get_context("fork").Pool(max(n_workers, 1), maxtasksperchild=1) as pool:
        return pool.map(func, list(items), chunksize=1)


def site_processors(run: str) -> list:
    "nbdev's processors for the site: front matter, hiding, output cleaning, and running every cell of the notebooks `run` matches."
    from nbdev import processors as p
    from nbdev.frontmatter import FrontmatterProc

    class run_every_cell(p.exec_show_docs):
        "nbdev runs a notebook only when it has cards to show; the site runs every cell of the notebooks `run` matches."
        def begin(self):
            self.nb.has_docs_ = bool(re.search(run, Path(self.nb.path_).resolve().relative_to(NBS).as_posix()))
            if self.nb.has_docs_: super().begin()

    def drop_default_exp(cell):
        "A cell that only names the module has nothing for a reader."
        if cell.cell_type == "code" and "default_exp" in cell.directives_ and not directives(cell.source)[1]: del cell["source"]

    def show_exports(cell):
        "An exported definition is always on the page, even in a cell marked `#| hide`."
        if cell.cell_type == "code" and is_export(cell.directives_): cell.directives_.pop("hide", None)

    return [FrontmatterProc, p.populate_language, p.strip_ansi, p.hide_line, p.filter_stream_, p.rm_header_dash,
            run_every_cell, drop_default_exp, p.clean_magics, show_exports, p.hide_, p.strip_hidden_metadata]


def prepare(only: str = "", run: str = "") -> Path:
    "Process the notebooks whose path under nbs/ matches `only` into _proc/, offline, running those `run` matches."
    import nbdev.processors, nbdev.serve, nbdev.serve_drv
    from nbdev.config import get_config
    os.chdir(ROOT)
    cfg = get_config()
    # forked workers inherit these patches (nbdev's own spawned workers would not)
    # nbdev's clean_magics reads pyproject.toml afresh for every cell (two TOML parses a cell: most of a build's CPU);
    # a build reads one project's config, so once is enough
    nbdev.processors.get_config = functools.cache(nbdev.processors.get_config)
    nbdev.processors._do_eval = execute_every_cell
    nbdev.processors.FilterDefaults.base_procs = lambda self: site_processors(run)
    nbdev.serve_drv.exec_nb = functools.partial(exec_in_notebook_folder, exec_nb=nbdev.serve_drv.exec_nb)
    nbdev.serve.parallel = each_in_a_fresh_process
    nbdev.serve._keep_file = lambda f, file_glob="", file_re="": f.suffix != ".ipynb" or bool(
        re.search(file_re, f.resolve().relative_to(NBS).as_posix()))
    return nbdev.serve.proc_nbs(cfg.nbs_path, n_workers=2, force=True, file_re=only or ".")


# ---- pages -------------------------------------------------------------------------------------------

def sidebar_html(built: list[Chapter], page: Chapter) -> str:
    "The numbered sidebar as seen from `page`: the front page and top-level chapters, then each part in order."
    up = "../" * page.href.count("/")
    def item(c):
        current = ' class="current"' if c is page else ""
        return f'<li><a{current} href="{up}{c.href}" title="{html.escape(plain(c.title))}">{html.escape(c.label)}</a></li>'
    rows = [item(c) for c in built if c.path.parent == Path(".")]
    for part, heading in PARTS.items():
        members = [item(c) for c in built if c.path.parent == Path(part)]
        if members: rows.append(f'<li class="section"><span>{html.escape(heading)}</span><ul>{"".join(members)}</ul></li>')
    return f'<a class="site-title" href="{up}index.html">limn + litmus</a><ul>{"".join(rows)}</ul>'


def quarto_sidebar(course: list[Chapter]) -> dict:
    "The same numbered sidebar for Quarto users (`nbdev_preview`), as nbs/sidebar.yml."
    entry = lambda c: {"text": c.label, "href": c.path.as_posix()}
    contents = [entry(c) for c in course if c.path.parent == Path(".")]
    contents += [{"section": heading, "contents": [entry(c) for c in course if c.path.parent == Path(part)]} for part, heading in PARTS.items()]
    return {"website": {"sidebar": {"contents": contents}}}


# pandoc's syntax colouring, most of a page's render time; the page tests read text and layout, not colours, and turn it
# off (`--no-colour`)
HIGHLIGHT_STYLE = "tango"


def render_page(chapter: Chapter, processed: dict, links: Links, built: list[Chapter]) -> str:
    "One chapter as a standalone HTML page."
    import pypandoc
    _, markdown = notebook_markdown(processed, module_file=chapter.module_file)
    markdown = links.linkify(links.notebook_links(markdown, chapter), chapter)
    title = f"{chapter.number} · {chapter.title}" if chapter.number else chapter.title
    front = yaml.safe_dump({"title": title, "description": chapter.description or None, "pagetitle": f"{plain(title)} · limn + litmus",
                            "plain-description": plain(chapter.description) or None}, allow_unicode=True, sort_keys=False)
    up = "../" * chapter.href.count("/")
    args = ["--standalone", f"--template={SITE / 'template.html'}", "--mathml", "--toc", "--toc-depth=2",
            f"--syntax-highlighting={HIGHLIGHT_STYLE}", "--columns=100000", f"--variable=css:{up}style.css", f"--variable=sidebar:{sidebar_html(built, chapter)}"]
    # verify_format=False: the formats are fixed here, and pypandoc would run pandoc twice more per page to list them
    page = pypandoc.convert_text(f"---\n{front}---\n\n{markdown}", "html5", format=PANDOC_MARKDOWN, extra_args=args, verify_format=False)
    return re.sub(r"(<table\b.*?</table>)", r'<div class="table-scroll">\1</div>', page, flags=re.S)   # wide tables scroll


def build(out: Path = ROOT / "docs", only: str = "", run: str = "") -> Path:
    "Render the chapters whose path matches `only` (all by default) to `out`, running those `run` matches; returns `out`."
    course, cache = chapters(), prepare(only, run)
    links = Links(course)
    built = [c for c in course if (cache / c.path).exists()]
    if out.exists(): shutil.rmtree(out)
    out.mkdir(parents=True)
    shutil.copy(SITE / "style.css", out / "style.css")
    for chapter in built:
        page = render_page(chapter, json.loads((cache / chapter.path).read_text()), links, built)
        (out / chapter.href).parent.mkdir(parents=True, exist_ok=True)
        (out / chapter.href).write_text(page)
    if not only and out == ROOT / "docs": (NBS / "sidebar.yml").write_text(yaml.safe_dump(quarto_sidebar(course), sort_keys=False, allow_unicode=True))
    return out


def run_notebook(path: Path) -> dict:
    "A notebook with every cell run afresh from its own folder (its saved outputs replaced), as a dict."
    from execnb.shell import CaptureShell
    from fastcore.nbio import read_nb
    nb, here = read_nb(path), os.getcwd()
    os.chdir(path.parent)
    try: CaptureShell().run_all(nb, exc_stop=True)
    finally: os.chdir(here)
    return json.loads(json.dumps(nb))


def readme(out: Path = ROOT / "README.md") -> Path:
    "README.md from nbs/index.ipynb run afresh (its map is computed), as GitHub markdown (GitHub strips inline SVG)."
    import pypandoc
    _, markdown = notebook_markdown(run_notebook(NBS / "index.ipynb"), pictures=False)
    body = pypandoc.convert_text(markdown, "gfm", format=PANDOC_MARKDOWN, extra_args=["--wrap=none"], verify_format=False)
    out.write_text("<!-- made from nbs/index.ipynb by tools/build_docs.py --readme; edit the notebook -->\n\n" + body)
    return out


if __name__ == "__main__":   # proc_nbs starts its workers with spawn, which re-imports this file
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=str(ROOT / "docs"), help="output folder (default: docs/)")
    parser.add_argument("--only", "--file-re", default="", help="only chapters whose path under nbs/ matches this regex")
    parser.add_argument("--saved-outputs", action="store_true", help="render the outputs saved in the notebooks; run nothing")
    parser.add_argument("--run", default="", help="run only the notebooks whose path matches this regex (the rest show saved outputs)")
    parser.add_argument("--readme", action="store_true", help="only write README.md from nbs/index.ipynb")
    parser.add_argument("--no-colour", action="store_true", help="no syntax colouring (faster; what the page tests build)")
    opts = parser.parse_args()
    if opts.no_colour:
        HIGHLIGHT_STYLE = "none"
    if opts.readme: sys.exit(print(f"wrote {readme()}"))
    run = opts.run or (r"$^" if opts.saved_outputs else "")
    print(f"site written to {build(Path(opts.out).resolve(), opts.only, run)}")
