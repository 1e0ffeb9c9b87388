"""Build the docs site into docs/ without Quarto.

nbdev prepares the notebooks exactly as it does for Quarto (it refreshes `_quarto.yml`, writes
`sidebar.yml` and processes every notebook into `_proc/`); pandoc 3, from the `pypandoc-binary`
wheel, then renders each processed notebook as a standalone HTML page with the sidebar in reading
order, no JavaScript, MathML for math and SVG inline, so the pages render with no network.
Every code cell of a chapter runs during the build, so a page never shows an output the code no
longer produces.

    python tools/build_docs.py              # every chapter is executed, so pages show fresh outputs
    python tools/build_docs.py --readme     # only README.md, from nbs/index.ipynb
"""
import argparse, functools, html, json, multiprocessing, os, re, shutil, sys
from pathlib import Path
import yaml

ROOT = Path(__file__).resolve().parents[1]
SITE = Path(__file__).resolve().parent / "site"


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


def prepare(file_re: str = "") -> Path:
    "Refresh nbdev's quarto config and sidebar, then process and execute the notebooks into _proc/ (all offline)."
    import nbdev.processors, nbdev.serve, nbdev.serve_drv
    from nbdev.config import get_config
    from nbdev.quarto import refresh_quarto_yml, nbdev_sidebar
    from nbdev.serve import proc_nbs
    os.chdir(ROOT)
    cfg = get_config()
    refresh_quarto_yml()
    nbdev_sidebar.__wrapped__(path=cfg.nbs_path)      # the CLI wrapper would also list llms.txt and nbdev.yml
    # forked workers inherit these patches (nbdev's own spawned workers would not)
    nbdev.processors._do_eval = execute_every_cell
    nbdev.serve_drv.exec_nb = functools.partial(exec_in_notebook_folder, exec_nb=nbdev.serve_drv.exec_nb)
    nbdev.serve.parallel = each_in_a_fresh_process
    return proc_nbs(cfg.nbs_path, n_workers=2, force=True, file_re=file_re)


DIRECTIVE = re.compile(r"^\s*#\|\s*([\w-]+)\s*:?\s*(.*)$")

def directives(source: str) -> tuple[dict, str]:
    "Split a code cell into its leading `#| key: value` directives and the code a reader sees."
    found, code = {}, []
    for line in source.splitlines():
        m = DIRECTIVE.match(line)
        if m and not code: found[m.group(1)] = m.group(2).strip()
        else: code.append(line)
    return found, "\n".join(code).strip("\n")


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
    if "text/markdown" in data: return data["text/markdown"]          # nbdev's show_doc, and Markdown() outputs
    if not pictures and {"image/svg+xml", "image/png"} & set(data): return ""
    if "image/svg+xml" in data: return raw_html(f'<div class="figure svg">{data["image/svg+xml"]}</div>')
    if "image/png" in data: return raw_html(f'<img class="figure" alt="figure" src="data:image/png;base64,{data["image/png"].strip()}">')
    if "text/html" in data: return raw_html(data["text/html"])
    if "text/plain" in data: return data["text/plain"] if asis else fence(data["text/plain"], "output")
    return ""


