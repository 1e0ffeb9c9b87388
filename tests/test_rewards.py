"""The RL reward (chapter litmus/16_rewards): each anti-hacking property of the spec has a test here that fails if the
property is removed, on real kernels through the real pipeline and on evidence written by hand."""
import re
import pytest
from litmus import corpus
from litmus.rewards import (LitmusReward, RewardBreakdown, litmus_reward, litmus_reward_func, breakdown, task_of,
                            checked_task, extract_kernel, TASK_KEYS, UNKNOWN_CAP, COUNTEREXAMPLE_CAP, STATIC_CAP,
                            UNMODELLED_CAP)
from pathlib import Path

HERE = Path(__file__).parent


def fenced(source: str) -> str:
    return "My kernel:\n```python\n" + source + "\n```\n"


def reward_of(name: str, **task):
    return litmus_reward(fenced(corpus.get(name).source), **{**task_of(name), **task})


CLEAN = {"verdict": "ACCEPT", "certified": True, "reasons": [], "witness": "w",
         "safety": {"verdict": "ACCEPT", "defects": []},
         "falsification": {"counterexample": None, "configs": 9, "evaluations": 60, "failure": ""}}


# silence is not success: UNKNOWN strictly below ACCEPT, an unreadable kernel scores 0

def test_unknown_scores_strictly_below_accept():
    accept = reward_of("vadd")
    assert accept.verdict == "ACCEPT" and accept.score == 1.0
    unknown = litmus_reward(fenced((HERE / "kernels" / "unsupported_while.py").read_text()), spec="x", domain={"x_ptr": [-1, 1]})
    assert unknown.verdict == "UNKNOWN" and unknown.gate == "unmodelled"
    assert 0 < unknown.score <= UNMODELLED_CAP < UNKNOWN_CAP < accept.score
    # the cap holds even when every half of the evidence is otherwise perfect
    assert breakdown({**CLEAN, "verdict": "UNKNOWN"}, static=False).score <= UNKNOWN_CAP


def test_hiding_a_bug_from_the_checker_never_beats_being_caught():
    """softmax without the max shift, its input passed through inline asm (which litmus does not model): the search cannot
    run it, and the reward sits below the counterexample's. A while loop the prover cannot read hides nothing: the model
    runs it and the counterexample is found."""
    caught = reward_of("softmax_nomaxsub")
    asm = '    x = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x], dtype=tl.float32, is_pure=True, pack=1)\n'
    source = corpus.get("softmax_nomaxsub").source.replace("    num = tl.exp(x)\n", asm + "    num = tl.exp(x)\n", 1)
    assert "inline_asm" in source
    hidden = litmus_reward(fenced(source), **task_of("softmax_nomaxsub"))
    assert hidden.gate == "unmodelled" and 0 < hidden.score <= UNMODELLED_CAP < caught.score <= COUNTEREXAMPLE_CAP
    looped = corpus.get("softmax_nomaxsub").source.replace("    num = tl.exp(x)\n", "    k = 0\n    while k < 0:\n        k += 1\n    num = tl.exp(x)\n", 1)
    assert litmus_reward(fenced(looped), **task_of("softmax_nomaxsub")).score <= caught.score


@pytest.mark.parametrize("completion", [
    "The kernel is correct, trust me.",                                   # no code at all
    "```python\ndef kernel(:\n```",                                       # a syntax error
    "```python\nimport triton\n\ndef add(x): return x + 1\n```",          # no @triton.jit function
    [{"role": "assistant", "content": "```python\nLITMUS = {}\n```"}],    # chat form, nothing to load
])
def test_unreadable_scores_zero(completion):
    b = litmus_reward(completion, **task_of("vadd"))
    assert b.score == 0.0 and b.gate == "unreadable" and b.verdict == "UNREADABLE"


# memory safety is a gate: a proved OOB or race zeroes the score whatever the numbers

