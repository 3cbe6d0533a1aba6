#!/usr/bin/env bash
# tests/tools/test_pvsites.sh: tools/pvsites against small ELF images with a
# hand-made .pv_sites section (the layout of pv/site.h), built with gcc into
# build/tests/pvsites/: the plain table, --json, --disasm (which runs
# tools/pvemit, i.e. the kernel's own patcher, for every platform), and
# each error it reports.
# Ends with "N passed, N failed"; exits 1 if any check failed.
set -uo pipefail

# shellcheck source=tests/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
out=$build/tests/pvsites
pvsites=$root/tools/pvsites
mkdir -p "$out"

# Until the top-level Makefile includes tools/tools.mk, pvsites builds
# pvemit through the fragment alone.
grep -q 'tools/tools.mk' "$root/Makefile" || export PVSITES_MAKEFILE=tools/tools.mk


contains() { grep -qF -- "$2" <<<"$1"; }

# ---- the fixture ----

cat >"$out/fixture.c" <<'EOF'
/* Sites as the kernel's wrappers lay them out: call *slot(%rip), NOPs to
 * the site length, one 16-byte descriptor in .pv_sites. Each site has a
 * global label site_<op> (site_cold for the one in .fixture_cold) so the
 * test can compare pvsites with nm. */
#include <stdint.h>

#include "pv/site.h"

void *fixture_table[PV_OP_COUNT];

#ifdef NO_SITES
#define SITE(label, op, len, clob)
#else
#define SITE(label, op, len, clob)                                                   \
    __asm__ volatile(".globl " label "\n" label ":\n\t"                              \
                     "call *fixture_table+8*%c[o](%%rip)\n\t"                        \
                     ".fill %c[l] - 6, 1, 0x90\n\t"                                  \
                     ".pushsection .pv_sites, \"a\"\n\t"                             \
                     ".balign 8\n\t"                                                 \
                     ".quad " label "\n\t"                                           \
                     ".short %c[o]\n\t"                                              \
                     ".byte %c[l]\n\t"                                               \
                     ".byte %c[c]\n\t"                                               \
                     ".long 0\n\t"                                                   \
                     ".popsection"                                                   \
                     :                                                               \
                     : [o] "i"(op), [l] "i"(len), [c] "i"(clob)                      \
                     : "rax", "memory")
#endif

__attribute__((noinline)) void fixture_irq(void)
{
    SITE("site_irq_disable", PV_OP_irq_disable, PV_OP_LEN(irq_disable), 0);
    SITE("site_irq_enable", PV_OP_irq_enable, 6, 0);
    SITE("site_save_fl", PV_OP_save_fl, PV_OP_LEN(save_fl), PV_CLOBBER_RAX);
    SITE("site_restore_fl", PV_OP_restore_fl, PV_OP_LEN(restore_fl), 0);
    SITE("site_safe_halt", PV_OP_safe_halt, 6, 0);
}

__attribute__((noinline)) void fixture_mmu(void)
{
    SITE("site_read_cr3", PV_OP_read_cr3, 6, PV_CLOBBER_RAX);
    SITE("site_write_cr3", PV_OP_write_cr3, 6, 0);
    SITE("site_flush_tlb_one", PV_OP_flush_tlb_one, 6, 0);
    SITE("site_set_pte", PV_OP_set_pte, 6, 0);
    SITE("site_ptep_modify_prot_start", PV_OP_ptep_modify_prot_start, 6, PV_CLOBBER_RAX);
    SITE("site_ptep_modify_prot_commit", PV_OP_ptep_modify_prot_commit, 6, 0);
    SITE("site_enter_lazy_mmu", PV_OP_enter_lazy_mmu, 6, 0);
    SITE("site_leave_lazy_mmu", PV_OP_leave_lazy_mmu, 6, 0);
}

__attribute__((noinline, section(".fixture_cold"))) void fixture_cold(void)
{
    SITE("site_cold", PV_OP_irq_enable, 6, 0);
}