def notebook_markdown(nb: dict, pictures: bool = True) -> tuple[dict, str]:
    "A processed notebook as (front matter, pandoc markdown), honouring echo/output/include directives."
    meta, parts = {}, []
    for cell in nb["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] == "raw" and source.startswith("---"):
            meta.update(yaml.safe_load(source.strip().strip("-")) or {})
        elif cell["cell_type"] == "markdown": parts.append(source)
        elif cell["cell_type"] == "code":
            flags, code = directives(source)
            if flags.get("include") == "false": continue
            if code and flags.get("echo") != "false": parts.append(fence(code, "python"))
            if flags.get("output") != "false":
                parts += [md for o in cell.get("outputs", []) if (md := output_markdown(o, flags.get("output") == "asis", pictures))]
    return meta, "\n\n".join(parts)


def page_of(notebook: Path, cache: Path) -> tuple[str, str, dict, str]:
    "(href, title, front matter, markdown) of a processed notebook; the href follows nbdev's `output-file`."
    meta, markdown = notebook_markdown(json.loads(notebook.read_text()))
    rel = notebook.relative_to(cache)
    href = (rel.parent / meta.get("output-file", rel.with_suffix(".html").name)).as_posix()
    return href, str(meta.get("title") or notebook.stem), meta, markdown


def sidebar_entries(cache: Path, pages: dict) -> list:
    "nbdev's sidebar.yml as ('page', href, title) and ('section', name, [...]) entries in reading order."
    def walk(items):
        out = []
        for item in items:
            if isinstance(item, str):
                if item in pages: out.append(("page", pages[item][0], pages[item][1]))
            else: out.append(("section", item["section"], walk(item.get("contents", []))))
        return out
    return walk(yaml.safe_load((cache / "sidebar.yml").read_text())["website"]["sidebar"]["contents"])


def sidebar_html(entries: list, page: str) -> str:
    "The sidebar as seen from `page` (its href): links relative to the page's folder, the page itself marked."
    up = "../" * page.count("/")
    def render(items):
        rows = []
        for kind, a, b in items:
            if kind == "page":
                current = ' class="current"' if a == page else ""
                rows.append(f'<li><a{current} href="{up}{a}">{html.escape(b)}</a></li>')
            else: rows.append(f'<li class="section"><span>{html.escape(a)}</span><ul>{render(b)}</ul></li>')
        return "".join(rows)
    return f'<a class="site-title" href="{up}index.html">limn + litmus</a><ul>{render(entries)}</ul>'


def build(out: Path = ROOT / "docs", file_re: str = "") -> Path:
    "Render every chapter to `out`; returns `out`."
    import pypandoc
    cache = prepare(file_re)
    notebooks = [nb for nb in sorted(cache.rglob("*.ipynb")) if re.search(file_re, nb.name)]
    pages = {nb.relative_to(cache).as_posix(): page_of(nb, cache) for nb in notebooks}
    hrefs = {Path(nb).name: href for nb, (href, *_) in pages.items()}
    entries = sidebar_entries(cache, pages)
    if out.exists(): shutil.rmtree(out)
    out.mkdir(parents=True)
    shutil.copy(SITE / "style.css", out / "style.css")
    for href, title, meta, markdown in pages.values():
        up = "../" * href.count("/")
        # links between chapters are written to the .ipynb files; point them at the pages instead
        markdown = re.sub(r"\]\((?:[^)#\s]*/)?([^)/#\s]+\.ipynb)", lambda m: f"]({up}{hrefs.get(m.group(1), m.group(1))}", markdown)
        args = ["--standalone", f"--template={SITE / 'template.html'}", "--mathml", "--toc", "--toc-depth=2",
                "--syntax-highlighting=tango", f"--metadata=title:{title}", f"--metadata=pagetitle:{title} · limn",
                f"--variable=css:{up}style.css", f"--variable=sidebar:{sidebar_html(entries, href)}"]
        if meta.get("description"): args.append(f"--metadata=description:{meta['description']}")
        page = pypandoc.convert_text(markdown, "html5", format="markdown-smart", extra_args=args)
        (out / href).parent.mkdir(parents=True, exist_ok=True)
        (out / href).write_text(page)
    return out


def readme(out: Path = ROOT / "README.md") -> Path:
    "README.md from nbs/index.ipynb, as GitHub markdown (pictures stay on the site: GitHub strips inline SVG)."
    import pypandoc
    _, markdown = notebook_markdown(json.loads((ROOT / "nbs" / "index.ipynb").read_text()), pictures=False)
    body = pypandoc.convert_text(markdown, "gfm", format="markdown-smart", extra_args=["--wrap=none"])
    out.write_text("<!-- made from nbs/index.ipynb by tools/build_docs.py --readme; edit the notebook -->\n\n" + body)
    return out


if __name__ == "__main__":   # proc_nbs starts its workers with spawn, which re-imports this file
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=str(ROOT / "docs"), help="output folder (default: docs/)")
    parser.add_argument("--file-re", default="", help="only chapters whose file name matches this regex")
    parser.add_argument("--readme", action="store_true", help="only write README.md from nbs/index.ipynb")
    opts = parser.parse_args()
    if opts.readme: sys.exit(print(f"wrote {readme()}"))
    print(f"site written to {build(Path(opts.out).resolve(), opts.file_re)}")