@pytest.mark.parametrize("name", ["vadd_nomask", "sum_race"])
def test_proved_safety_defect_zeroes_the_score(name):
    b = reward_of(name)
    assert b.gate == "memory_safety" and b.score == 0.0 and b.counterexample
    assert b.parts["bound"] == 1.0       # the numbers side earned its credit; the gate still zeroes the score


@pytest.mark.parametrize("kind", ["out_of_bounds", "race"])
def test_safety_gate_beats_perfect_numbers(kind):
    static_defect = {**CLEAN, "verdict": "REJECT", "safety": {"verdict": "REJECT", "defects": [{"kind": kind}]}}
    replayed = {**CLEAN, "verdict": "REJECT", "falsification": {"counterexample": {"kind": kind}, "configs": 9, "failure": ""}}
    assert breakdown(CLEAN, static=False).score == 1.0
    assert breakdown(static_defect, static=False).score == 0.0
    assert breakdown(replayed, static=False).score == 0.0
    assert breakdown(static_defect, static=True).score == 0.0


# a demonstrated counterexample caps the reward at 0.10

def test_counterexample_caps_the_reward():
    b = reward_of("softmax_nomaxsub")
    assert b.gate == "counterexample" and 0 < b.score <= COUNTEREXAMPLE_CAP and "numeric" in b.counterexample
    numeric = {**CLEAN, "verdict": "REJECT", "falsification": {"counterexample": {"kind": "numeric"}, "configs": 9, "failure": ""}}
    assert breakdown(numeric, static=False).score <= COUNTEREXAMPLE_CAP


def test_completion_cannot_narrow_its_domain():
    "softmax without the max shift is exact on [0, 1]; a completion declaring that domain is still judged on the task's."
    source = re.sub(r'"domain": \{[^}]*\}', '"domain": {"x_ptr": [0.0, 1.0]}', corpus.get("softmax_nomaxsub").source)
    assert '"x_ptr": [0.0, 1.0]' in source
    b = litmus_reward(fenced(source), **{**task_of("softmax_nomaxsub"), "launch": None})
    assert b.score <= COUNTEREXAMPLE_CAP


def test_completion_cannot_choose_its_accumulator_or_reduction():
    "Declaring a float16 accumulator loosens the threshold and a reduction dim of 1 drops the deep class: neither is trusted."
    source = corpus.get("rowsum_fp16acc").source.replace("LITMUS = {", 'LITMUS = {"accumulate": "float16", "reduce": "1", ', 1)
    b = litmus_reward(fenced(source), **{**task_of("rowsum_fp16acc"), "launch": None})
    assert b.gate == "counterexample" and b.score <= COUNTEREXAMPLE_CAP


# shape specialisation gains nothing: the whole symbolic shape space, not the benchmark's shape

def test_pinning_the_benchmark_shape_gains_nothing():
    source = corpus.get("vadd_nomask").source.replace("LITMUS = {", 'LITMUS = {"ranges": {"N": [1024, 1024]}, ', 1)
    source = re.sub(r'"dims": \{"N": \d+\}', '"dims": {"N": 1024}', source)
    assert '"N": 1024' in source and '"ranges"' in source
    b = litmus_reward(fenced(source), **{**task_of("vadd_nomask"), "launch": None})
    assert b.score == 0.0 and b.gate == "memory_safety"


def test_accept_walks_many_shape_classes():
    assert reward_of("vadd").shape_configs > 3


# static mode is capped at 0.65

def test_static_mode_is_capped():
    b = litmus_reward(fenced(corpus.get("vadd").source))      # no spec in the task: the file's own spec is not trusted
    assert b.mode == "static" and 0 < b.score <= STATIC_CAP
    assert breakdown({**CLEAN, "verdict": "UNKNOWN"}, static=True).score <= STATIC_CAP
    assert litmus_reward(fenced(corpus.get("vadd_nomask").source)).score == 0.0


# the trainer-facing shapes

