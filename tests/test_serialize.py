"""limn.serialize held to the safetensors library (every dtype, both directions), to torch (weights load untransposed),
and to itself over time (stop at k, resume, reach step 2k bit for bit; not without the optimizer state). Malformed
files are refused with a clear error and without a large allocation; a hypothesis fuzzer runs over headers and bytes."""
import json, os, struct, tracemalloc
import numpy as np
import pytest
import torch
import ml_dtypes
from hypothesis import given, settings, strategies as st, HealthCheck
from safetensors.torch import save_file as st_save, load_file as st_load
import limn.backend_c  # registers "c"
from limn import Tensor, set_seed, use_device
from limn.capture import capture
from limn import nn
from limn.optim import AdamW, muon_with_adamw
from limn.serialize import save, load, metadata, save_checkpoint, load_into, SafetensorsError, DTYPE_TAGS, read_header

TORCH_DTYPES = {"float64": torch.float64, "float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16,
                "int32": torch.int32, "int16": torch.int16, "int8": torch.int8}

def sample(name, shape=(3, 5)):
    rng = np.random.default_rng(len(name))
    if name.startswith("int"):
        info = np.iinfo(name)
        return rng.integers(info.min, info.max, shape, endpoint=True).astype(name)
    return (rng.standard_normal(shape) * 100).astype(ml_dtypes.bfloat16 if name == "bfloat16" else name)

def as_numpy(t: torch.Tensor) -> np.ndarray:
    if t.dtype == torch.bfloat16: return t.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return t.numpy()

def test_every_dtype_is_read_by_the_safetensors_library(tmp_path):
    path = tmp_path / "limn.safetensors"
    arrays = {name: sample(name) for name in DTYPE_TAGS} | {"scalar": np.array(2.5, np.float32), "empty": np.zeros((0, 4), np.int8)}
    save(path, {k: Tensor(v, dtype=v.dtype) for k, v in arrays.items()}, metadata={"k": "v"})
    theirs = st_load(str(path))
    assert sorted(theirs) == sorted(arrays)
    for name, a in arrays.items():
        assert theirs[name].dtype == TORCH_DTYPES[str(a.dtype)] and tuple(theirs[name].shape) == a.shape, name
        assert as_numpy(theirs[name]).tobytes() == a.tobytes(), name

def test_every_dtype_written_by_the_safetensors_library_is_read_here(tmp_path):
    path = tmp_path / "theirs.safetensors"
    tensors = {name: torch.tensor(sample(name).astype(np.float32 if name == "bfloat16" else sample(name).dtype)).to(TORCH_DTYPES[name])
               for name in DTYPE_TAGS}
    tensors["scalar"] = torch.tensor(7, dtype=torch.int16)
    st_save(tensors, str(path), metadata={"format": "pt"})
    ours = load(path)
    assert metadata(path) == {"format": "pt"} and sorted(ours) == sorted(tensors)
    for name, t in tensors.items():
        assert ours[name].dtype.name == str(t.dtype).replace("torch.", "") and ours[name].shape == tuple(t.shape), name
        assert ours[name].numpy().tobytes() == as_numpy(t).tobytes(), name

class Net(nn.Module):
    def __init__(self): self.fc1, self.norm, self.fc2 = nn.Linear(5, 7), nn.LayerNorm(7), nn.Linear(7, 3)
    def forward(self, x): return self.fc2(self.norm(self.fc1(x)).relu())

class TorchNet(torch.nn.Module):
    def __init__(self):
        super().__init__(); self.fc1, self.norm, self.fc2 = torch.nn.Linear(5, 7), torch.nn.LayerNorm(7), torch.nn.Linear(7, 3)
    def forward(self, x): return self.fc2(torch.relu(self.norm(self.fc1(x))))