#ifdef WITH_XEN
/* What pvsites takes the Xen context from. */
__attribute__((aligned(4096))) uint8_t xen_shared_info_page[4096];
__asm__(".text\n"
        ".globl xen_pv_irq_enable\n.type xen_pv_irq_enable, @function\n"
        "xen_pv_irq_enable: ret\n.size xen_pv_irq_enable, 1\n"
        ".globl xen_pv_save_fl\n.type xen_pv_save_fl, @function\n"
        "xen_pv_save_fl: ret\n.size xen_pv_save_fl, 1\n");
#endif

#ifdef BAD_SIZE
__asm__(".pushsection .pv_sites, \"a\"\n.byte 0\n.popsection");
#endif

void _start(void)
{
    fixture_irq();
    fixture_mmu();
    fixture_cold();
    for (;;)
        ;
}
EOF

build() {
    gcc -std=gnu11 -O2 -Wall -Wextra -Werror -ffreestanding -nostdlib -static -no-pie -fno-pie \
        -fcf-protection=none -Wl,-z,noexecstack -I"$root" "$@"
}
build -DWITH_XEN -o "$out/fixture" "$out/fixture.c" || { echo "cannot build the fixture"; exit 1; }
build -o "$out/fixture-noxen" "$out/fixture.c" || exit 1
build -DBAD_SIZE -o "$out/fixture-badsize" "$out/fixture.c" || exit 1
# A paravirt image with no sites yet: the linker drops the empty .pv_sites
# but linker.ld's bounds remain.
build -DNO_SITES -Wl,--defsym=__pv_sites_start=0x400000 -Wl,--defsym=__pv_sites_end=0x400000 \
    -o "$out/fixture-empty" "$out/fixture.c" || exit 1
objcopy --remove-section=.pv_sites "$out/fixture" "$out/fixture-nosites" || exit 1
cp "$out/fixture" "$out/fixture-elf32"
# e_ident[EI_CLASS] = ELFCLASS32
printf '\x01' | dd of="$out/fixture-elf32" bs=1 seek=4 conv=notrunc status=none
echo "not an image" >"$out/not-elf"
# Cut inside the section header table (e_shoff, at offset 0x28).
shoff=$(od -An -tu8 -j40 -N8 "$out/fixture" | tr -d ' ')
head -c $((shoff + 100)) "$out/fixture" >"$out/fixture-truncated"

fixture=$out/fixture
sym() { nm "$1" | awk -v s="$2" '$3 == s { print "0x" $1 }' | sed 's/^0x0*/0x/'; }
hex() { printf '0x%x' "$1"; }

# ---- plain table ----

plain=$("$pvsites" "$fixture")
check_cmd "plain exits 0" test $? -eq 0
check_cmd "plain header" test "$(head -1 <<<"$plain" | tr -s ' ')" = \
    "ADDR OP LEN CLOBBERS FUNCTION SECTION"
check_cmd "plain count line" test "$(tail -1 <<<"$plain")" = "14 sites"
check_cmd "plain has 14 rows" test "$(sed '1d;$d' <<<"$plain" | wc -l)" -eq 14

# One row per site: address, op, length, clobbers, function+offset, section.
expect_row() {
    local label=$1 op=$2 len=$3 clob=$4 func=$5 section=$6
    local addr faddr
    addr=$(sym "$fixture" "$label")
    faddr=$(sym "$fixture" "$func")
    local want
    want="$addr $op $len $clob $func+$(hex $((addr - faddr))) $section"
    check_cmd "row $label" contains "$(tr -s ' ' <<<"$plain")" "$want"
}
expect_row site_irq_disable irq_disable 9 - fixture_irq .text
expect_row site_save_fl save_fl 11 rax fixture_irq .text
expect_row site_restore_fl restore_fl 9 - fixture_irq .text
expect_row site_read_cr3 read_cr3 6 rax fixture_mmu .text
expect_row site_ptep_modify_prot_start ptep_modify_prot_start 6 rax fixture_mmu .text
expect_row site_leave_lazy_mmu leave_lazy_mmu 6 - fixture_mmu .text
expect_row site_cold irq_enable 6 - fixture_cold .fixture_cold

