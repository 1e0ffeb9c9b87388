"""litmus's static side against hostile kernel files (issue 17): nothing in the file runs, every store spelling is
REJECT or UNKNOWN (never ACCEPT), the function analysed is the one Python would call, every check returns within its
budget, and malformed input gives the project's own error. Chapter: nbs/litmus/11_safety ("What litmus trusts")."""
import os, sys, textwrap
from pathlib import Path
import pytest
from litmus.tritonsource import (build_model, read_kernel, KernelFileError, parse_kernel_source, jit_only_source,
                             triton_available, MAX_CASES)
from litmus.safety import GPUSafetyCheck

LAUNCH = '''
LITMUS = {"dims": {"N": 1000}, "grid": ["cdiv(N, BLOCK)"],
          "args": [{"name": "x_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "in"},
                   {"name": "out_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "out"},
                   {"name": "n", "kind": "scalar", "value": "N"},
                   {"name": "BLOCK", "kind": "constexpr", "value": "128"}]}
'''
HEAD = 'import triton\nimport triton.language as tl\n'

def kernel_file(tmp_path, body, head=HEAD, tail='', name='k', launch=LAUNCH):
    "A kernel file `name.py` whose jit function `name` has the given body (offs and x already computed)."
    body = textwrap.indent(textwrap.dedent(body).strip('\n'), '    ')
    src = (f"{head}\n@triton.jit\ndef {name}(x_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
           f"    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n    x = tl.load(x_ptr + offs, mask=offs < n)\n"
           f"{body}\n{tail}\n{launch}")
    path = tmp_path / f'{name}.py'
    path.write_text(src)
    return path

def verdict(path, **kw): return GPUSafetyCheck(path, **kw).run()

