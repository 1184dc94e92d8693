#!/usr/bin/env python3
"""Mutated Matrix Market inputs, checked against an independent reader (TAP output).

usage: fuzz_mm.py BIN WORKDIR NP CASES RHS-CASES SEED [SEED-FILE]...

Each case is a seed file (built in below, or given) changed by one to three random edits:
bytes, lines, numbers, banner words, values, indices.  The program runs on it (NP ranks)
with -o, and its outcome must be one of the documented ones:
  - exit 0: the solution file is there, and ||b - A x|| / ||b|| <= 1e-6 by this script's
    own reader and arithmetic (b = A*1, or the mutated --rhs file);
  - exit 1, 3 or 4: exactly one clcg-mpi message, naming the input file for exit 3, no
    solution file and no temporary file left beside it;
  - exit 4 ("not positive definite"): this script's dense Cholesky agrees, or the matrix's
    condition number (of D^-1/2 A D^-1/2) is past 1e8;
never a signal, a sanitizer report, a hang, or 'nan' printed as a result.  (The reader is this
script's own: tests/residual_check reads with the program's reader and could not see a misread.)  The TAP lines
count the cases per property; a failing case is printed as a diagnostic, with its text.
"""
import math
import os
import random
import subprocess
import sys

BIN, WORK, NP, CASES, RHS_CASES, SEED = sys.argv[1:7]
NP, CASES, RHS_CASES, SEED = int(NP), int(CASES), int(RHS_CASES), int(SEED)
EXTRA_SEEDS = sys.argv[7:]
MPIEXEC = os.environ.get("MPIEXEC", "mpiexec").split()
RNG = random.Random(SEED)
tap_n = 0


def ok(good, what):
    global tap_n
    tap_n += 1
    print(("ok" if good else "not ok") + f" {tap_n} - {what}", flush=True)


def diag(text):
    for line in str(text).splitlines():
        print("# " + line)


# ---------------------------------------------------------------- seeds
def coo(sym, n, ents, field="real", comment=True):
    out = [f"%%MatrixMarket matrix coordinate {field} {sym}"]
    if comment:
        out.append("% a comment line")
    out.append(f"{n} {n} {len(ents)}")
    for i, j, v in ents:
        out.append(f"{i} {j}" + ("" if field == "pattern" else f" {v}"))
    return ("\n".join(out) + "\n").encode()


def builtin_seeds():
    seeds = []
    # 2D Laplacian 5 x 5, lower triangle
    m = 5
    ents = []
    for a in range(m):
        for b in range(m):
            k = a * m + b + 1
            ents.append((k, k, 4))
            if b > 0:
                ents.append((k, k - 1, -1))
            if a > 0:
                ents.append((k, k - m, -1))
    seeds.append(coo("symmetric", m * m, ents))
    # tridiagonal with diagonals of very different sizes, general storage
    n = 12
    ents = []
    for i in range(1, n + 1):
        ents.append((i, i, 10.0 ** (i % 5) * 3))
        if i > 1:
            ents.append((i, i - 1, -0.5))
            ents.append((i - 1, i, -0.5))
    RNG.shuffle(ents)
    seeds.append(coo("general", n, ents))
    # integer field, symmetric
    seeds.append(coo("symmetric", 4, [(1, 1, 6), (2, 1, -2), (2, 2, 5), (3, 3, 7), (4, 3, 1), (4, 4, 3)],
                     field="integer"))
    # pattern: the identity
    seeds.append(coo("symmetric", 3, [(1, 1, 0), (2, 2, 0), (3, 3, 0)], field="pattern"))
    # dense array, general (column-major) and symmetric (lower triangle by columns)
    dense = [[4, 1, 0, 0.5], [1, 5, 2, 0], [0, 2, 6, 1], [0.5, 0, 1, 3]]
    seeds.append(("%%MatrixMarket matrix array real general\n4 4\n" +
                  "".join(f"{dense[r][c]}\n" for c in range(4) for r in range(4))).encode())
    seeds.append(("%%MatrixMarket matrix array real symmetric\n4 4\n" +
                  "".join(f"{dense[r][c]}\n" for c in range(4) for r in range(c, 4))).encode())
    return seeds


