"""The docs site builds offline and renders in a real browser (headless Chromium driven by Playwright).

Builds every page from the outputs saved in the notebooks, running only the front page, whose figures are computed
(`build_docs.py --run '^index'`: the chapters' own tests run under nbdev-test; this file tests the pages), then checks
what a reader would: the source of every exported function and class on its chapter's page in source order (a class, a
function and a method attached with @patch looked at closely on three chapters), every link on every page leading to
a local page and anchor or to an intentional external reference, a numbered sidebar, subtitles without raw markdown,
wide output that scrolls, and a front page with limn's pipeline drawn, litmus's verdicts printed and a map with a row
and a box per chapter. On every page: no nbdev directive shown as text, no text read as a citation, every picture the
prose announces or a cell draws shown, and no picture cut off or scrolled out of the column.
Screenshots go to test-output/site/.
"""
import ast, importlib.util, json, re, shutil, subprocess, sys
from functools import cache
from pathlib import Path
from urllib.parse import unquote, urlparse
import pytest

ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / "test-output" / "site"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run", "--disable-quic"]
# Hosts a page may link to on purpose (references for the reader). Nothing else: no docs host, no repository.
INTENTIONAL_EXTERNAL = {"graphviz.org", "pytorch.org", "docs.python.org", "numpy.org", "triton-lang.org", "arxiv.org",
                        "en.wikipedia.org", "huggingface.co", "github.com/openai/triton", "github.com/triton-lang/triton"}

spec = importlib.util.spec_from_file_location("build_docs", ROOT / "tools" / "build_docs.py")
build_docs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(build_docs)
COURSE = build_docs.chapters()
CHAPTERS = [c for c in COURSE if c.module]


def chapter_named(part: str | None, name: str):
    "The chapter in folder `part` of nbs/ (None for a top-level one) called `name`, whatever its number is today."
    return next(c for c in COURSE if c.path.parent == Path(part or ".") and c.name == name)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    SHOTS.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, str(ROOT / "tools" / "build_docs.py"), "--run", r"^index\.ipynb$", "--no-colour", "--out", str(out)],
                   check=True, cwd=ROOT, timeout=900)
    return out


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None: pytest.fail("chromium is not installed; `make test` installs it (Debian package chromium)")
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def page(browser):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    fetched = []
    page.on("request", lambda r: fetched.append(r.url) if not r.url.startswith(("file:", "data:")) else None)
    yield page
    assert fetched == [], f"a page fetched from the network: {fetched[:5]}"
    page.close()


def exported_definitions(chapter) -> list[str]:
    "`def name` / `class name` of every top-level function and class the chapter's notebook put into its module, in order."
    source = (ROOT / chapter.module_file).read_text()
    marker = f"# %% ../nbs/{chapter.path.as_posix()} #"
    chunks = re.split(r"^(# %% .*)$", source, flags=re.M)
    mine = "".join(body for head, body in zip(chunks[1::2], chunks[2::2]) if head.startswith(marker))
    return [f"{'class' if isinstance(n, ast.ClassDef) else 'def'} {n.name}" for n in ast.parse(mine).body
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]


def export_text(page, path: Path) -> str:
    page.goto(path.as_uri())
    return "\n".join(page.locator("#content div.export").all_inner_texts())


READ_PAGE = """() => ({
    exports: [...document.querySelectorAll('#content div.export')].map(e => e.innerText).join('\\n'),
    links: [...document.querySelectorAll('a[href]')].map(e => [e.href, e.getAttribute('href'), !!e.querySelector('code')]),
    titles: [...document.querySelectorAll('h1.title')].map(e => e.innerText),
    descriptions: [...document.querySelectorAll('header .description')].map(e => e.innerText),
    tab: document.title,
    metas: [...document.querySelectorAll('meta[name="description"]')].map(e => e.getAttribute('content')),
})"""


@pytest.fixture(scope="module")
def read_once(site, page) -> list:
    """Every page visited once for the checks that walk all of them (exports, links, titles, and LOOK_AT_PAGE below):
    (chapter, what READ_PAGE returns, what LOOK_AT_PAGE returns). A visit loads the page in the browser, the cost."""
    read = []
    for chapter in COURSE:
        page.goto((site / chapter.href).as_uri())
        read.append((chapter, page.evaluate(READ_PAGE), page.evaluate(LOOK_AT_PAGE, [ANNOUNCES_PICTURE, PICTURE_NEAR])))
    return read