def cpu_seconds() -> float:
    """CPU seconds this process and its finished children have used: the work a bound on a hostile kernel limits (wall time
    also counts the other programs of a loaded machine)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system

# ---- nothing in the file runs ----

def test_top_level_code_never_runs(tmp_path):
    marker = tmp_path / 'ran'
    side_effects = f'''
import sys, os
open({str(marker)!r}, 'w').write('top level')
import litmus.safety
litmus.safety.GPUSafetyCheck.run = lambda self: None
sys.exit(0)
'''
    path = kernel_file(tmp_path, 'tl.store(out_ptr + offs + 100000, x)', head=HEAD + side_effects)
    read_kernel(path); build_model(read_kernel(path))
    r = verdict(path)
    assert not marker.exists()
    assert r is not None and r.verdict == 'REJECT' and r.exit_code == 1  # the file could not patch litmus nor pick the exit code

def test_decorator_and_default_arguments_never_run(tmp_path):
    "Code in a decorator argument or a default is refused by the loader, naming the line, before anything runs."
    marker = tmp_path / 'ran'
    src = HEAD + f'''
@triton.jit(debug=open({str(marker)!r}, 'w'))
def k(x_ptr, out_ptr, n, BLOCK: tl.constexpr = open({str(marker)!r}, 'w')):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
''' + LAUNCH
    path = tmp_path / 'k.py'; path.write_text(src)
    with pytest.raises(KernelFileError, match='line 4: decorator argument .* runs at definition time'):
        verdict(path)
    path.write_text(src.replace(f"(debug=open({str(marker)!r}, 'w'))", ''))
    with pytest.raises(KernelFileError, match='line 5: default .* runs at definition time'):
        read_kernel(path)
    assert not marker.exists()

@pytest.mark.skipif(not triton_available(), reason='triton is not installed: the TTIR cross-check needs it')
def test_ttir_imports_only_the_jit_definitions(tmp_path):
    from litmus.tritonsource import ttir, ttir_memory_ops
    marker = tmp_path / 'ran'
    path = kernel_file(tmp_path, 'tl.store(out_ptr + offs, x, mask=offs < n)', head=HEAD + f"open({str(marker)!r}, 'w')\n")
    ops = ttir_memory_ops(ttir(read_kernel(path)))
    assert [k for k, _ in ops] == ['load', 'store'] and not marker.exists()

# ---- every store spelling is REJECT or UNKNOWN ----

def _writing_tl_functions():
    "The triton.language functions that write memory: from Triton itself when installed, else the list of Triton 3.9."
    known = {'store', 'atomic_add', 'atomic_and', 'atomic_cas', 'atomic_max', 'atomic_min', 'atomic_or', 'atomic_xchg',
             'atomic_xor', 'atomic_store', 'store_tensor_descriptor'}
    if triton_available():
        import triton.language as tl
        known |= {n for n in dir(tl) if not n.startswith('_') and ('store' in n or n.startswith('atomic_')) and callable(getattr(tl, n))}
    return sorted(known)

def _writing_methods():
    "Methods of a Triton tensor (a pointer block) and of a tensor descriptor that write memory or move a pointer."
    known = {'store', 'atomic_add', 'atomic_and', 'atomic_cas', 'atomic_max', 'atomic_min', 'atomic_or', 'atomic_xchg',
             'atomic_xor', 'atomic_store', 'advance', 'scatter'}
    if triton_available():
        import triton.language as tl
        known |= {n for n in dir(tl.tensor) if not n.startswith('_') and ('store' in n or n.startswith('atomic_') or n == 'advance')}
        desc = getattr(tl, 'tensor_descriptor', None)
        if desc is not None: known |= {n for n in dir(desc) if not n.startswith('_') and ('store' in n or n.startswith('atomic_') or n == 'scatter')}
    return sorted(known)

def _args(name):
    return 'out_ptr + offs + 100000, x, x' if name == 'atomic_cas' else 'out_ptr + offs + 100000, x'

@pytest.mark.parametrize('name', _writing_tl_functions())
def test_every_writing_tl_function(tmp_path, name):
    "A wild write (100000 past a 1000-element tensor) through each tl function: REJECT or UNKNOWN, never ACCEPT."
    r = verdict(kernel_file(tmp_path, f'tl.{name}({_args(name)})'))
    assert r.verdict in ('REJECT', 'UNKNOWN'), (name, str(r))
    if r.verdict == 'UNKNOWN': assert any(name in u.construct for u in r.unsupported), (name, str(r))

@pytest.mark.parametrize('name', _writing_methods())
def test_every_writing_method(tmp_path, name):
    for spelling in (f'(out_ptr + offs + 100000).{name}(x)', f'p = out_ptr + offs + 100000\np.{name}(x)',
                     f'y = (out_ptr + offs).{name}(x)'):
        r = verdict(kernel_file(tmp_path, spelling))
        assert r.verdict == 'UNKNOWN', (spelling, str(r))
        assert any(u.construct == f'method .{name}' and u.line == 8 + spelling.count('\n') for u in r.unsupported), (spelling, str(r))

SPELLINGS = {  # body (and extra module head) -> a construct the report must name
    'getattr': ('getattr(tl, "store")(out_ptr + offs + 100000, x)', HEAD, 'call through getattr'),
    'alias_import': ('lang.store(out_ptr + offs + 100000, x)', HEAD + 'import triton.language as lang\n', 'lang.store'),
    'from_import': ('store(out_ptr + offs + 100000, x)', HEAD + 'from triton.language import store\n', 'call to store'),
    'local_alias': ('t = tl\nt.store(out_ptr + offs + 100000, x)', HEAD, 'method .store'),
    'function_value': ('s = tl.store\ns(out_ptr + offs + 100000, x)', HEAD, 'call to s'),
    'module_alias': ('tl2.store(out_ptr + offs + 100000, x)', HEAD + 'tl2 = tl\n', 'tl2.store'),
    'tl_rebound': ('tl.store(out_ptr + offs + 100000, x)', HEAD + 'import numpy as tl\n', 'tl.store'),
    'subscript_call': ('[tl.store][0](out_ptr + offs + 100000, x)', HEAD, 'call through [tl.store][0]'),
    'inline_asm': ('y = tl.inline_asm_elementwise("st.global.f32 [$1], $2;", "=r,l,r", [out_ptr + offs, x], dtype=tl.int32, is_pure=False, pack=1)',
                   HEAD, 'tl.inline_asm_elementwise'),
    'block_pointer': ('bp = tl.make_block_ptr(out_ptr, (n,), (1,), (100000,), (BLOCK,), (0,))\ntl.store(bp, x)', HEAD, 'tl.make_block_ptr'),
    'advance': ('bp = tl.advance(out_ptr, (100000,))\ntl.store(bp, x)', HEAD, 'tl.advance'),
    'descriptor': ('d = tl.make_tensor_descriptor(out_ptr, [n], [1], [BLOCK])\nd.store([100000], x)', HEAD, 'tl.make_tensor_descriptor'),
    'unknown_function': ('helper(out_ptr + offs + 100000, x)', HEAD + 'def helper(p, v): pass\n', 'call to helper'),
    'hidden_in_keyword': ('y = tl.load(x_ptr + offs, mask=offs < n, cache_modifier=tl.atomic_store(out_ptr + offs + 100000, x))', HEAD, 'tl.atomic_store'),
    'hidden_in_subscript': ('y = x[tl.atomic_store(out_ptr + offs + 100000, x)]', HEAD, 'tl.atomic_store'),
    'hidden_in_assert': ('assert tl.atomic_store(out_ptr + offs + 100000, x)', HEAD, 'tl.atomic_store'),
    'in_while': ('while n > 0:\n    tl.store(out_ptr + offs + 100000, x)', HEAD, 'while loop'),
    'in_lambda': ('f = lambda: tl.store(out_ptr + offs + 100000, x)\nf()', HEAD, 'Lambda'),
    'walrus': ('(y := tl.atomic_store(out_ptr + offs + 100000, x))', HEAD, 'NamedExpr'),
}

@pytest.mark.parametrize('case', sorted(SPELLINGS))
def test_every_store_spelling_is_unknown_and_named(tmp_path, case):
    body, head, construct = SPELLINGS[case]
    try:
        r = verdict(kernel_file(tmp_path, body, head=head))
    except KernelFileError as e:      # refused by the loader (never analysed, never run): stronger than UNKNOWN
        assert 'line ' in str(e), str(e)
        return
    assert r.verdict in ('UNKNOWN', 'REJECT'), (case, str(r))
    assert any(construct in u.construct for u in r.unsupported), (case, construct, str(r))
    assert all(u.line > 0 for u in r.unsupported)

def test_the_plain_spelling_is_rejected_with_a_witness(tmp_path):
    "The control: the same wild store written as `tl.store` is modelled and proved out of bounds."
    r = verdict(kernel_file(tmp_path, 'tl.store(out_ptr + offs + 100000, x)'))
    assert r.verdict == 'REJECT' and r.defects[0].kind == 'out_of_bounds' and r.defects[0].witness['address'] >= 100000

@pytest.mark.parametrize('body', ['hist = tl.load(x_ptr + offs, mask=offs < n).to(tl.int32)\ntl.atomic_add(out_ptr + hist, 1, mask=offs < n)',
                                  'idx = tl.load(x_ptr + offs, mask=offs < n).to(tl.int32)\ntl.store(out_ptr + idx, x, mask=offs < n)'])
def test_data_dependent_addresses_are_unknown(tmp_path, body):
    "A histogram through atomics and a scatter: the prover cannot bound a loaded index; UNKNOWN, kind 'data_address'."
    r = verdict(kernel_file(tmp_path, body))
    assert r.verdict == 'UNKNOWN'
    u = [u for u in r.unsupported if u.kind == 'data_address']
    assert u and u[0].line == 9 and 'tl.load at line' in u[0].why, str(r)

def test_uncertain_access_is_not_rejected(tmp_path):
    "An unmasked wild store after a while loop: the loop may never end, so no REJECT is claimed; UNKNOWN with the reason."
    r = verdict(kernel_file(tmp_path, 'while n > 0:\n    n = n - 1\ntl.store(out_ptr + offs + 100000, x)'))
    assert r.verdict == 'UNKNOWN' and not r.defects and any('may keep it from executing' in o for o in r.open), str(r)

# ---- the function analysed is the one Python would call ----

GOOD = 'tl.store(out_ptr + offs, x, mask=offs < n)'
BINDINGS = {
    'second_def': ('', '\ndef k(*args):\n    pass\n', 'bound again by a second def'),
    'second_jit_def': ('', '\n@triton.jit\ndef k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):\n    tl.store(out_ptr + 100000, 0.0)\n', 'bound again'),
    'assignment': ('', '\nk = None\n', 'bound again'),
    'rewrap': ('', '\nk = triton.jit(k.fn)\n', 'bound again'),
    'import_over': ('', '\nfrom os import path as k\n', 'bound again'),
    'delete': ('', '\ndel k\n', 'bound again'),
    'in_if_block': ('', '\nif True:\n    def k(*a): pass\n', 'bound again'),
    'global': ('', '\ndef f():\n    global k\n    k = 1\n', 'global k'),
    'star_import': ('', '\nfrom os import *\n', 'import *'),
    'globals': ('', '\nglobals()["k"] = None\n', '`globals`'),
    'setattr': ('', '\nimport sys\nsetattr(sys.modules[__name__], "k", None)\n', '`setattr`'),
    'exec': ('', '\nexec("k = None")\n', '`exec`'),
    'sys_modules': ('', '\nimport sys\nsys.modules[__name__].k = None\n', 'sys.modules'),
}

@pytest.mark.parametrize('case', sorted(BINDINGS))
def test_rebinding_the_kernel_is_refused(tmp_path, case):
    head, tail, message = BINDINGS[case]
    path = kernel_file(tmp_path, GOOD, tail=tail)
    with pytest.raises(KernelFileError, match='line') as e: GPUSafetyCheck(path)
    assert message in str(e.value) and str(path) in str(e.value), str(e.value)

def test_unknown_decorator_is_refused(tmp_path):
    path = tmp_path / 'k.py'
    src = kernel_file(tmp_path, GOOD).read_text().replace('@triton.jit\n', 'def swap(f): return f\n@swap\n@triton.jit\n')
    path.write_text(src)
    with pytest.raises(KernelFileError, match=r'line 5: decorator @swap on k: only @triton.jit'): GPUSafetyCheck(path)
    path.write_text(src.replace('@swap\n@triton.jit', '@triton.jit\n@swap'))
    with pytest.raises(KernelFileError, match=r'decorator @swap'): GPUSafetyCheck(path)

def test_launch_literal_only(tmp_path):
    path = kernel_file(tmp_path, GOOD, tail='\nLITMUS = dict(dims={"N": 10})\n', launch='')
    with pytest.raises(KernelFileError, match='not a plain literal'): GPUSafetyCheck(path)
    path = kernel_file(tmp_path, GOOD, tail='\nLITMUS["grid"] = ["1"]\n')
    with pytest.raises(KernelFileError, match='LITMUS is used after its literal'): GPUSafetyCheck(path)
    path = kernel_file(tmp_path, GOOD, launch='')
    with pytest.raises(KernelFileError, match='missing the LITMUS'): GPUSafetyCheck(path)

# ---- malformed input: the project's own errors ----

def test_malformed_files(tmp_path):
    good = kernel_file(tmp_path, GOOD).read_text()
    cases = {
        'not_utf8': (good.encode() + b'\n# \xff\xfe\n', 'not UTF-8'),
        'syntax': ((good + '\ndef broken(:\n').encode(), 'does not parse (line'),
        'null_bytes': (good.encode().replace(b'import triton\n', b'import triton\x00\n'), 'does not parse'),
        'deep_nesting': ((good + '\nY = ' + '(' * 1000 + '1' + ')' * 1000 + '\n').encode(), 'does not parse'),
        'deep_expression': ((good + '\nY = ' + '[' * 150 + ']' * 150 + '\n').encode(), 'nested more than'),
        'huge_int': ((good + '\nY = ' + '9' * 5000 + '\n').encode(), 'does not parse'),
        'empty': (b'', 'no @triton.jit function'),
        'no_kernel': (b'x = 1\n', 'no @triton.jit function'),
    }
    for name, (data, message) in cases.items():
        path = tmp_path / 'k.py'; path.write_bytes(data)
        with pytest.raises(KernelFileError) as e: GPUSafetyCheck(path)
        assert message in str(e.value), (name, str(e.value))
    with pytest.raises(KernelFileError, match='no such file'): GPUSafetyCheck(tmp_path / 'missing.py')
    with pytest.raises(TypeError): parse_kernel_source(12)

def test_utf8_bom_is_accepted(tmp_path):
    path = kernel_file(tmp_path, 'tl.store(out_ptr + offs, x)')
    plain = verdict(path)
    path.write_bytes(b'\xef\xbb\xbf' + path.read_bytes())
    with_bom = verdict(path)
    assert plain.verdict == with_bom.verdict == 'REJECT' and str(plain) == str(with_bom)

@pytest.mark.parametrize('launch_edit, message', [
    (('"grid": ["cdiv(N, BLOCK)"]', '"grid": ["-1"]'), 'at least one program'),
    (('"grid": ["cdiv(N, BLOCK)"]', '"grid": ["N - 2000"]'), 'at least one program'),
    (('"grid": ["cdiv(N, BLOCK)"]', '"grid": ["0"]'), 'at least one program'),
    (('"dims": {"N": 1000}', '"dims": {"N": -5}'), 'a size must be an integer'),
    (('"dims": {"N": 1000}', '"dims": {"N": 10**9}'), 'not a plain literal'),
    (('"name": "n", ', '"name": "m", '), 'do not match the kernel'),
    (('"grid": ["cdiv(N, BLOCK)"]', '"grid": ["' + 'N+' * 300 + 'N"]'), 'a size expression has at most 500'),
    (('"grid": ["cdiv(N, BLOCK)"]', '"grid": ["N // 0"]'), 'cannot be bound'),
])
def test_bad_launch_is_an_error_not_a_vacuous_accept(tmp_path, launch_edit, message):
    launch = LAUNCH.replace(*launch_edit)
    assert launch != LAUNCH
    path = kernel_file(tmp_path, GOOD, launch=launch)
    with pytest.raises(ValueError, match=message): GPUSafetyCheck(path).run()

# ---- bounded: the blow-ups of issue 17 finish within the budget ----

def _blowup(kind, count):
    if kind == 'ifelse':
        return ''.join(f'if tl.program_id(0) % {i + 2} == 0:\n    i = i + {i + 1}\nelse:\n    i = i - {i + 1}\n' for i in range(count))
    if kind == 'where': return ''.join(f'i = tl.where(i % {i + 2} == 0, i + 1, i - 1)\n' for i in range(count))
    return 'k = i\n' + 'k = k // 3 + k // 5\n' * count + 'i = k\n'

@pytest.mark.parametrize('kind, count', [('ifelse', 3), ('ifelse', 5), ('ifelse', 8), ('where', 3), ('where', 16),
                                         ('divs', 26), ('divs', 60)])
def test_blowups_finish_within_budget(tmp_path, kind, count):
    body = 'i = offs\n' + _blowup(kind, count) + 'tl.store(out_ptr + i, x, mask=(i >= 0) & (i < n))'
    t0 = cpu_seconds()
    r = verdict(kernel_file(tmp_path, body), time_budget=2.0)     # a short budget: the few-path kernels would use it all
    took = cpu_seconds() - t0
    assert took < 20 and r.verdict in ('UNKNOWN', 'REJECT'), (took, str(r))
    if kind != 'divs' and count > 3: assert any(u.construct == 'too many paths' for u in r.unsupported), str(r)
    if kind == 'divs': assert any(u.construct == 'index expression too large' for u in r.unsupported), str(r)

def test_deep_loop_nests_and_time_budget(tmp_path):
    body = ''.join('    ' * d + f'for j{d} in range(n):\n' for d in range(10)) + '    ' * 10 + 'tl.store(out_ptr + offs, x, mask=offs < n)'
    t0 = cpu_seconds(); r = verdict(kernel_file(tmp_path, body))
    assert cpu_seconds() - t0 < 20 and r.verdict == 'UNKNOWN' and any(u.kind == 'limit' for u in r.unsupported), str(r)
    m = build_model(read_kernel(kernel_file(tmp_path, 'i = offs\n' + 'i = i + 1\n' * 3000 + GOOD)), time_budget=0.01)
    assert not m.accesses and m.unsupported[-1].construct == 'time budget'
    with pytest.raises(ValueError, match='time_budget'): GPUSafetyCheck(kernel_file(tmp_path, GOOD), time_budget=-1)

def test_prover_budgets(tmp_path):
    "Seven lanes and a program id in one index (8! digit orders) and a guard of 61 conjuncts: bounded work, no false proof, no false defect."
    lanes = ' + '.join(f'tl.arange(0, 2){"[" + ", ".join(["None"] * k + [":"] + ["None"] * (6 - k)) + "]"} * {2 ** k}' for k in range(7))
    body = f'i = tl.program_id(0) * 128 + {lanes}\ntl.store(out_ptr + i, x, mask=(i < n)' + ''.join(f' & (i < n + {k})' for k in range(60)) + ')'
    t0 = cpu_seconds(); r = verdict(kernel_file(tmp_path, body))
    assert cpu_seconds() - t0 < 20, str(r)
    assert r.verdict in ('UNKNOWN', 'ACCEPT') and not r.defects, str(r)  # the kernel is correct: no false defect either
    race = [p for p in r.proofs if p.prop == 'race_free']
    assert race and not race[0].proved and any('more than the 6 whose orders' in s for s in race[0].steps), str(race)

def test_unknown_names_in_the_launch(tmp_path):
    path = kernel_file(tmp_path, GOOD, launch=LAUNCH.replace('"shape": ["N"], "role": "out"', '"shape": ["M"], "role": "out"'))
    with pytest.raises(ValueError, match=r"mentions \['M'\], which are neither dims"): GPUSafetyCheck(path)

def test_rebound_helper_is_not_inlined(tmp_path):
    "A @triton.jit helper bound twice: Python calls the second binding, so the call is UNKNOWN, not the first body inlined."
    helper = '@triton.jit\ndef put(p, v, m):\n    tl.store(p, v, mask=m)\n'
    path = kernel_file(tmp_path, 'put(out_ptr + offs, x, offs < n)', head=HEAD + helper, tail='\nput = None\n')
    with pytest.raises(KernelFileError, match="'put' is bound again"):
        verdict(path)
    path = kernel_file(tmp_path, 'put(out_ptr + offs, x, offs < n)', head=HEAD + helper)
    assert verdict(path).verdict == 'ACCEPT'

def test_executions_are_bounded():
    from litmus.tritonsource import executions, ModelLimit
    from litmus import corpus
    m = build_model(corpus.get('vadd'))
    with pytest.raises(ModelLimit, match='more than the 1000 enumerated'):
        list(executions(m, m.accesses[0], m.config_env({'N': 10**6}), limit=1000))

@pytest.mark.skipif(not triton_available(), reason='triton is not installed: the oracle is Triton\'s own front end')
def test_triton_emits_no_write_the_model_missed(tmp_path):
    """Oracle: Triton's TTIR for every hostile spelling it compiles. Each store or atomic Triton emits must be either
    an access of the model or at a line the model reports unsupported: no write is silently dropped."""
    from litmus.tritonsource import ttir, ttir_memory_ops
    bodies = [(b, h) for b, h, _ in SPELLINGS.values()] + [(f'tl.{n}({_args(n)})', HEAD) for n in _writing_tl_functions()] + \
             [(f'(out_ptr + offs + 100000).{n}(x)', HEAD) for n in _writing_methods()]
    compiled = 0
    for body, head in bodies:
        try:
            k = read_kernel(kernel_file(tmp_path, body, head=head))
        except KernelFileError:
            continue  # refused by the loader: never analysed, never run
        try: ops = ttir_memory_ops(ttir(k))
        except Exception: continue  # Triton rejects this spelling itself: nothing runs, nothing to compare
        compiled += 1
        model = build_model(k)
        seen = {a.line for a in model.accesses} | {l for u in model.unsupported for l in u.lines()}
        missed = [(kind, line) for kind, line in ops if kind in ('store', 'atomic') and line not in seen]
        assert not missed, (body, missed, model.unsupported)
    assert compiled >= 20, compiled  # the oracle really ran: 28 of the spellings compile with triton 3.9

# ---- decorators as shipped: read where they stand, never run (issue 26) ----

TUNED = '''
@triton.autotune(configs=[triton.Config({"BLOCK": b}, num_warps=4) for b in (64, 128)], key=["n"])
@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def k(x_ptr, out_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
'''
TUNED_LAUNCH = LAUNCH.replace('{"name": "BLOCK", "kind": "constexpr", "value": "128"}]',
                              '{"name": "BLOCK", "kind": "constexpr", "value": "128"},\n'
                              '                   {"name": "EVEN", "kind": "constexpr", "value": 0}]')

def test_tuned_kernel_is_read_in_any_decorator_order(tmp_path):
    "autotune, heuristics and jit stacked in any order: the kernel is read, its configs are data, nothing ran."
    lines = TUNED.strip().split('\n')
    autotune, heuristics, jit, body = lines[0], lines[1], lines[2], '\n'.join(lines[3:])
    for order in [(autotune, heuristics, jit), (heuristics, autotune, jit), (autotune, jit, heuristics), (jit, heuristics, autotune)]:
        path = tmp_path / 'k.py'
        path.write_text(HEAD + '\n'.join(order) + '\n' + body + '\n' + TUNED_LAUNCH)
        ks = read_kernel(path)
        assert [c.constexprs for c in ks.configs] == [{'BLOCK': 64}, {'BLOCK': 128}], order
        assert ks.decorations.heuristics == {'EVEN': 'n % BLOCK == 0'}
        assert verdict(path).verdict == 'ACCEPT'

HOSTILE_DECORATORS = {
    'heuristic_calls': ('@triton.heuristics({"EVEN": lambda args: open(MARK, "w")})', 'a heuristic calls `open`'),
    'heuristic_attribute': ('@triton.heuristics({"EVEN": lambda args: args["x_ptr"].dtype})', 'not an expression over args'),
    'heuristic_default': ('@triton.heuristics({"EVEN": lambda args, f=open(MARK, "w"): 1})', 'lambda args: expression'),
    'config_value_calls': ('@triton.autotune(configs=[triton.Config({"BLOCK": len(open(MARK, "w").name)})], key=[])',
                           'Attribute is not a form'),
    'configs_from_a_function': ('@triton.autotune(configs=make_configs(), key=["n"])', 'a call to `make_configs`'),
    'configs_from_a_rebound_name': ('@triton.autotune(configs=CONFIGS, key=["n"])', '`CONFIGS` is neither given'),
    'pre_hook_lambda': ('@triton.autotune(configs=[triton.Config({"BLOCK": 64})], key=[], pre_hook=lambda a: open(MARK, "w"))',
                        'Lambda is not a form litmus reads'),
    'config_option_code': ('@triton.autotune(configs=[triton.Config({"BLOCK": 64}, num_warps=__import__("os").getpid())], key=[])',
                           '`__import__` can rewrite'),
    'huge_comprehension': ('@triton.autotune(configs=[triton.Config({"BLOCK": b}) for a in range(4000) for b in range(4000)], key=[])',
                           'more than'),
    'power_bomb': ('@triton.autotune(configs=[triton.Config({"BLOCK": 10 ** 10 ** 10})], key=[])', 'a power outside'),
    'fake_autotune': ('@autotune(configs=[], key=[])', 'decorator @autotune'),
}

@pytest.mark.parametrize('case', sorted(HOSTILE_DECORATORS))
def test_hostile_decorator_arguments_are_refused_before_anything_runs(tmp_path, case):
    decorator, message = HOSTILE_DECORATORS[case]
    marker = tmp_path / 'ran'
    extra = (f'MARK = {str(marker)!r}\ndef make_configs():\n    open(MARK, "w")\n    return []\n'
             'CONFIGS = []\nCONFIGS = make_configs()\ndef autotune(**kw):\n    return lambda f: f\n')
    src = kernel_file(tmp_path, 'tl.store(out_ptr + offs, x, mask=offs < n)', head=HEAD + extra).read_text()
    path = tmp_path / 'k.py'
    path.write_text(src.replace('@triton.jit\n', decorator + '\n@triton.jit\n'))
    with pytest.raises(KernelFileError, match='line') as e:
        read_kernel(path)
    assert message in str(e.value), str(e.value)
    with pytest.raises(KernelFileError):
        GPUSafetyCheck(path)
    assert not marker.exists()

# ---- functions imported from Triton's math modules (issue 26) ----

def test_math_imports_are_read_and_rebinding_them_is_refused(tmp_path):
    "A libdevice function imported by name is Triton's; the same name rebound, or imported from elsewhere, is refused."
    good = HEAD + 'from triton.language.extra.libdevice import tanh\n'
    path = kernel_file(tmp_path, 'tl.store(out_ptr + offs, tanh(x), mask=offs < n)', head=good)
    assert verdict(path).verdict == 'ACCEPT'
    path = kernel_file(tmp_path, 'tl.store(out_ptr + offs + 100000, tanh(x))', head=good)
    assert verdict(path).verdict == 'REJECT'        # a store past the end through a math call is still found
    for head, why in [(good + 'tanh = print\n', 'bound 2 times'),
                      (good + 'from os import system as tanh\n', 'bound 2 times'),
                      (HEAD + 'from triton.runtime import driver as tanh\n', 'from triton.runtime import driver'),
                      (HEAD + 'from triton.language.extra.libdevice import _private as tanh\n', 'libdevice import _priva')]:
        path = kernel_file(tmp_path, 'tl.store(out_ptr + offs, tanh(x), mask=offs < n)', head=head)
        with pytest.raises(KernelFileError, match=why):
            verdict(path)

def test_math_import_in_a_try_is_one_function(tmp_path):
    "Liger-Kernel's try/except around two libdevice paths binds one Triton function; a try that falls back to a non-Triton name does not."
    shipped = HEAD + ('try:\n    from triton.language.extra.libdevice import rsqrt\nexcept ModuleNotFoundError:\n'
                      '    from triton.language.extra.cuda.libdevice import rsqrt\n')
    path = kernel_file(tmp_path, 'tl.store(out_ptr + offs, rsqrt(x * x + 1.0), mask=offs < n)', head=shipped)
    assert verdict(path).verdict == 'ACCEPT'
    mixed = HEAD + 'try:\n    from triton.language.extra.libdevice import rsqrt\nexcept ModuleNotFoundError:\n    from mylib import rsqrt\n'
    path = kernel_file(tmp_path, 'tl.store(out_ptr + offs, rsqrt(x), mask=offs < n)', head=mixed)
    with pytest.raises(KernelFileError, match='reads `rsqrt`'):
        verdict(path)
