"""The docs site builds offline and renders in a real browser (headless Chromium driven by Playwright).

Builds the site from the notebooks into a temporary folder, opens the home page and the first chapter,
and checks what a reader would: the title, a sidebar whose every link resolves to a page that exists,
and a graphviz SVG that is present and has a visible size. Screenshots go to test-output/site/.
"""
import shutil, subprocess, sys
from pathlib import Path
from urllib.parse import urljoin, urlparse
import pytest

ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / "test-output" / "site"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--disable-quic"]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    subprocess.run([sys.executable, str(ROOT / "tools" / "build_docs.py"), "--out", str(out)], check=True, cwd=ROOT)
    return out


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None: pytest.fail("chromium is not installed; `make test` installs it (Debian package chromium)")
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield browser
        browser.close()


def check_page(browser, page_path: Path, title: str, shot: str):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    offline = []
    page.on("request", lambda r: offline.append(r.url) if not r.url.startswith(("file:", "data:")) else None)
    page.goto(page_path.as_uri())
    assert page.locator("h1.title").inner_text().strip() == title
    links = page.locator("#sidebar a").evaluate_all("els => els.map(e => e.getAttribute('href'))")
    assert len(links) >= 2, f"sidebar has {len(links)} links"
    for href in links:
        target = Path(urlparse(urljoin(page_path.as_uri(), href)).path)
        assert target.is_file(), f"sidebar link {href} on {page_path.name} points at a missing page"
    assert page.locator("#sidebar").is_visible()
    svg = page.locator("#content svg").first
    assert svg.is_visible(), f"no visible SVG graph on {page_path.name}"
    box = svg.bounding_box()
    assert box["width"] > 50 and box["height"] > 30, box
    assert offline == [], f"the page fetched from the network: {offline}"
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / shot), full_page=False)
    assert (SHOTS / shot).stat().st_size > 10_000
    page.close()


def test_home_page_renders(site, browser):
    check_page(browser, site / "index.html", "limn + litmus", "home.png")


def test_chapter_renders(site, browser):
    check_page(browser, site / "viz.html", "Drawing graphs", "viz.png")


def test_sidebar_follows_reading_order(site):
    html = (site / "index.html").read_text()
    order = [html.find(f'href="{page}"') for page in ("index.html", "viz.html")]
    assert -1 not in order and order == sorted(order)