def test_trl_signature_pool_and_cache():
    reward = LitmusReward(workers=2)
    assert reward.__name__ == "litmus_reward"
    good, bad = corpus.get("vadd").source, corpus.get("vadd_nomask").source
    completions = [fenced(good), [{"role": "assistant", "content": fenced(bad)}], fenced(good), "no code"]
    columns = {k: [task_of("vadd")[k]] * 4 for k in TASK_KEYS}
    try:
        scores = reward(prompts=["p"] * 4, completions=completions, **columns)
        assert scores == [1.0, 0.0, 1.0, 0.0] and all(isinstance(s, float) for s in scores)
        assert all(isinstance(b, RewardBreakdown) for b in reward.last)
        again = reward(prompts=["p"] * 4, completions=completions, **columns)
        assert again == scores and all(b.cached for b in reward.last)
    finally:
        reward.close()


class _DeadPool:
    "A pool whose every worker dies: each future holds the exception a broken ProcessPoolExecutor gives."
    def submit(self, fn, *args, **kwargs):
        from concurrent.futures import Future
        from concurrent.futures.process import BrokenProcessPool
        f = Future(); f.set_exception(BrokenProcessPool("a child process terminated abruptly")); return f
    def shutdown(self, wait=True, cancel_futures=False): pass


def test_a_broken_pool_never_gives_silent_zeros():
    reward = LitmusReward(workers=2)
    reward._pool = _DeadPool()
    completions = [fenced(corpus.get("vadd").source), fenced(corpus.get("softmax_nomaxsub").source)]
    columns = {k: [task_of("vadd")[k], task_of("softmax_nomaxsub")[k]] for k in TASK_KEYS}
    scores = reward(prompts=["p"] * 2, completions=completions, **columns)
    assert scores[0] == 1.0 and 0 < scores[1] <= COUNTEREXAMPLE_CAP
    assert [b.gate for b in reward.last] == ["accept", "counterexample"] and reward._pool is None


def test_rubric_function_logs_its_breakdown():
    state = {}
    task = task_of("vadd")
    score = litmus_reward_func(fenced(corpus.get("vadd").source), answer=task["spec"],
                               info={"domain": task["domain"], "launch": task["launch"]}, state=state)
    assert score == 1.0 and state["litmus"]["gate"] == "accept"


def test_bad_tasks_and_completions_name_the_problem():
    with pytest.raises(ValueError, match="no domain"):
        checked_task({"spec": "x + y"})
    with pytest.raises(ValueError, match="not among"):
        checked_task({"spec": "x", "domain": {"x": [0, 1]}, "answer_key": {}})
    with pytest.raises(TypeError, match="string or a list of chat messages"):
        extract_kernel(3.5)
    with pytest.raises(TypeError, match="completions="):
        LitmusReward()(prompts=["p"])
    with pytest.raises(ValueError, match="column 'spec' has 1 values for 2"):
        LitmusReward()(prompts=["a", "b"], completions=["x", "y"], spec=["x"], domain=[{"x": [0, 1]}] * 2)


# ---- issue 30: a cache that trusts only itself, many files at once, and Ray as the engine past one machine ----

import json, os, signal, threading, time
import numpy as np
import litmus
from litmus.rewards import FileCache, score_source
from litmus.cli import check_many, nearest_rank


def _columns(names):
    return {k: [task_of(n)[k] for n in names] for k in TASK_KEYS}


def _outcomes(reward):
    return [(b.score, b.verdict, b.gate, b.counterexample) for b in reward.last]