def test_a_checkpoint_loads_into_torch_untransposed(tmp_path):
    set_seed(0)
    model = Net()
    opt = AdamW(model.named_parameters())
    path = tmp_path / "ckpt.safetensors"
    save_checkpoint(path, model, opt)
    twin = TorchNet()
    weights = {k: v for k, v in st_load(str(path)).items() if not k.startswith("optimizer.")}
    twin.load_state_dict(weights, strict=True)
    x = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)
    np.testing.assert_allclose(model(Tensor(x)).numpy(), twin(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6)
    # and back: torch's state_dict saved by the library loads into the limn model
    torch.manual_seed(1); other = TorchNet()
    st_save(other.state_dict(), str(tmp_path / "torch.safetensors"))
    load_into(tmp_path / "torch.safetensors", model)
    np.testing.assert_allclose(model(Tensor(x)).numpy(), other(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6)

# --- resume -------------------------------------------------------------------------------------------------------------

def data(step):
    rng = np.random.default_rng(100 + step)
    return Tensor(rng.standard_normal((8, 5)).astype(np.float32)), Tensor(rng.standard_normal((8, 3)).astype(np.float32))

def make_run(seed, make_opt):
    set_seed(seed)
    model = Net()
    return model, make_opt(model)

def train(model, opt, start, stop, step_fn=None):
    def step(x, y):
        loss = nn.mse_loss(model(x), y)
        loss.backward(); opt.step(loss); opt.zero_grad()
        return loss
    fn = step_fn or step
    for i in range(start, stop): fn(*data(i))

def params_bytes(model): return [p.numpy().tobytes() for p in model.parameters()]

@pytest.mark.parametrize("device", ["numpy", "c"])
@pytest.mark.parametrize("make_opt", [lambda m: AdamW(m.named_parameters(), lr=0.01, weight_decay=0.05),
                                      lambda m: muon_with_adamw(m.named_parameters(), lr=0.02, adamw_lr=0.01)], ids=["adamw", "muon+adamw"])
def test_resume_reaches_the_same_parameters_bit_for_bit(tmp_path, device, make_opt):
    k = 4
    with use_device(device):
        straight, straight_opt = make_run(0, make_opt)
        train(straight, straight_opt, 0, 2 * k)

        first, first_opt = make_run(0, make_opt)
        train(first, first_opt, 0, k)
        path = tmp_path / "ckpt.safetensors"
        save_checkpoint(path, first, first_opt)

        resumed, resumed_opt = make_run(99, make_opt)            # different initial weights: everything must come from the file
        load_into(path, resumed, resumed_opt)
        train(resumed, resumed_opt, k, 2 * k)
        assert params_bytes(resumed) == params_bytes(straight)

        cold, cold_opt = make_run(99, make_opt)                  # the same weights, but a fresh optimizer (moments 0, beta**t 1)
        load_into(path, cold)
        train(cold, cold_opt, k, 2 * k)
        differing = [a != b for a, b in zip(params_bytes(cold), params_bytes(straight))]
        assert all(differing)
        worst = max(np.abs(p.numpy() - q.numpy()).max() for p, q in zip(cold.parameters(), straight.parameters()))
        assert worst > 1e-4                                       # not a rounding difference: a different trajectory

def test_load_into_keeps_a_capture_replaying(tmp_path):
    "load_into assigns into the buffers a captured step holds, so the replay continues from the loaded values."
    make_opt = lambda m: AdamW(m.named_parameters(), lr=0.01)
    with use_device("c"):
        straight, straight_opt = make_run(0, make_opt)
        train(straight, straight_opt, 0, 6)

        model, opt = make_run(0, make_opt)
        def step(x, y):
            loss = nn.mse_loss(model(x), y)
            loss.backward(); opt.step(loss); opt.zero_grad()
            return loss
        captured = capture(step)
        train(model, opt, 0, 3, captured)
        path = tmp_path / "mid.safetensors"
        save_checkpoint(path, model, opt)
        train(model, opt, 3, 5, captured)                        # wander off ...
        load_into(path, model, opt)                              # ... and come back into the same buffers
        train(model, opt, 3, 6, captured)
        assert captured.replays == 6 and params_bytes(model) == params_bytes(straight)

def test_load_into_checks_names_shapes_and_dtypes(tmp_path):
    set_seed(0)
    model = Net()
    before = params_bytes(model)
    path = tmp_path / "w.safetensors"
    save(path, {"fc1.weight": Tensor(np.zeros((7, 5), np.float32))})
    with pytest.raises(ValueError, match="missing"): load_into(path, model)
    params = {n: Tensor(p.numpy()) for n, p in model.named_parameters()}
    save(path, params | {"extra": Tensor(np.zeros(1, np.float32))})
    with pytest.raises(ValueError, match="do not have: \\['extra'\\]"): load_into(path, model)
    save(path, params | {"fc2.bias": Tensor(np.zeros(4, np.float32))})
    with pytest.raises(ValueError, match="'fc2.bias' is float32\\[4\\], expected float32\\[3\\]"): load_into(path, model)
    save(path, params | {"fc1.weight": Tensor(np.zeros((7, 5), np.float32)), "fc2.bias": Tensor(np.zeros(3, np.float64))})
    with pytest.raises(ValueError, match="'fc2.bias' is float64"): load_into(path, model)
    assert params_bytes(model) == before                        # a refused load left nothing half-assigned

# --- atomic saves -------------------------------------------------------------------------------------------------------

def test_an_interrupted_save_leaves_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "ckpt.safetensors"
    save(path, {"a": Tensor(np.arange(4, dtype=np.float32))})
    old = path.read_bytes()
    import limn.serialize as serialize
    for broken in ("replace", "fsync"):
        def fail(*args, **kwargs): raise OSError(f"simulated crash in os.{broken}")
        with monkeypatch.context() as m:
            m.setattr(serialize.os, broken, fail)
            with pytest.raises(OSError, match="simulated"): save(path, {"a": Tensor(np.zeros(1000, np.float32))})
        assert path.read_bytes() == old and sorted(os.listdir(tmp_path)) == ["ckpt.safetensors"]
    class CrashAfterFirstChunk:
        "The chunks of a save, but the process is interrupted after the first one reached the temporary file."
        def __init__(self, chunks): self.chunks = chunks
        def __iter__(self):
            yield self.chunks[0]
            raise KeyboardInterrupt("simulated interrupt mid-write")
    real = serialize._write_atomic
    with monkeypatch.context() as m:
        m.setattr(serialize, "_write_atomic", lambda path_, chunks: real(path_, CrashAfterFirstChunk(chunks)))
        with pytest.raises(KeyboardInterrupt): save(path, {"a": Tensor(np.zeros(1000, np.float32))})
    assert path.read_bytes() == old and sorted(os.listdir(tmp_path)) == ["ckpt.safetensors"]
    save(path, {"b": Tensor(np.ones(2, np.int8))})
    assert list(load(path)) == ["b"]

def test_save_refuses_bad_arguments(tmp_path):
    with pytest.raises(TypeError, match="dict"): save(tmp_path / "x", [Tensor(np.ones(1))])
    with pytest.raises(ValueError, match="__metadata__"): save(tmp_path / "x", {"__metadata__": Tensor(np.ones(1))})
    with pytest.raises(TypeError, match="expected a Tensor"): save(tmp_path / "x", {"a": np.ones(1)})
    with pytest.raises(TypeError, match="str -> str"): save(tmp_path / "x", {"a": Tensor(np.ones(1))}, metadata={"a": 1})

# --- malformed files ----------------------------------------------------------------------------------------------------

def with_header(header, data=b"", length=None):
    text = header if isinstance(header, bytes) else json.dumps(header).encode()
    return struct.pack("<Q", len(text) if length is None else length) + text + data

def entry(dtype="F32", shape=(2,), offsets=(0, 8)): return {"dtype": dtype, "shape": list(shape), "data_offsets": list(offsets)}

MALFORMED = [
    (b"", "truncated"), (b"\x05\x00\x00", "truncated"),
    (with_header(b"{}", length=2**40), "over the 100000000-byte limit"),
    (with_header(b"{}", length=3 * 2**30), "over the 100000000-byte limit"),          # a header "of gigabytes"
    (with_header(b"{}", length=500), "runs past the end"),
    (with_header(b"{not json"), "not valid JSON"), (with_header(b"\xff\xfe{}"), "not valid JSON"),
    (with_header(b"[1, 2]"), "must be a JSON object"),
    (with_header({"x": entry(dtype="F8_E4M3")}, b"\0" * 8), "unknown or unsupported dtype"),
    (with_header({"x": entry(dtype="U64")}, b"\0" * 8), "unknown or unsupported dtype"),
    (with_header({"x": entry(shape=(-2,))}, b"\0" * 8), "non-negative ints"),
    (with_header({"x": entry(shape=(2.0,))}, b"\0" * 8), "non-negative ints"),
    (with_header({"x": entry(offsets=(8, 0))}, b"\0" * 8), "0 <= begin <= end"),
    (with_header({"x": entry(offsets=(0, 8))}, b"\0" * 4), "outside the file"),
    (with_header({"x": entry(shape=(10**12,), offsets=(0, 4 * 10**12))}, b"\0" * 8), "outside the file"),
    (with_header({"x": entry(shape=(3,))}, b"\0" * 8), "needs 12 bytes but its byte range holds 8"),
    (with_header({"x": entry(shape=(10**15, 10**15), offsets=(0, 8))}, b"\0" * 8), "needs 4000000000000000000000000000000 bytes"),
    (with_header({"x": entry(), "y": entry(shape=(1,), offsets=(4, 8))}, b"\0" * 8), "overlap"),
    (with_header({"x": entry(), "y": entry(offsets=(0, 8))}, b"\0" * 8), "overlap"),
    (with_header(b'{"x": %s, "x": %s}' % (json.dumps(entry()).encode(), json.dumps(entry()).encode()), b"\0" * 8), "more than once"),
    (with_header({"x": {"dtype": "F32", "shape": [2]}}, b"\0" * 8), "exactly dtype, shape and data_offsets"),
    (with_header({"__metadata__": {"a": 1}}), "__metadata__ must map strings"),
]

@pytest.mark.parametrize("data,message", MALFORMED, ids=[m for _, m in MALFORMED])
def test_malformed_files_are_refused_clearly_without_large_allocation(tmp_path, data, message):
    path = tmp_path / "bad.safetensors"
    path.write_bytes(data)
    tracemalloc.start()
    try:
        with pytest.raises(SafetensorsError, match=message) as info: load(path)
        _, peak = tracemalloc.get_traced_memory()
    finally: tracemalloc.stop()
    assert str(path) in str(info.value)
    assert isinstance(info.value, ValueError)
    assert peak < 1_000_000, f"loading a {len(data)}-byte malformed file allocated {peak} bytes"

@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_fuzz_headers_and_bytes(tmp_path, data):
    "Random headers (valid-looking and not) and random byte mutations: load either returns what the header says or raises SafetensorsError."
    kind = data.draw(st.sampled_from(["header", "mutate", "raw"]))
    if kind == "raw":
        blob = data.draw(st.binary(max_size=200))
    elif kind == "header":
        names = data.draw(st.lists(st.text(min_size=1, max_size=6), max_size=4, unique=True))
        header = {}
        for name in names:
            header[name] = {"dtype": data.draw(st.sampled_from(list(DTYPE_TAGS.values()) + ["F8", "I64", "", "BOOL"])),
                            "shape": data.draw(st.lists(st.integers(-2, 6), max_size=3)),
                            "data_offsets": data.draw(st.lists(st.integers(-4, 200), min_size=0, max_size=3))}
        if data.draw(st.booleans()): header["__metadata__"] = data.draw(st.dictionaries(st.text(max_size=4), st.one_of(st.text(max_size=4), st.integers())))
        blob = with_header(header, data.draw(st.binary(max_size=200)))
    else:
        good = tmp_path / "good.safetensors"
        save(good, {"a": Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)), "b": Tensor(np.arange(3, dtype=np.int8))})
        blob = bytearray(good.read_bytes())
        for _ in range(data.draw(st.integers(1, 4))):
            at = data.draw(st.integers(0, len(blob) - 1))
            blob[at] = data.draw(st.integers(0, 255))
        blob = bytes(blob[:data.draw(st.integers(0, len(blob)))])
    path = tmp_path / "fuzz.safetensors"
    path.write_bytes(blob)
    try: tensors = load(path)
    except SafetensorsError: return
    entries, _, start = read_header(path)
    assert list(tensors) == list(entries)
    for name, t in tensors.items():
        dtype, shape, begin, end = entries[name]
        assert t.dtype is dtype and t.shape == shape and start + end <= len(blob)
        assert t.numpy().tobytes() == blob[start + begin:start + end]