# ---- --json ----

json=$("$pvsites" "$fixture" --json)
check_cmd "json exits 0" test $? -eq 0
nm "$fixture" >"$out/fixture.nm"
printf '%s\n' "$json" >"$out/fixture.json"
check_cmd "json matches nm" python3 - "$out/fixture.nm" "$out/fixture.json" <<'EOF'
import json, sys
syms = {}
for line in open(sys.argv[1]):
    parts = line.split()
    if len(parts) == 3:
        syms[parts[2]] = int(parts[0], 16)
sites = json.load(open(sys.argv[2]))
assert len(sites) == 14, len(sites)
by_addr = {s["addr"]: s for s in sites}
for name, value in syms.items():
    if not name.startswith("site_"):
        continue
    s = by_addr[value]
    assert set(s) == {"addr", "op", "len", "clobbers", "function", "offset", "section"}, s
    assert s["offset"] == value - syms[s["function"]], s
    if name != "site_cold":
        assert s["op"] == name[len("site_"):], s
want = {"irq_disable": 9, "save_fl": 11, "restore_fl": 9}
for s in sites:
    assert s["len"] == want.get(s["op"], 6), s
    assert s["clobbers"] == (["rax"] if s["op"] in ("save_fl", "read_cr3",
                             "ptep_modify_prot_start") else []), s
EOF

# ---- --disasm ----

disasm=$("$pvsites" "$fixture" --disasm 2>"$out/disasm.err")
check_cmd "disasm exits 0" test $? -eq 0
[ -s "$out/disasm.err" ] && cat "$out/disasm.err"
check_cmd "disasm count line" test "$(tail -1 <<<"$disasm")" = "14 sites"

# The lines --disasm prints under the row of the site at label.
site_block() {
    awk -v a="$(sym "$fixture" "$1")" '$1 == a { on = 1; next } /^0x|^[0-9]+ sites/ { on = 0 } on' \
        <<<"$disasm"
}

block=$(site_block site_irq_disable)
check_cmd "as linked, the indirect call" contains "$block" "call   *"
check_cmd "the as-linked row: its label and bytes" bash -c '[[ "$1" =~ as\ linked\ +ff\ 15 ]]' _ "$block"
check_cmd "native irq_disable bytes" contains "$block" \
    "native: native form               0f 1f 84 00 00 00 00 00 fa"
check_cmd "native irq_disable cli" contains "$block" "cli"
check_cmd "xen-pv irq_disable movb" contains "$block" "xen-pv: xen form                  65 c6 04 25"
check_cmd "xen-pv irq_disable stores to this vCPU's mask" contains "$block" "%gs:0x41"
check_cmd "xen-pvh irq_disable: the native form's bytes" contains "$block" \
    "xen-pvh: native form              0f 1f 84 00 00 00 00 00 fa"
check_cmd "irq_disable: one form line per platform" test \
    "$(grep -c '^    [a-z-]*: [a-z]* form' <<<"$block")" -eq 3

block=$(site_block site_restore_fl)
check_cmd "restore_fl push/popf" contains "$block" \
    "native: native form (push/popf)   0f 1f 80 00 00 00 00 57 9d"
check_cmd "restore_fl condsti" contains "$block" \
    "native: native form (condsti)     f7 c7 00 02 00 00 74 01 fb"
check_cmd "restore_fl xen-pv kept" contains "$block" \
    "xen-pv: xen form                  keeps the indirect call (no xen_pv_restore_fl in image)"
check_cmd "restore_fl xen-pvh push/popf" contains "$block" \
    "xen-pvh: native form (push/popf)  0f 1f 80 00 00 00 00 57 9d"