def test_the_file_cache_serves_only_entries_it_signed(tmp_path):
    shelf = FileCache(tmp_path)
    b = RewardBreakdown(1.0, "ACCEPT", "reference", "accept", {"safety": 1.0, "bound": 1.0, "search": 1.0}, [])
    shelf.put("a" * 64, b)
    assert FileCache(tmp_path).get("a" * 64).score == 1.0 and (tmp_path / "secret").stat().st_mode & 0o077 == 0
    entry = json.loads((tmp_path / ("a" * 64 + ".json")).read_text())
    other = FileCache(tmp_path / "elsewhere")                      # another secret: what a forger without ours can sign
    body = json.dumps({**b.as_dict(), "score": 0.99}, sort_keys=True)
    for forged in [{**entry, "body": entry["body"].replace('"verdict": "ACCEPT"', '"verdict": "REJECT"')},
                   {"mac": other._mac("b" * 64, body), "body": body}, {"body": body}, "not json {"]:
        (tmp_path / ("b" * 64 + ".json")).write_text(forged if isinstance(forged, str) else json.dumps(forged))
        assert shelf.get("b" * 64) is None, forged


def test_the_cache_key_holds_the_source_the_task_and_litmus_version(monkeypatch):
    reward = LitmusReward(workers=1)
    task = checked_task(task_of("vadd"))
    key = reward.key("src", task)
    assert key != reward.key("src ", task) and key != reward.key("src", checked_task(task_of("softmax")))
    monkeypatch.setattr(litmus, "__version__", litmus.__version__ + ".post1")
    assert reward.key("src", task) != key


def test_a_cache_dir_is_shared_by_rewards_in_other_processes(tmp_path, monkeypatch):
    completions = [fenced(corpus.get("vadd").source)]
    first = LitmusReward(workers=1, cache_dir=tmp_path, **task_of("vadd"))
    assert first(completions=completions) == [1.0] and not first.last[0].cached
    monkeypatch.setattr("litmus.rewards.score_source", lambda *a, **k: pytest.fail("a cached completion was checked again"))
    second = LitmusReward(workers=1, cache_dir=tmp_path, **task_of("vadd"))
    assert second(completions=completions) == [1.0] and second.last[0].cached


def test_check_many_gives_each_file_its_check_and_a_summary():
    names = ["vadd", "vadd_nomask"]
    heard = []
    batch = check_many([corpus.get(n).path for n in names], workers=2, quick=True, progress=heard.append)
    assert [r["verdict"] for r in batch.results] == ["ACCEPT", "REJECT"]
    assert [r["path"] for r in batch.results] == [str(corpus.get(n).path) for n in names] and len(heard) == 2
    s = batch.summary
    assert s["kernels"] == 2 and s["verdicts"] == {"ACCEPT": 1, "REJECT": 1} and s["backend"] == "local"
    seconds = [r["seconds"] for r in batch.results]
    for q in (50, 95):
        assert s[f"p{q}_seconds"] == float(np.percentile(seconds, q, method="inverted_cdf"))
    with pytest.raises(ValueError, match="paths is empty"):
        check_many([])
    assert nearest_rank([], 0.5) == 0.0