def assert_in_source_order(shown: str, definitions: list[str], where: str):
    at = 0
    for definition in definitions:
        found = re.search(rf"^(async )?{re.escape(definition)}\b", shown[at:], re.M)
        assert found, f"{where}: `{definition}` is not on the page after the previous definition (missing or out of order)"
        at += found.end()


PATCHED = {"viz": [("Graph", "svg")], "tensor": [("Tensor", "relu"), ("Tensor", "softmax")]}

@pytest.mark.parametrize("part, name, expected", [
    (None, "viz", ["class Graph", "def quote", "def svg"]),                          # svg is attached with @patch
    ("limn", "tensor", ["class Tensor", "def where", "def realize", "def relu"]),     # relu: @patch onto Tensor
    ("litmus", "spec", ["def parse", "def classify"]),
])
def test_exported_source_is_on_the_page(site, page, part, name, expected):
    chapter = chapter_named(part, name)
    shown = export_text(page, site / chapter.href)
    for definition in expected: assert re.search(rf"^\s*{definition}\b", shown, re.M), f"{definition} not shown on {chapter.href}"
    assert_in_source_order(shown, exported_definitions(chapter), chapter.href)
    assert chapter.module_file in page.locator("#content div.export").first.get_attribute("data-module")
    for owner, method in PATCHED.get(name, []):                   # a patched method: its code, its @patch, its anchor
        assert re.search(rf"@patch\s*\ndef {method}\(self: ?{owner}\b", shown), f"@patch def {method}(self: {owner}) not shown"
        assert page.locator(f'[id="{owner}.{method}"]').count() == 1
    page.screenshot(path=str(SHOTS / f"{chapter.name}.png"))


def test_every_chapter_shows_every_export(read_once):
    for chapter, read, _ in read_once:
        if chapter.module:
            assert_in_source_order(read["exports"], exported_definitions(chapter), chapter.href)


@cache
def ids_in(path: Path) -> frozenset:
    return frozenset(unquote(i) for i in re.findall(r'\sid="([^"]+)"', path.read_text()))


def test_every_link_resolves(site, read_once):
    checked, cross_part = 0, []
    for chapter, read, _ in read_once:
        for url, written, is_name in read["links"]:
            parts = urlparse(url)
            if parts.scheme == "file":
                target = Path(unquote(parts.path))
                assert target.is_file(), f"{chapter.href}: link {written} points at a missing page"
                assert not parts.fragment or unquote(parts.fragment) in ids_in(target), f"{chapter.href}: link {written} has no target anchor"
                part = target.relative_to(site).parts[0] if len(target.relative_to(site).parts) > 1 else None
                allowed = (chapter.part, *build_docs.BUILT_ON.get(chapter.part, ()))
                if is_name and chapter.part and part and part not in allowed:
                    cross_part.append(f"{chapter.href} -> {written}")
            else:
                assert parts.scheme in ("http", "https", "mailto"), f"{chapter.href}: odd link {written}"
                host_path = parts.netloc + parts.path
                assert any(host_path == h or host_path.startswith(h + "/") for h in INTENTIONAL_EXTERNAL), (
                    f"{chapter.href}: link to {url}, which is not an intentional external reference")
            checked += 1
    assert not cross_part, f"names that link into a part the page does not build on: {cross_part[:10]}"
    assert checked > 20 * len(COURSE)


def test_sidebar_is_numbered_in_reading_order(site, page):
    page.goto((site / "limn" / "tensor.html").as_uri())
    labels = page.locator("#sidebar a[href]").all_inner_texts()[1:]          # after the site title
    assert labels == [c.label for c in COURSE], labels
    assert all(re.fullmatch(r"\d\d \w+", label) for label in labels[1:]), labels
    sections = page.locator("#sidebar li.section > span").all_inner_texts()
    assert [s.upper() for s in sections] == [s.upper() for s in build_docs.PARTS.values()]
    assert page.locator("#sidebar a.current").inner_text() == chapter_named("limn", "tensor").label