# ---------------------------------------------------------------- mutations
NUMS = ["-1", "0", "1", "2", "-0", "1e400", "-1e400", "nan", "inf", "-inf", "1e-400", "0x10",
        "99999999999999999999", "2147483647", "2147483648", "4294967296", "1.5", "1e3", "+3",
        "3.", ".5", "1e", "--1", "", "18446744073709551617", "9223372036854775807", "1e308",
        "4.9e-324", "2.2250738585072014e-308", "1,5", "\uff11", "0.0", "1e-300", "1e300"]
WORDS = {"matrix": ["matrx", "vector", "MATRIX"], "coordinate": ["array", "coord", "COORDINATE"],
         "array": ["coordinate"], "real": ["complex", "integer", "pattern", "double", "REAL"],
         "integer": ["real", "pattern"], "pattern": ["real", "integer"],
         "symmetric": ["general", "skew-symmetric", "hermitian", "symm"],
         "general": ["symmetric", "skew-symmetric", "hermitian"]}


def data_lines(lines):
    return [i for i, l in enumerate(lines) if l.strip() and not l.startswith(b"%")]


def mutate(data, values_only=False):
    lines = data.split(b"\n")
    k = RNG.choice([10, 11, 12]) if values_only else RNG.randrange(13)
    if k == 0 and data:
        i = RNG.randrange(len(data))
        return data[:i] + bytes([RNG.randrange(256)]) + data[i + 1:]
    if k == 1 and len(lines) > 1:
        del lines[RNG.randrange(len(lines))]
    elif k == 2:
        i = RNG.randrange(len(lines))
        lines.insert(i, lines[i])
    elif k == 3 and len(lines) > 2:
        i, j = RNG.randrange(len(lines)), RNG.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    elif k in (4, 5):
        cand = data_lines(lines)
        if not cand:
            return data
        i = cand[0] if RNG.random() < 0.3 else RNG.choice(cand)
        toks = lines[i].split()
        if toks:
            toks[RNG.randrange(len(toks))] = RNG.choice(NUMS).encode()
            lines[i] = b" ".join(toks)
    elif k == 6:
        head = lines[0].decode("latin-1")
        for w, alts in WORDS.items():
            if w in head and RNG.random() < 0.5:
                head = head.replace(w, RNG.choice(alts), 1)
        lines[0] = head.encode("latin-1")
    elif k == 7 and data:
        return data[:RNG.randrange(len(data))]
    elif k == 8:
        i = RNG.randrange(len(lines))
        lines[i] += RNG.choice([b" 7", b" x", b"\t", b"\r", b" % c", b"\x00", b"\x0b", b" 1 2"])
    elif k == 9:
        lines.insert(RNG.randrange(len(lines)),
                     RNG.choice([b"", b"%", b"% c", b"   ", b"\r", b"%%MatrixMarket matrix coordinate real general"]))
    elif k in (10, 11):
        # one value times a wild factor (the entries' last field)
        cand = data_lines(lines)[1:]
        if not cand:
            return data
        i = RNG.choice(cand)
        toks = lines[i].split()
        try:
            f = RNG.choice([1e-200, 1e200, -1, 0, 1e-320, 1e160, 1 + 1e-15, 3, -0.5])
            v = float(toks[-1]) * f
            toks[-1] = (str(int(v)) if b"." not in toks[-1] and abs(v) < 1e15 and v == int(v) else repr(v)).encode()
        except (ValueError, OverflowError):
            pass
        lines[i] = b" ".join(toks)
    elif k == 12:
        # an entry's row and column swapped (an upper-triangle entry of a symmetric file)
        cand = [i for i in data_lines(lines)[1:] if len(lines[i].split()) >= 2]
        if cand:
            i = RNG.choice(cand)
            toks = lines[i].split()
            toks[0], toks[1] = toks[1], toks[0]
            lines[i] = b" ".join(toks)
    return b"\n".join(lines)