def test_an_unreadable_file_in_check_many_is_an_unknown_that_says_why(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def (:\n")
    (r,) = check_many([bad], workers=1).results
    assert r["verdict"] == "UNKNOWN" and "could not check it" in r["reasons"][0]


# Ray: one local node with two CPUs per test worker, the session fixture `ray_node` of tests/conftest.py, and one
# pool of two warm actors for the module (each pool's start costs its actors' imports; the kill and deadline tests
# replace the actors they lose, so whatever runs after them still has two)


RAY_SAMPLE = ["vadd", "vadd_nomask", "softmax_nomaxsub", "histogram"]


def test_check_many_on_ray_matches_the_local_pool(ray_node):
    "First: its own pool takes both CPUs, which the module's pool below holds once it starts."
    paths = [corpus.get(n).path for n in ("vadd", "vadd_nomask")]
    local, ray_ = check_many(paths, workers=2, quick=True), check_many(paths, ray="auto", quick=True)
    assert [r["verdict"] for r in ray_.results] == [r["verdict"] for r in local.results] == ["ACCEPT", "REJECT"]
    assert ray_.summary["backend"] == "ray" and ray_.summary["verdicts"] == local.summary["verdicts"]


@pytest.fixture(scope="module")
def ray_reward(ray_node):
    reward = LitmusReward(workers=2, backend="ray")
    yield reward
    reward.close()


def _ray_and_local(names, ray_reward):
    completions = [fenced(corpus.get(n).source) for n in names]
    out = []
    local = LitmusReward(workers=2, backend="local")
    try:
        local(completions=completions, **_columns(names))
        out.append(_outcomes(local))
    finally:
        local.close()
    ray_reward(completions=completions, **_columns(names))
    return out + [_outcomes(ray_reward)]


def test_ray_and_local_give_the_same_verdicts_and_scores(ray_reward):
    local, ray_ = _ray_and_local(RAY_SAMPLE, ray_reward)
    assert local == ray_
    assert [o[2] for o in ray_][:3] == ["accept", "memory_safety", "counterexample"]


@pytest.mark.long
def test_ray_and_local_agree_on_the_whole_corpus(ray_reward):
    local, ray_ = _ray_and_local([k.name for k in corpus.kernels()], ray_reward)
    assert local == ray_


def test_killing_a_ray_worker_loses_only_that_completions_score(ray_reward):
    names = ["matmul", "vadd", "vadd_nomask", "softmax_nomaxsub"]
    reward = ray_reward
    completions = [fenced(corpus.get(n).source + "\n# the kill test\n") for n in names]   # none served from the cache
    reward(completions=[fenced("x = 1")])            # the pool is up, so the kill below lands mid-job
    pool, victim, scores = reward._ray_pool, [], []
    worker = threading.Thread(target=lambda: scores.extend(reward(completions=completions, **_columns(names))))
    worker.start()
    for _ in range(3000):
        busy = dict(pool.busy)
        if "matmul" not in victim and busy:
            key = reward.key(extract_kernel(completions[0]), reward.task(0, _columns(names), len(names)))
            if key in busy:
                os.kill(pool.pids[busy[key]], signal.SIGKILL)
                victim.append("matmul")
                break
        time.sleep(0.005)
    worker.join(600)
    assert victim, "the matmul job was never seen running"
    lost, *rest = reward.last
    assert lost.verdict == "UNKNOWN" and lost.gate == "error" and lost.score == 0.0 and "lost mid-batch" in lost.reasons[0]
    assert [b.gate for b in rest] == ["accept", "memory_safety", "counterexample"], [str(b) for b in rest]
    again = reward(completions=completions[:1], **{k: v[:1] for k, v in _columns(names).items()})
    assert again == [1.0] and len(pool.actors) == 2        # the lost worker was replaced; its score was not cached


def test_a_ray_batch_has_a_deadline(ray_reward):
    reward = ray_reward
    reward.deadline = 0.05
    try:
        matmul = {k: [v] * 3 for k, v in task_of("matmul").items()}
        scores = reward(completions=[fenced(corpus.get("matmul").source + f"\n# {i}\n") for i in range(3)], **matmul)
        assert scores == [0.0] * 3 and all("deadline" in b.reasons[0] and b.verdict == "UNKNOWN" for b in reward.last)
    finally:
        reward.deadline = None
    vadd = fenced(corpus.get("vadd").source + "\n# after the deadline\n")
    assert reward(completions=[vadd], **{k: [v] for k, v in task_of("vadd").items()}) == [1.0]


# The Ray pool's bookkeeping without a Ray node (which needs half a minute to start on a loaded 2-core machine): a
# stand-in for the few Ray calls RayPool makes, actors as one-thread executors, and a stand-in job that can die or hang.

class _FakeRay:
    class exceptions:
        class RayActorError(Exception): pass
        class WorkerCrashedError(Exception): pass
        class ObjectLostError(Exception): pass
        class RayTaskError(Exception): pass

    def __init__(self):
        self.started = 0

    def is_initialized(self): return True
    def cluster_resources(self): return {"CPU": 2}
    def kill(self, actor): actor.dead = True

    def remote(self, **options):
        fake = self
        from concurrent.futures import ThreadPoolExecutor
        class Method:
            def __init__(self, actor, name): self.actor, self.name = actor, name
            def remote(self, *args):
                actor = self.actor
                def run():
                    if self.name == "pid":
                        return 1000 + actor.number
                    job, source, *rest = args
                    if "die" in source:
                        actor.dead = True
                    if "hang" in source:
                        time.sleep(1.0)
                    if actor.dead:
                        raise _FakeRay.exceptions.RayActorError("the actor died")
                    return job(source, *rest)
                return actor.pool.submit(run)
        def factory(cls):
            assert cls.__name__ == "RayWorker" and callable(cls.call)
            class Actor:
                def remote(self_):
                    fake.started += 1
                    a = type("A", (), {})()
                    a.number, a.dead, a.pool = fake.started, False, ThreadPoolExecutor(1)
                    a.pid, a.call = Method(a, "pid"), Method(a, "call")
                    return a
            return Actor()
        return factory

    def get(self, ref): return ref.result()

    def wait(self, refs, num_returns=1, timeout=None):
        from concurrent.futures import wait, FIRST_COMPLETED
        done, rest = wait(refs, timeout=timeout, return_when=FIRST_COMPLETED)
        return list(done), list(rest)


def _clean_evidence(source, task, options=None, **more):
    "The stand-in job: the evidence of a clean ACCEPT, whatever it is given."
    return {"verdict": "ACCEPT", "reasons": [], "seconds": 0.01, "certified": True, "witness": "",
            "safety": {"verdict": "ACCEPT", "defects": []},
            "falsification": {"counterexample": None, "configs": 3, "evaluations": 9, "failure": ""}}


def test_the_ray_pool_loses_only_the_dead_workers_job_and_keeps_a_deadline(monkeypatch):
    from litmus import cli, rewards
    fake = _FakeRay()
    monkeypatch.setattr(cli, "_ray", lambda: fake)
    pool = cli.RayPool(workers=2)
    assert pool.pids == [1001, 1002]
    jobs = {k: (k, {}, {}) for k in ["fine 1", "die", "fine 2", "fine 3"]}
    heard = []
    out = pool.map(_clean_evidence, jobs, deadline=30, done=lambda key, status, value: heard.append((key, status)))
    assert out["die"][0] == "lost" and "lost mid-batch" in out["die"][1]
    assert all(out[k][0] == "ok" and out[k][1]["verdict"] == "ACCEPT" for k in jobs if k != "die")
    assert sorted(heard) == sorted((k, out[k][0]) for k in jobs)           # each job reported once, as it finished
    assert fake.started == 3 and len(pool.actors) == 2 and not any(a.dead for a in pool.actors)   # the dead one replaced
    out = pool.map(_clean_evidence, {"hang": ("hang", {}, {}), "queued 1": ("fine", {}, {}), "queued 2": ("fine", {}, {}),
                                     "queued 3": ("hang", {}, {}), "queued 4": ("fine", {}, {})}, deadline=0.3)
    assert out["hang"][0] == "lost" and "passed while it ran" in out["hang"][1]
    assert out["queued 1"][0] == out["queued 2"][0] == "ok" and out["queued 3"][0] == "lost", out
    assert out["queued 4"][0] == "lost" and "before it started" in out["queued 4"][1], out
    reward = LitmusReward(workers=2, backend="ray")
    monkeypatch.setattr(rewards, "RayPool", lambda *a: pool)
    monkeypatch.setattr(rewards, "score_source", _clean_evidence)     # the actor's job, run by the stand-in actor
    scores = reward(completions=[fenced("die"), fenced("fine")], spec=["x"] * 2, domain=[{"x": [0, 1]}] * 2)
    assert scores[0] == 0.0 and reward.last[0].verdict == "UNKNOWN" and "lost mid-batch" in reward.last[0].reasons[0]
    assert scores[1] == 1.0 and reward.last[1].gate == "accept"