def test_titles_and_subtitles_show_no_raw_markdown(read_once):
    for chapter, read, _ in read_once:
        assert len(read["titles"]) == 1, f"{chapter.href}: {len(read['titles'])} page titles"
        title = read["titles"][0]
        assert title.startswith(f"{chapter.number} · " if chapter.number else "limn + litmus"), title
        shown = [title] + read["descriptions"]
        assert not any(re.search(r"`|\*\w[^*]*\w\*|\b_\w[^_]*\w_\b|^#|· #", text) for text in shown), f"{chapter.href}: raw markdown in {shown}"
        # the browser tab and the description a search shows keep names as written (backend_c, ml_dtypes)
        assert read["tab"].startswith(title), f"{chapter.href}: tab title {read['tab']!r} is not the page's title {title!r}"
        assert not chapter.description or len(read["metas"]) == 1, f"{chapter.href}: {len(read['metas'])} description meta tags"
        meta = read["metas"][0] if chapter.description else None
        for name in re.findall(r"\b[a-z]+(?:_[a-z0-9]+)+\b", chapter.description):
            assert name in meta, f"{chapter.href}: {name} lost from the description meta tag"


def test_wide_output_scrolls_inside_the_column(site, page):
    wide = 0
    for name in ("limn/codegen.html", "litmus/corpus.html", "index.html"):
        page.goto((site / name).as_uri())
        boxes = page.locator("#content pre, #content table").evaluate_all("""els => els.map(e => {
            let box = e;                      // the element itself or the nearest ancestor in the column that scrolls
            while (box.id !== 'content' && !['auto', 'scroll'].includes(getComputedStyle(box).overflowX)) box = box.parentElement;
            return [e.scrollWidth > e.clientWidth + 1, box.id !== 'content']})""")
        assert all(scrolls for too_wide, scrolls in boxes if too_wide), (name, [b for b in boxes if b[0] and not b[1]])
        wide += sum(too_wide for too_wide, _ in boxes)
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), f"{name} scrolls sideways as a whole"
    assert wide > 0, "no wide output found to check"


def test_home_page_maps_the_course(site, page):
    page.goto((site / "index.html").as_uri())
    assert page.locator("h1.title").inner_text() == "limn + litmus"
    rows = page.locator("#content table tr td:first-child a[href]").evaluate_all("els => els.map(e => e.getAttribute('href'))")
    assert rows[:len(CHAPTERS)] == [c.href for c in CHAPTERS], rows
    svg = page.locator("#content svg", has=page.locator("g.cluster text", has_text="Part I: limn"))
    assert svg.count() == 1 and svg.is_visible() and svg.bounding_box()["width"] > 300
    boxes = page.locator("#content svg g.node text").evaluate_all("els => els.map(e => e.textContent)")   # SVG has no innerText
    assert set(boxes) >= {c.label for c in CHAPTERS}, {c.label for c in CHAPTERS} - set(boxes)
    part_one = page.locator("#content svg g.cluster text", has_text="Part I: limn").bounding_box()
    part_two = page.locator("#content svg g.cluster text", has_text="Part II: litmus").bounding_box()
    assert part_one["y"] < part_two["y"], "Part I must come before Part II in the picture"
    assert page.locator("#content svg g.cluster text", has_text="Part III: bridge").count() == 1
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "home.png"))
    assert (SHOTS / "home.png").stat().st_size > 10_000


def test_names_link_within_their_part():
    "`softmax`, `relu` and `var` in limn's tensor chapter are litmus names too; they must never link to litmus's pages."
    links = build_docs.Links(COURSE)
    tensor = chapter_named("limn", "tensor")
    spec_chapter = chapter_named("litmus", "spec")
    for name in ("softmax", "relu", "var", "softmax()"):
        found = links.target(name, tensor)
        assert found is None or found[0].part == "limn", (name, found and found[0].href)
    assert links.target("Tensor.relu", tensor) == (tensor, "Tensor.relu")
    assert links.target("Tensor", spec_chapter) is None                  # limn's Tensor is not litmus's to link
    linked = links.linkify("`parse` then\n\n```\n`parse`\n```\n\nand [`parse`](elsewhere.html)", spec_chapter)
    assert linked.count("(#parse)") == 1 and "[`parse`](elsewhere.html)" in linked


# ---- defects a reader sees: every page is checked, each visited once -----------------------------------------