# ---------------------------------------------------------------- independent reader
def num(t, field):
    if field == "integer":
        return float(int(t))
    try:
        return float(t)
    except ValueError:
        if t.lower().lstrip("+-").startswith("0x"):   # strtod's hexadecimal form
            return float.fromhex(t)
        raise


def read_mm(data, want_vector=False):
    """(n, {(i, j): value}) for a matrix, or (n, [b]) for an n x 1 right-hand side."""
    lines = data.decode("latin-1").replace("\r\n", "\n").split("\n")
    head = lines[0].split()
    if len(head) != 5 or head[0] != "%%MatrixMarket" or head[1].lower() != "matrix":
        raise ValueError("banner")
    fmt, field, sym = (w.lower() for w in head[2:])
    field = "real" if field == "double" else field   # the program reads 'double' as 'real'
    if field not in ("real", "integer", "pattern") or sym not in ("general", "symmetric"):
        raise ValueError("banner words")
    body = [l for l in lines[1:] if l.strip() and not l.startswith("%")]
    size = [int(t) for t in body[0].split()]
    if max(size[:2]) > 100000:   # no seed is near this: keep this reader's lists small
        raise ValueError("too large for this reader")
    a = {}
    if fmt == "coordinate":
        m, n, nnz = size
        if len(body) - 1 != nnz:
            raise ValueError("count")
        for l in body[1:]:
            t = l.split()
            if len(t) != (2 if field == "pattern" else 3):
                raise ValueError("fields")
            i, j = int(t[0]), int(t[1])
            v = 1.0 if field == "pattern" else num(t[2], field)
            if not (1 <= i <= m and 1 <= j <= n) or not math.isfinite(v):
                raise ValueError("entry")
            a[(i, j)] = a.get((i, j), 0.0) + v
            if sym == "symmetric" and i != j:
                a[(j, i)] = a.get((j, i), 0.0) + v   # one triangle, mirrored
    elif fmt == "array" and field != "pattern":
        m, n = size
        vals = [num(l.strip(), field) for l in body[1:]]
        if len(vals) != (n * (2 * m - n + 1) // 2 if sym == "symmetric" else m * n):
            raise ValueError("count")
        pos = [(r, c) for c in range(n) for r in range(c if sym == "symmetric" else 0, m)]
        for (r, c), v in zip(pos, vals):
            if v:
                a[(r + 1, c + 1)] = v
                if sym == "symmetric":
                    a[(c + 1, r + 1)] = v
    else:
        raise ValueError("format")
    if want_vector:
        if n != 1:
            raise ValueError("not n x 1")
        b = [0.0] * m
        for (i, _), v in a.items():
            b[i - 1] += v
        return m, b
    if m != n:
        raise ValueError("not square")
    return n, a


def read_x(path):
    body = [l for l in open(path).read().split("\n")[1:] if l.strip() and not l.startswith("%")]
    return [float(v) for v in body[1:]]


def rel_residual(n, a, b, x):
    """||b - A x|| / ||b||, with A, x and b scaled by powers of two first (exact), so that
    neither b's nor A x's squares overflow"""
    def top(vals):
        return max((math.frexp(v)[1] for v in vals if v), default=0)
    eb, ea, ex = top(b), top(a.values()), top(x)
    ax = [0.0] * n
    for (i, j), v in a.items():
        ax[i - 1] += math.ldexp(v, -ea) * math.ldexp(x[j - 1], -ex)
    try:
        r = [math.ldexp(bi, -eb) - math.ldexp(axi, ea + ex - eb) for bi, axi in zip(b, ax)]
    except OverflowError:
        return math.inf
    nb = math.sqrt(sum(math.ldexp(v, -eb) * math.ldexp(v, -eb) for v in b))
    return math.sqrt(sum(v * v for v in r)) / nb if nb else (0.0 if not any(x) else math.inf)


def dense_verdict(n, a):
    """'not SPD', or the condition number of D^-1/2 A D^-1/2 (dense Cholesky, n <= 200)."""
    if any(a.get((j, i), 0.0) != v for (i, j), v in a.items()):
        return "unsymmetric"
    d = [a.get((i, i), 0.0) for i in range(1, n + 1)]
    if min(d) <= 0:
        return "not SPD"
    s = [[a.get((i + 1, j + 1), 0.0) / (math.sqrt(d[i]) * math.sqrt(d[j])) for j in range(n)] for i in range(n)]
    low = [row[:] for row in s]
    for k in range(n):
        p = low[k][k] - sum(low[k][q] * low[k][q] for q in range(k))
        if not p > 0:
            return "not SPD"
        low[k][k] = math.sqrt(p)
        for i in range(k + 1, n):
            low[i][k] = (low[i][k] - sum(low[i][q] * low[k][q] for q in range(k))) / low[k][k]

    def solve(v):
        y = v[:]
        for i in range(n):
            y[i] = (y[i] - sum(low[i][q] * y[q] for q in range(i))) / low[i][i]
        for i in reversed(range(n)):
            y[i] = (y[i] - sum(low[q][i] * y[q] for q in range(i + 1, n))) / low[i][i]
        return y

    def power(op):
        v = [1.0 + 0.1 * math.sin(i) for i in range(n)]
        v = [t / math.sqrt(sum(u * u for u in v)) for t in v]
        for _ in range(60):
            w = op(v)
            nw = math.sqrt(sum(t * t for t in w))   # v has norm 1: the eigenvalue's estimate
            if not 0 < nw < math.inf:
                break
            v = [t / nw for t in w]
        return nw

    lmax = power(lambda v: [sum(s[i][j] * v[j] for j in range(n)) for i in range(n)])
    inv = power(solve)
    if not 0 < inv < math.inf or not 0 < lmax < math.inf:
        return "not estimated"
    return lmax * inv


# ---------------------------------------------------------------- runs
def run(matrix, outf, rhs=None):
    cmd = ([] if NP == 1 else MPIEXEC + ["-n", str(NP)]) + [BIN, matrix, "-o", outf]
    if rhs:
        cmd += ["--rhs", rhs]
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=300, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return None, "", "(no end within 300 s)"
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def outcome(rc, out, err, outf, named):
    """the faults of one run that do not depend on the input's meaning"""
    faults = []
    if rc is None:
        faults.append("hang")
    elif rc < 0 or rc > 5 or rc in (2, 5):
        faults.append(f"exit {rc}")
    if "Sanitizer" in err or "runtime error:" in err:
        faults.append("sanitizer report")
    if rc == 0 and "nan" in out.lower():
        faults.append("'nan' printed")
    if rc not in (0, None):
        msgs = [l for l in err.splitlines() if l.startswith("clcg-mpi: ") and not l.startswith("clcg-mpi: warning:")]
        if len(msgs) != 1:
            faults.append(f"{len(msgs)} messages")
        elif rc == 3 and named not in msgs[0]:
            faults.append("message does not name the file")
        if os.path.exists(outf):
            faults.append("solution written on failure")
    if any(".tmp." in f for f in os.listdir(WORK)):
        faults.append("temporary file left")
    return faults


def main():
    seeds = builtin_seeds() + [open(f, "rb").read() for f in EXTRA_SEEDS]
    case, outf = os.path.join(WORK, "case.mtx"), os.path.join(WORK, "x.mtx")
    kinds = {"outcome": [], "answer": [], "verdict": []}
    counts = {}
    checked = {"answer": 0, "verdict": 0}
    lap = os.path.join(WORK, "lap.mtx")   # the matrix of the --rhs cases: the 25-row Laplacian
    open(lap, "wb").write(seeds[0])
    lap_n, lap_a = read_mm(seeds[0])

    def record(kind, idx, data, what, err):
        kinds[kind].append(idx)
        if len(kinds[kind]) <= 5:
            diag(f"case {idx} ({kind}): {what}; stderr: {err.strip()[:300]}")
            diag("input: " + repr(data[:400]))

    for idx in range(CASES + RHS_CASES):
        for f in os.listdir(WORK):
            if f.startswith("x.mtx"):
                os.unlink(os.path.join(WORK, f))
        rhs_case = idx >= CASES
        if rhs_case:
            # a mutated right-hand side for the 25-row Laplacian
            n0 = lap_n
            vals = [RNG.uniform(-1, 1) for _ in range(n0)]
            data = (f"%%MatrixMarket matrix array real general\n{n0} 1\n" + "".join(f"{v!r}\n" for v in vals)).encode()
            if RNG.random() < 0.5:
                data = (f"%%MatrixMarket matrix coordinate real general\n{n0} 1 3\n3 1 1.5\n9 1 -2\n25 1 0.25\n").encode()
        else:
            data = RNG.choice(seeds)
        values_only = not rhs_case and RNG.random() < 0.3
        for _ in range(RNG.choice([1, 1, 2, 3])):
            data = mutate(data, values_only)
        open(case, "wb").write(data)
        rc, out, err = run(lap, outf, rhs=case) if rhs_case else run(case, outf)
        counts[rc] = counts.get(rc, 0) + 1
        faults = outcome(rc, out, err, outf, "case.mtx")
        if faults:
            record("outcome", idx, data, ", ".join(faults), err)
            continue
        if rc not in (0, 4):
            continue
        try:
            if rhs_case:
                n, a = lap_n, lap_a
                nb, b = read_mm(data, want_vector=True)
                reader_ok = nb == n
            else:
                n, a = read_mm(data)
                b = [0.0] * n
                for (i, _), v in a.items():
                    b[i - 1] += v
                reader_ok = True
        except (ValueError, IndexError, OverflowError):
            reader_ok = False
        if rc == 0:
            checked["answer"] += 1
            if not reader_ok:
                record("answer", idx, data, "solved a file this script's reader refuses", err)
                continue
            if not os.path.exists(outf):
                record("answer", idx, data, "exit 0 without the solution file", err)
                continue
            x = read_x(outf)
            r = rel_residual(n, a, b, x) if len(x) == n else math.inf
            if not r <= 1e-6:
                record("answer", idx, data, f"||b-Ax||/||b|| = {r:.3e} ({len(x)} of {n} values)", err)
        elif rc == 4 and reader_ok and not rhs_case and n <= 200:
            checked["verdict"] += 1
            v = dense_verdict(n, a)
            if not isinstance(v, str) and v < 1e8:
                record("verdict", idx, data, f"refused as not positive definite, but SPD with condition {v:.3e}", err)
    total = CASES + RHS_CASES
    diag(f"seed {SEED}, {NP} rank(s): exit statuses {dict(sorted(counts.items(), key=lambda t: str(t[0])))}")
    ok(not kinds["outcome"], f"{total} mutated inputs on {NP} rank(s): each exit 0, 1, 3 or 4, one message naming "
       f"the file, no output or temporary file on failure, no signal, hang or sanitizer report "
       f"({len(kinds['outcome'])} failed)")
    ok(not kinds["answer"] and checked["answer"] > 0,
       f"{checked['answer']} solved: ||b-Ax||/||b|| <= 1e-6 by an independent reader ({len(kinds['answer'])} failed)")
    ok(not kinds["verdict"], f"{checked['verdict']} refused as not positive definite: none is an SPD matrix of "
       f"condition below 1e8 by dense Cholesky ({len(kinds['verdict'])} failed)")
    print(f"1..{tap_n}")


main()
