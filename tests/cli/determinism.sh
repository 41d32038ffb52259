#!/bin/sh
# determinism.sh: the reference executor gives the same bits whatever the CPU
# looks like (issue 7 section 1). A graph of double elementwise functions,
# softmax, a double dot and a float convolution runs once as it is, then
# with glibc told the CPU has no AVX2 and no FMA (so libm would pick its
# other exp/log/pow/sin/... variants, which round differently in the last
# bit), with graft's matrix product forced to its baseline variant, and with
# OpenBLAS told it runs on a Haswell (nothing may use it any more); every
# output file (--outputs: the values as stored, doubles included) must be
# byte-identical to the first run's.
#
# Environment (from tests/run.sh): GRAFT. Prints "PASS name" or "FAIL name:
# why" per test.
GRAFT=${GRAFT:-build/graft}
. "$(dirname "$0")/lib/common.sh"

cat > "$t/det.txt" <<'EOF'
module: "main"
x = @param:x -> double_type, {64, 1024}, {1024, 1}
k = @literal{40} -> double_type, {1}, {0}
kb = multibroadcast[out_lens={64, 1024}](k)
s = mul(x, kb)
a = abs(s)
e = exp(s)
l = log(a)
t = tanh(x)
si = sin(s)
co = cos(s)
ta = tan(s)
as = asin(x)
ac = acos(x)
at = atan(s)
sh = sinh(s)
ch = cosh(s)
er = erf(x)
po = pow(a, x)
sg = sigmoid(s)
sm = softmax[axis=1](s)
w = @literal{ ... } -> double_type, {1024, 40}, {40, 1}
d = dot(s, w)
xf = @param:xf -> float_type, {2, 8, 19, 23}, {3496, 437, 23, 1}
wf = @literal{ ... } -> float_type, {37, 8, 3, 3}, {72, 9, 3, 1}
cf = convolution[padding={1, 1, 1, 1},stride={1, 1},dilation={1, 1},group=1,padding_mode=0](xf, wf)
r = @return(e, l, t, si, co, ta, as, ac, at, sh, ch, er, po, sg, sm, d, cf)
EOF

if ! "$GRAFT" run "$t/det.txt" --seed 3 --outputs "$t/base" >"$t/out" 2>"$t/err"; then
    fail determinism_base "graft run failed: $(head -c 300 "$t/err" | tr '\n' ' ')"
    exit 0
fi
outputs=$(ls "$t/base" | wc -l)
if [ "$outputs" -eq 17 ]; then pass determinism_base; else
    fail determinism_base "$outputs output files, expected 17"; fi

# same_as_base NAME VAR=VALUE...: runs the graph with the environment given
# and compares every output file with the base run's.
same_as_base() {
    name=$1
    shift
    rm -rf "$t/run"
    if ! env "$@" "$GRAFT" run "$t/det.txt" --seed 3 --outputs "$t/run" >"$t/out" 2>"$t/err"; then
        fail "$name" "graft run failed with $*: $(head -c 300 "$t/err" | tr '\n' ' ')"
        return
    fi
    differ=""
    for f in "$t/base"/*; do
        cmp -s "$f" "$t/run/$(basename "$f")" || differ="$differ $(basename "$f")"
    done
    if [ -z "$differ" ]; then pass "$name"; else
        fail "$name" "with $*, these outputs differ from the default run's:$differ"; fi
}

# (glibc 2.33 and later spell the capabilities AVX2 and FMA; older ones
# AVX2_Usable and FMA_Usable)
same_as_base determinism_no_fma_libm GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA
same_as_base determinism_gemm_generic GRAFT_GEMM=generic
same_as_base determinism_openblas_haswell OPENBLAS_CORETYPE=Haswell