# A sentence that points at a picture: one that says "above", "at the top" or "the picture's" points back, the others forward.
PICTURE_NEAR = 6       # blocks of the page (paragraphs, code, outputs) an announced picture may come after its sentence
ANNOUNCES_PICTURE = r"\b(the|this) picture\b|\bas a picture\b|\bpicture below\b|\bdrawn (below|above)\b"

# What the defect checks read from one page, in one pass: its prose, its citations and description, the pictures it
# shows and the sentences that announce one, and every picture that does not fit the column as drawn.
LOOK_AT_PAGE = """([announcing, NEAR]) => {
    const content = document.getElementById('content');
    const prose = [...document.querySelectorAll(
        '#content p, #content li, #content h1, #content h2, #content h3, #content td, #content th, header .description')]
        .map(e => e.innerText);
    const meta = document.querySelector('meta[name="description"]');
    // a picture: an SVG or an image, or a drawing in text (a plain block, neither code nor output)
    const isPicture = e => e.matches('svg, img, pre:not([class])') || !!e.querySelector('svg, img, pre:not([class])');
    const blocks = [...content.children].filter(e => !['NAV', 'HEADER'].includes(e.tagName));
    const announces = new RegExp(announcing, 'i');
    const announcements = [];
    blocks.forEach((block, i) => {
        if (!['P', 'UL', 'OL'].includes(block.tagName) || !announces.test(block.textContent)) return;
        // a sentence that points back: "drawn above", "the picture at the top", "the picture's transpose"
        const back = /\\b(drawn|picture) above\\b|\\bpicture at the top\\b|\\bpicture's\\b/i.test(block.textContent);
        // forward: within the next few blocks (a sentence, a code cell and its output), not ten cells later
        const seen = back ? blocks.slice(0, i).some(isPicture) : blocks.slice(i + 1, i + 1 + NEAR).some(isPicture);
        announcements.push([block.textContent.slice(0, 80), seen]);
    });
    const pictures = [...content.querySelectorAll('svg, img')].filter(e => !e.parentElement.closest('svg'));
    const right = content.getBoundingClientRect().right - parseFloat(getComputedStyle(content).paddingRight) + 1;
    const clipped = [];
    for (const picture of pictures) {
        const box = picture.getBoundingClientRect();
        if (box.width === 0) continue;
        if (box.right > right) clipped.push(`${picture.tagName} ${Math.round(box.width)}px wide runs past the column`);
        for (let up = picture.parentElement; up && up !== content; up = up.parentElement)
            if (up.scrollWidth > up.clientWidth + 1 && getComputedStyle(up).overflowX !== 'visible') {
                clipped.push(`${picture.tagName} inside a ${up.tagName}.${up.className} cut to ${up.clientWidth} of ${up.scrollWidth}px`);
                break;
            }
    }
    return {prose, citations: document.querySelectorAll('.citation, [data-cites]').length,
            descriptions: [...document.querySelectorAll('header .description')].map(e => e.innerText),
            meta: meta ? meta.getAttribute('content') : null, announcements, shown: pictures.length, clipped};
}"""


@pytest.fixture(scope="module")
def looked_at(read_once) -> list:
    "What every page shows, read in read_once's visit for the defect checks below: (chapter, what LOOK_AT_PAGE returns)."
    return [(chapter, seen) for chapter, _, seen in read_once]


def test_no_directive_text_on_any_page(looked_at):
    "nbdev's `#| key: value` lines are instructions to nbdev; a reader never sees one (in prose, a title or a description)."
    shown = [f"{chapter.href}: {text[:60]!r}" for chapter, seen in looked_at for text in seen["prose"]
             if re.search(r"#\|\s*[\w-]+", text)]
    assert not shown, f"nbdev directives printed as text: {shown[:10]}"


def test_no_raw_citation_on_any_page(looked_at):
    "The course cites nothing: `@name` (a decorator such as `@triton.jit`) is shown as written, never read as a citation."
    for chapter, seen in looked_at:
        assert seen["citations"] == 0, f"{chapter.href}: text read as a citation"
        for word in re.findall(r"@[\w.]+", build_docs.plain(chapter.description)):
            assert any(word in text for text in seen["descriptions"]), f"{chapter.href}: {word} missing from {seen['descriptions']}"
        assert "<" not in (seen["meta"] or ""), f"{chapter.href}: markup inside the description meta tag: {seen['meta'][:80]}"


