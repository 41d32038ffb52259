# bench/rule_copies.awk: writes each rule of a rule file twice, for the
# matching row of bench/run.sh: as it is, and a copy named NAME_unmatched whose
# pattern can never match run.sh's graph (its last <pointwise> leaf becomes
# erf(...), else a <unary> or <binary> root becomes erf or pow, ops that graph
# does not use); a rule with neither is not copied. Closes with "# copies: N".
function flush(   pat, n, copy) {
    if (name == "") return
    printf "%s", body
    pat = patline
    copy = ""
    if (match(pat, /<pointwise>([^(]|$)/)) {
        # the last <pointwise> that has no operands
        n = 0
        while (match(substr(pat, n + 1), /<pointwise>([^(]|$)/)) { last = n + RSTART; n = n + RSTART + 10 }
        copy = substr(pat, 1, last - 1) "erf(unmatched_operand)" substr(pat, last + 11)
    } else if (match(pat, /= <unary>\(/)) {
        copy = substr(pat, 1, RSTART + 1) "erf" substr(pat, RSTART + 9)
    } else if (match(pat, /= <binary>\(/)) {
        copy = substr(pat, 1, RSTART + 1) "pow" substr(pat, RSTART + 10)
    }
    if (copy != "") {
        copies++
        b = body
        sub(/rule [A-Za-z0-9_]+/, "rule " name "_unmatched", b)
        idx = index(b, patline)
        printf "%s", substr(b, 1, idx - 1) copy substr(b, idx + length(patline))
    }
    name = ""; body = ""; patline = ""
}
/^rule / { flush(); name = $2; body = $0 "\n"; next }
name != "" && /^[ \t]*$/ { flush(); print; next }
name != "" && /^#/ { flush(); print; next }
name != "" { body = body $0 "\n"; if (patline == "") patline = $0; next }
{ print }
END { flush(); print "# copies: " copies + 0 }
