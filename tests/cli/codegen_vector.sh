#!/bin/sh
# codegen_vector.sh: the vector and tile pointwise kernels as the GPU gets
# them. graft compile writes a graph whose pointwise kernels take the vector
# path (half, 8 lanes) and the tile path (a transposed operand); hiprtc
# compiles them for gfx90a and gfx1030, and llvm-objdump's disassembly of
# the code objects must show 16-byte global loads and stores
# (global_load_dwordx4, global_store_dwordx4) in the vector kernel and LDS
# traffic between barriers (ds_write, s_barrier, ds_read) in the tile
# kernel. Both then run on emu at wave 64 and 32 against the reference.
# Without hiprtc or llvm-objdump the ISA checks print PASS lines naming why
# they were skipped.
. "$(dirname "$0")/lib/common.sh"

cat > "$t/g.txt" <<'G'
module: "main"
x = @param:x -> half_type, {16, 96}, {96, 1}
b = @param:b -> half_type, {96}, {1}
y = @param:y -> float_type, {40, 70}, {70, 1}
z = @param:z -> float_type, {70, 40}, {40, 1}
@4 = multibroadcast[out_lens={16, 96}](b)
@5 = add(x,@4)
@6 = transpose[permutation={1, 0}](z)
@7 = mul(y,@6)
@8 = @return(@5, @7)
G

if "$GRAFT" compile "$t/g.txt" -o "$t/dir" -p none >"$t/out.txt" 2>"$t/err.txt"; then
    compiled=yes
elif grep -q "cannot load libamdhip64\|hiprtc entry points" "$t/err.txt"; then
    compiled=nohiprtc
    "$GRAFT" compile "$t/g.txt" -o "$t/dir" -p none --no-code-objects >"$t/out.txt" 2>"$t/err.txt"
else
    compiled=no
fi
[ "$compiled" = no ] && fail vector_compile "$(head -c 400 "$t/err.txt" | tr '\n' ' ')"
has vector_kind "$t/out.txt" '^  add_k0 +pointwise_vec8 '
has tile_kind "$t/out.txt" '^  mul_k1 +pointwise_tile '
has plan_kinds "$t/dir/plan.json" '"kind": "pointwise_vec8"'

objdump=$(command -v llvm-objdump-15 || command -v llvm-objdump)
if [ "$compiled" != yes ]; then
    pass "vector_isa (skipped: no hiprtc)"
elif [ -z "$objdump" ]; then
    pass "vector_isa (skipped: no llvm-objdump)"
else
    for arch in gfx90a gfx1030; do
        "$objdump" -d --mcpu=$arch "$t/dir/$arch/add_k0.co" >"$t/add.s" 2>&1
        "$objdump" -d --mcpu=$arch "$t/dir/$arch/mul_k1.co" >"$t/mul.s" 2>&1
        has vector_isa_load_$arch "$t/add.s" 'global_load_dwordx4'
        has vector_isa_store_$arch "$t/add.s" 'global_store_dwordx4'
        has tile_isa_lds_write_$arch "$t/mul.s" 'ds_write_b32'
        has tile_isa_barrier_$arch "$t/mul.s" 's_barrier'
        has tile_isa_lds_read_$arch "$t/mul.s" 'ds_read_b32'
    done
fi

for wave in 64 32; do
    if "$GRAFT" run "$t/g.txt" --device emu --wave $wave --compare "$t/g.txt" >"$t/run.txt" 2>&1; then
        n=$(grep -c ' ok$' "$t/run.txt")
        [ "$n" = 2 ] && pass emu_wave$wave || fail emu_wave$wave "$(tr '\n' ' ' < "$t/run.txt")"
    else
        fail emu_wave$wave "$(head -c 400 "$t/run.txt" | tr '\n' ' ')"
    fi
done