def saved_pictures(cell) -> int:
    "How many pictures a cell's saved outputs hold (an SVG, a PNG, or HTML holding an SVG)."
    count = 0
    for output in cell.get("outputs", []):
        data = {k: "".join(v) if isinstance(v, list) else v for k, v in output.get("data", {}).items()}
        count += bool({"image/svg+xml", "image/png"} & set(data)) or "<svg" in data.get("text/html", "")
    return count


def ends_with_a_drawing(code: str) -> bool:
    "A cell whose last line shows a picture: a `Graph(...)` or a `draw...(...)` call, or the name it was bound to."
    lines = [line for line in code.strip().splitlines() if line.strip()]
    last = lines[-1].strip() if lines else ""
    if re.fullmatch(r"[\w.]*(Graph|draw\w*)\(.*", last):
        return True
    return bool(re.fullmatch(r"\w+", last)) and bool(re.search(rf"^{last}\s*=\s*[\w.]*(Graph|draw\w*)\(", code, re.M))


def test_every_announced_picture_is_on_the_page(looked_at):
    "A picture the prose announces is on the page (after the sentence, or before it for \"above\"); every picture a cell draws is saved and shown."
    missing = []
    for chapter, seen in looked_at:
        drawn = 0
        for index, cell in enumerate(json.loads((build_docs.NBS / chapter.path).read_text())["cells"]):
            if cell["cell_type"] != "code":
                continue
            flags, code = build_docs.directives("".join(cell["source"]))
            if flags.get("include") == "false" or flags.get("eval") == "false" or build_docs.is_export(flags):
                continue
            if ends_with_a_drawing(code) and not saved_pictures(cell):
                missing.append(f"{chapter.path}: cell {index} draws a picture but has no saved output")
            drawn += saved_pictures(cell)
        missing += [f"{chapter.href}: announced, not shown: {text!r}" for text, shown in seen["announcements"] if not shown]
        if seen["shown"] < drawn:
            missing.append(f"{chapter.href}: {drawn} pictures drawn in the notebook, {seen['shown']} on the page")
    assert not missing, "\n".join(missing)


def test_no_picture_is_clipped(looked_at):
    "Every picture fits the column as it is drawn: none is cut off, and none hides part of itself in a box that scrolls."
    clipped = [f"{chapter.href}: {what}" for chapter, seen in looked_at for what in seen["clipped"]]
    assert not clipped, "\n".join(clipped[:20])


def test_home_page_computes_what_it_shows(site, page):
    """The front page draws limn's pipeline for one expression (Tensor, DAG, schedule, loop nest, C, in that order) and
    prints litmus's verdicts on a buggy and a correct kernel, both computed when the page is built; it prints no plan of
    chapters to come and no second reading order (the sidebar's order is the order)."""
    page.goto((site / "index.html").as_uri())
    stages = page.locator("#content svg g.cluster > text").evaluate_all(
        "els => els.map(e => [e.textContent, e.getBoundingClientRect().y])")
    firsts = {text.split(":")[0].split(" (")[0]: y for text, y in stages}
    order = ["Tensor", "DAG", "schedule", "loop nest", "C"]
    assert set(order) <= set(firsts), f"pipeline stages missing: {set(order) - set(firsts)}"
    assert [firsts[stage] for stage in order] == sorted(firsts[stage] for stage in order), "the stages are out of order"
    drawn = " ".join(page.locator("#content svg text").evaluate_all("els => els.map(e => e.textContent)"))   # SVG has no innerText
    assert "LOOP" in drawn and "for\u00a0(int64_t" in drawn.replace(" ", "\u00a0"), "the loop nest or its C is not in the picture"
    printed = "\n".join(page.locator("#content pre.output").all_inner_texts())
    assert re.search(r"^REJECT$", printed, re.M) and "counterexample" in printed, "no REJECT with its witness"
    assert "softmax: ACCEPT" in printed and "does not mean" in printed, "no ACCEPT with what it does not mean"
    text = page.locator("#content").inner_text()
    for scaffolding in ("PLANNED", "not built yet", "What is built"):
        assert scaffolding not in text, f"the front page still shows its plan: {scaffolding!r}"
    labels = [c.label for c in CHAPTERS]
    for prose in page.locator("#content p, #content li").all_inner_texts():
        named = sum(label in prose for label in labels)
        assert named < len(labels) // 2, f"a reading order in prose on the front page: {prose[:120]!r}"
