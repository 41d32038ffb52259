#!/bin/sh
# readme.sh: what the README shows a newcomer is what this build prints. Each
# code block line `$ build/graft check|run|opt FILE ...` whose FILE is in the
# tree is run from the top of the tree, and its output must equal the lines
# the README prints below it (up to the block's end or the next `$ ` line),
# run times (`in 0.34 s`) aside. The reference executor gives the same bits on
# every x86-64 CPU (README, "graft run"), so the checksums must match here too; a
# change that moves them (the elided-literal fill did once, and the README
# kept the old checksum) fails this test until the README is updated.
# Prints one line per command: PASS readme/<n> or FAIL readme/<n>: why.
. "$(dirname "$0")/lib/common.sh"
cd "$TOP" || exit 1

# Splits README.md's code blocks into $t/cmd.N (the command, without `$ `)
# and $t/want.N (the lines it shows).
awk -v dir="$t" '
    /^```/ { inblock = !inblock; cur = ""; next }
    !inblock { next }
    /^\$ build\/graft (check|run|opt) / {
        n++; cur = dir "/want." n
        printf "" > cur
        print substr($0, 3) > (dir "/cmd." n)
        close(dir "/cmd." n)
        next
    }
    /^\$ / { cur = ""; next }
    cur != "" { print >> cur }
' README.md

normalise() { sed -E 's/ in [0-9]+(\.[0-9]+)? s/ in T s/' "$1"; }

n=1
ran=0
while [ -f "$t/cmd.$n" ]; do
    cmd=$(cat "$t/cmd.$n")
    file=$(echo "$cmd" | awk '{ print $3 }')
    if [ -f "$file" ] && ! echo "$cmd" | grep -q '\['; then
        # shellcheck disable=SC2086
        set -- $cmd
        shift
        "$GRAFT" "$@" > "$t/got.$n" 2>&1
        if [ "$(normalise "$t/got.$n")" = "$(normalise "$t/want.$n")" ]; then
            pass "readme/$n"
        else
            fail "readme/$n" "'$cmd' printed other lines than README.md shows: $(normalise "$t/want.$n" > "$t/w"
                normalise "$t/got.$n" | diff - "$t/w" | head -n 6 | tr '\n' ' ')"
        fi
        ran=$((ran + 1))
    fi
    n=$((n + 1))
done
[ "$ran" -ge 3 ] && pass readme_commands_found ||
    fail readme_commands_found "only $ran runnable graft commands found in README.md's code blocks"