def test_train_stories_resume_matches_the_straight_run(tmp_path, capsys):
    "examples/train_stories.py stopped at a checkpoint and run again with --resume ends where the uninterrupted run ends."
    import importlib.util, pathlib
    spec = importlib.util.spec_from_file_location("train_stories", pathlib.Path(__file__).parents[1] / "examples" / "train_stories.py")
    stories = importlib.util.module_from_spec(spec); spec.loader.exec_module(stories)
    tiny = ["--device", "numpy", "--checkpoint-every", "3", "--dim", "16", "--context", "16", "--layers", "1", "--heads", "2",
            "--batch", "4", "--sample-bytes", "8"]
    stories.main(tiny + ["--steps", "3", "--out", str(tmp_path / "a")])
    stories.main(tiny + ["--steps", "6", "--out", str(tmp_path / "a"), "--resume"])
    stories.main(tiny + ["--steps", "6", "--out", str(tmp_path / "b")])
    a, b = load(tmp_path / "a" / "checkpoint.safetensors"), load(tmp_path / "b" / "checkpoint.safetensors")
    assert sorted(a) == sorted(b) and all(a[k].numpy().tobytes() == b[k].numpy().tobytes() for k in a)
    assert metadata(tmp_path / "a" / "checkpoint.safetensors")["step"] == "6"
    assert (tmp_path / "a" / "loss.png").stat().st_size > 1000
    assert "resumed from" in capsys.readouterr().err