check_cmd "restore_fl xen-pvh condsti" contains "$block" \
    "xen-pvh: native form (condsti)    f7 c7 00 02 00 00 74 01 fb"

block=$(site_block site_irq_enable)
target=$(sym "$fixture" xen_pv_irq_enable)
check_cmd "xen irq_enable direct call" contains "$block" "call   $target <xen_pv_irq_enable>"
check_cmd "native irq_enable sti" contains "$block" "native: native form               0f 1f 44 00 00 fb"

block=$(site_block site_save_fl)
check_cmd "xen save_fl reads this vCPU's mask inline" contains "$block" \
    "65 80 3c 25 41 00 00 00 01 19 c0"

block=$(site_block site_enter_lazy_mmu)
check_cmd "lazy mmu natively one NOP" contains "$block" "native: native form               66 0f 1f 44 00 00"
check_cmd "lazy mmu nopw" contains "$block" "nopw"

block=$(site_block site_ptep_modify_prot_start)
check_cmd "ptep_modify_prot_start xchg" contains "$block" "xchg   %rax,(%rdi)"

noxen=$("$pvsites" "$out/fixture-noxen" --disasm 2>&1)
check_cmd "no xen symbols: said so" contains "$noxen" "xen-pv: context symbols not in image"
check_cmd "no xen symbols: no guessed bytes" bash -c '! grep -q "movb" <<<"$1"' _ "$noxen"
check_cmd "no xen symbols: xen-pvh, which needs none, still shown" contains "$noxen" \
    "xen-pvh: native form              0f 1f 84 00 00 00 00 00 fa"

json_disasm=$("$pvsites" "$fixture" --json --disasm)
check_cmd "json --disasm has backends" python3 -c '
import json, sys
sites = json.load(sys.stdin)
s = next(s for s in sites if s["op"] == "irq_disable")
b = s["backends"]
assert list(b) == ["native", "xen-pv", "xen-pvh"], list(b)
assert b["xen-pv"]["bytes"].startswith("65 c6 04 25"), s
assert b["xen-pv"]["form"] == "xen" and b["xen-pv"]["platform"] == "xen-pv", s
assert b["native"]["result"] == "inline", s
assert b["xen-pvh"]["form"] == "native" and b["xen-pvh"]["label"] == "xen-pvh: native form", s
assert b["xen-pvh"]["bytes"] == b["native"]["bytes"], s
s = next(s for s in sites if s["op"] == "restore_fl")
assert list(s["backends"]) == ["native (push/popf)", "native (condsti)", "xen-pv",
                               "xen-pvh (push/popf)", "xen-pvh (condsti)"], list(s["backends"])
assert s["backends"]["xen-pvh (condsti)"]["variant"] == "condsti", s
' <<<"$json_disasm"

empty=$("$pvsites" "$out/fixture-empty")
check_cmd "no sites: exits 0" test $? -eq 0
check_cmd "no sites: header and count only" test "$(sed -n '2,$p' <<<"$empty")" = "0 sites"
check_cmd "no sites: json" test "$("$pvsites" "$out/fixture-empty" --json)" = "[]"

# ---- errors: one clear line, non-zero exit ----

expect_error() {
    local name=$1 want=$2
    shift 2
    local err status
    err=$("$pvsites" "$@" 2>&1 >/dev/null)
    status=$?
    check_cmd "$name: exit status" test $status -ne 0
    check_cmd "$name: message" contains "$err" "$want"
    check_cmd "$name: one line" test "$(wc -l <<<"$err")" -eq 1
}
expect_error "missing file" "No such file or directory" "$out/does-not-exist"
expect_error "not an ELF" "not an ELF" "$out/not-elf"
expect_error "ELF32" "not an ELF64" "$out/fixture-elf32"
expect_error "truncated" "truncated or corrupt ELF file" "$out/fixture-truncated"
expect_error "no .pv_sites" "built without paravirt" "$out/fixture-nosites"
expect_error "bad size" "not a multiple of the 16-byte descriptor" "$out/fixture-badsize"

summary
