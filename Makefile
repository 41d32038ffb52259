# graft: build, test, demo, deps, bench, install.
#
# Sources are found by directory: every .c under ir/ ops/ import/ engine/ dsl/
# codegen/ goes into libgraft; every .re (re2c) and .y (bison) there is
# generated into $(BUILD)/gen first; tools/*.c make the graft command;
# tests/unit/*.c are one test program each. Generated code never leaves
# $(BUILD).
#
# Two archives: $(BUILD)/libgraft.a (and libgraft.so), what `make install`
# ships, defines only the graft_* entry points of include/graft.h as global
# symbols (tools/exports.sh); $(BUILD)/libgraft_internal.a keeps every
# symbol, for the graft command, the unit tests and the benchmarks, which
# call internal functions.

BUILD   ?= build
PREFIX  ?= /usr/local
CC      ?= cc
LD      ?= ld
OBJCOPY ?= objcopy
SAN     ?=
OPT     ?= -O2

PACKAGES = gcc make pkg-config re2c bison clang libclang-rt-14-dev \
           libprotobuf-c-dev protobuf-c-compiler libonnx-dev libonnx-testdata python3-onnx \
           hipcc libamdhip64-dev graphviz

LIB_DIRS = ir ops import engine dsl codegen api
INCLUDES = -Iinclude $(addprefix -I,$(LIB_DIRS)) -I$(BUILD)/gen -Itests
WARN     = -Wall -Wextra -Werror -Wno-unused-function
# The plain build is a release build (NDEBUG: no self-checks in the driver's
# hot path); the sanitizer build is the debug build, so `make test` runs the
# suite both ways. SAN=thread is ThreadSanitizer (clang), for the library
# and the threads test only (check-thread).
DEBUGFLAGS = -DNDEBUG
ifeq ($(SAN),1)
SANFLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
OPT      = -O1
DEBUGFLAGS =
endif
ifeq ($(SAN),thread)
SANFLAGS = -fsanitize=thread -fno-omit-frame-pointer
OPT      = -O1
DEBUGFLAGS =
endif
# -ffp-contract=off: a*b+c is always two roundings, never one fused
# multiply-add, whatever the compiler or -march: the reference executor's
# results must not depend on the CPU (ops/gemm.c relies on it).
CFLAGS  ?=
CFLAGS  += -std=c11 -D_GNU_SOURCE -ffp-contract=off $(DEBUGFLAGS) $(OPT) -g -fPIC -fvisibility=hidden $(WARN) $(INCLUDES) $(SANFLAGS)
# Generated parsers are not held to our warning set.
GEN_CFLAGS = $(filter-out -Werror -Wextra,$(CFLAGS)) -Wno-unused -Wno-sign-compare
LDLIBS   = -lprotobuf-c -lm -ldl -lpthread
LDFLAGS += $(SANFLAGS)

RE_SRCS  = $(foreach d,$(LIB_DIRS),$(wildcard $(d)/*.re))
Y_SRCS   = $(foreach d,$(LIB_DIRS),$(wildcard $(d)/*.y))
C_SRCS   = $(foreach d,$(LIB_DIRS),$(wildcard $(d)/*.c))
ONNX_PROTO = /usr/include/onnx/onnx.proto

GEN_C    = $(patsubst %.re,$(BUILD)/gen/%.c,$(notdir $(RE_SRCS))) \
           $(patsubst %.y,$(BUILD)/gen/%.tab.c,$(notdir $(Y_SRCS))) \
           $(BUILD)/gen/onnx.pb-c.c
GEN_H    = $(patsubst %.y,$(BUILD)/gen/%.tab.h,$(notdir $(Y_SRCS))) $(BUILD)/gen/onnx.pb-c.h
LIB_OBJS = $(patsubst %.c,$(BUILD)/obj/%.o,$(C_SRCS)) \
           $(patsubst $(BUILD)/gen/%.c,$(BUILD)/obj/gen/%.o,$(GEN_C))
TOOL_OBJS = $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard tools/*.c))
# The library and the command are also held to unused static functions
# (dead code); WARN leaves them out for the tests' headers, which define
# static helpers that each test uses some of.
$(LIB_OBJS) $(TOOL_OBJS): WARN += -Wunused-function
TEST_SRCS = $(wildcard tests/unit/*.c)
TEST_BINS = $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(TEST_SRCS))

.PHONY: all deps test demo bench install clean check-unit check-thread fuzz check-rules known-rules check-emu
all: $(BUILD)/graft $(BUILD)/libgraft.a $(BUILD)/libgraft.so

deps:
	@sh tools/deps.sh $(PACKAGES)

vpath %.re $(LIB_DIRS)
vpath %.y $(LIB_DIRS)

$(BUILD)/gen/%.c: %.re
	@mkdir -p $(@D)
	@echo "  build $@"
	@re2c -W --no-generation-date -o $@ $<

$(BUILD)/gen/%.tab.c $(BUILD)/gen/%.tab.h: %.y
	@mkdir -p $(@D)
	@echo "  build $@"
	@bison -Wall --defines=$(BUILD)/gen/$*.tab.h -o $(BUILD)/gen/$*.tab.c $<

$(BUILD)/gen/onnx.pb-c.c $(BUILD)/gen/onnx.pb-c.h: $(ONNX_PROTO)
	@mkdir -p $(@D)
	@echo "  build $@"
	@cd $(dir $(ONNX_PROTO)) && protoc-c --c_out=$(abspath $(BUILD)/gen) $(notdir $(ONNX_PROTO))

$(BUILD)/obj/gen/%.o: $(BUILD)/gen/%.c $(GEN_H)
	@mkdir -p $(@D)
	@echo "  build $@"
	@$(CC) $(GEN_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/obj/%.o: %.c $(GEN_H)
	@mkdir -p $(@D)
	@echo "  build $@"
	@$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

# The public symbols, from include/graft.h's GRAFT_API declarations.
$(BUILD)/gen/exports.txt $(BUILD)/gen/exports.map: $(BUILD)/gen/exports.%: include/graft.h tools/exports.sh
	@mkdir -p $(@D)
	@echo "  build $@"
	@sh tools/exports.sh $(if $(filter txt,$*),list,map) include/graft.h > $@.tmp && mv $@.tmp $@

# Every symbol: for the graft command, tests, benchmarks.
$(BUILD)/libgraft_internal.a: $(LIB_OBJS)
	@rm -f $@
	@echo "  build $@"
	@ar rcs $@ $^

# One relocatable object of the whole library in which every global symbol
# but graft.h's entry points is made local: the shipped static library.
$(BUILD)/obj/libgraft_public.o: $(LIB_OBJS) $(BUILD)/gen/exports.txt
	@echo "  build $@"
	@$(LD) -r -o $@.tmp.o $(filter %.o,$^)
	@$(OBJCOPY) --keep-global-symbols=$(BUILD)/gen/exports.txt $@.tmp.o $@
	@rm -f $@.tmp.o

$(BUILD)/libgraft.a: $(BUILD)/obj/libgraft_public.o
	@rm -f $@
	@echo "  build $@"
	@ar rcs $@ $<

$(BUILD)/libgraft.so: $(LIB_OBJS) $(BUILD)/gen/exports.map
	@echo "  build $@"
	@$(CC) -shared -Wl,--version-script=$(BUILD)/gen/exports.map -o $@ $(filter %.o,$^) $(LDFLAGS) $(LDLIBS)

$(BUILD)/graft: $(TOOL_OBJS) $(BUILD)/libgraft_internal.a
	@echo "  build $@"
	@$(CC) -o $@ $(TOOL_OBJS) $(BUILD)/libgraft_internal.a $(LDFLAGS) $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c tests/check.h $(wildcard tests/unit/*.h) $(BUILD)/libgraft_internal.a
	@mkdir -p $(@D)
	@echo "  build $@"
	@$(CC) $(CFLAGS) -fvisibility=default -o $@ $< $(BUILD)/libgraft_internal.a $(LDFLAGS) $(LDLIBS)

# Tests of the library as a user sees it (tests/unit/test_public_*.c):
# graft.h alone on the include path, linked with the shipped libgraft.a.
PUBLIC_CFLAGS = $(filter-out -I%,$(CFLAGS)) -Iinclude -Itests
PUBLIC_TESTS  = $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(wildcard tests/unit/test_public_*.c))
$(PUBLIC_TESTS): $(BUILD)/tests/%: tests/unit/%.c tests/check.h $(BUILD)/libgraft.a
	@mkdir -p $(@D)
	@echo "  build $@"
	@$(CC) $(PUBLIC_CFLAGS) -fvisibility=default -o $@ $< $(BUILD)/libgraft.a $(LDFLAGS) $(LDLIBS)

# The same host program against the shipped libgraft.so.
$(BUILD)/tests/test_public_clash_shared: tests/unit/test_public_clash.c tests/check.h $(BUILD)/libgraft.so
	@mkdir -p $(@D)
	@echo "  build $@"
	@$(CC) $(PUBLIC_CFLAGS) -fvisibility=default -o $@ $< -L$(BUILD) -lgraft \
	    -Wl,-rpath,$(abspath $(BUILD)) $(LDFLAGS) $(LDLIBS)

check-unit: $(BUILD)/graft $(BUILD)/libgraft.a $(BUILD)/libgraft.so $(TEST_BINS) \
            $(BUILD)/tests/test_public_clash_shared

# Benchmark programs (bench/NAME.c), built like the unit tests; bench/run.sh
# asks for them.
$(BUILD)/bench/%: bench/%.c $(BUILD)/libgraft_internal.a
	@mkdir -p $(@D)
	@echo "  build $@"
	@$(CC) $(CFLAGS) -fvisibility=default -o $@ $< $(BUILD)/libgraft_internal.a $(LDFLAGS) $(LDLIBS)

# graft.h on 8 threads at once under ThreadSanitizer: only the library and
# tests/unit/test_public_threads.c are built (build/tsan), which keeps the
# cost of `make test` to one more library build; tests/run.sh runs the
# programs of a build directory that has no graft command and skips its
# command-line tests.
check-thread:
	@$(MAKE) --no-print-directory BUILD=build/tsan SAN=thread CC=clang build/tsan/tests/test_public_threads

# The whole suite, then again under AddressSanitizer + UBSan, and the
# threads test under ThreadSanitizer.
test: deps
	@$(MAKE) --no-print-directory all check-unit
	@$(MAKE) --no-print-directory BUILD=build/san SAN=1 CC=clang all check-unit
	@$(MAKE) --no-print-directory check-thread
	@sh tests/run.sh build build/san build/tsan

# The view normal form's property test (tests/unit/test_view_normal_form.c)
# on many more generated graphs than make test runs: 20000 cases of the tuned
# range, the known failures listed in tests/unit/view_normal_form.known
# allowed, then 100000 held-out cases (seeds from 1000000), where a rule loop,
# an invalid graph, changed values or a local normal-form violation fails and
# the soft failures are counted as a rate (see README).
# Then 20000 held-out cases each of larger graphs (16 ops) and of transpose-
# and reshape-only noise, where hard failures fail too.
CHECK_RULES_CASES ?= 20000
CHECK_RULES_HELD_OUT ?= 100000
check-rules: $(BUILD)/tests/test_view_normal_form
	@$(BUILD)/tests/test_view_normal_form --cases $(CHECK_RULES_CASES) --held-out $(CHECK_RULES_HELD_OUT) --report 3
	@$(BUILD)/tests/test_view_normal_form --cases 0 --held-out 20000 --ops 16 --report 3
	@$(BUILD)/tests/test_view_normal_form --cases 0 --held-out 20000 --views T --report 3
	@$(BUILD)/tests/test_view_normal_form --cases 0 --held-out 20000 --views TR --report 3

# Rewrites the list of known failures from a run over CHECK_RULES_CASES seeds.
known-rules: $(BUILD)/tests/test_view_normal_form
	@$(BUILD)/tests/test_view_normal_form --cases $(CHECK_RULES_CASES) --held-out 0 --report 0 \
	    --write-known tests/unit/view_normal_form.known > /dev/null; true

# The whole conformance set on the emu device (slow; see tests/check_emu.sh).
check-emu: all
	@sh tests/check_emu.sh $(BUILD)/graft

demo: deps all
	@sh examples/demo.sh $(BUILD)/graft

bench: deps all
	@sh bench/run.sh $(BUILD)

# libFuzzer targets (clang), e.g. make fuzz FUZZ=dump SECONDS=600
FUZZ ?= dump
SECONDS ?= 60
# The library is built with the sanitizer flags through SANFLAGS (setting
# CFLAGS on the command line would drop the include paths and warnings);
# UBSan findings abort so that libFuzzer sees them. tests/fuzz/FUZZ.dict is
# used when it exists.
FUZZ_SAN = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
fuzz:
	@$(MAKE) --no-print-directory BUILD=build/fuzz CC=clang OPT=-O1 \
	    SANFLAGS="-fsanitize=fuzzer-no-link $(FUZZ_SAN)" build/fuzz/libgraft_internal.a
	clang -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer $(FUZZ_SAN) $(INCLUDES:$(BUILD)/gen=build/fuzz/gen) \
	    -o build/fuzz/fuzz_$(FUZZ) tests/fuzz/fuzz_$(FUZZ).c build/fuzz/libgraft_internal.a $(LDLIBS)
	@mkdir -p build/fuzz/corpus_$(FUZZ)
	build/fuzz/fuzz_$(FUZZ) -max_total_time=$(SECONDS) -timeout=10 \
	    $(if $(wildcard tests/fuzz/$(FUZZ).dict),-dict=tests/fuzz/$(FUZZ).dict) \
	    build/fuzz/corpus_$(FUZZ) tests/fuzz/corpus_$(FUZZ)

install: all
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	    $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/graft/rules
	install -m 644 include/graft.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 $(BUILD)/libgraft.a $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(BUILD)/libgraft.so $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(BUILD)/graft $(DESTDIR)$(PREFIX)/bin/
	for f in rules/*.rules; do [ -e "$$f" ] && install -m 644 "$$f" $(DESTDIR)$(PREFIX)/share/graft/rules/; done; true
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|0.1.0|' tools/graft.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/graft.pc

clean:
	rm -rf build

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

# ---- rule sets (dsl/, rules/) ----
# The host rule compiler build/graftc is linked from the library's objects
# without any rule set (libgraft_core.a); it then compiles every
# rules/NAME.rules into $(BUILD)/gen/rules_NAME.c, which go into libgraft
# with rules_registry.c (builtin_rule_set) and embedded_headers.c (the IR
# headers `graft opt -r` needs to build a user's rules). Adding a rules file
# needs no other change.
EMBEDDED_HEADERS = include/graft.h ir/arena.h ir/attr.h ir/error.h ir/shape.h \
                   ir/op.h ir/ir.h engine/rewrite.h dsl/api.h
RULE_FILES  = $(sort $(wildcard rules/*.rules))
RULE_NAMES  = $(notdir $(RULE_FILES:.rules=))
RULE_SET_C  = $(patsubst %,$(BUILD)/gen/rules_%.c,$(RULE_NAMES))
DSL_CORE_OBJS = $(BUILD)/obj/gen/embedded_headers.o
RULE_OBJS   = $(patsubst $(BUILD)/gen/%.c,$(BUILD)/obj/gen/%.o,$(RULE_SET_C)) \
              $(BUILD)/obj/gen/rules_registry.o

$(BUILD)/gen/embedded_headers.c: $(EMBEDDED_HEADERS) tools/embed_headers.sh
	@mkdir -p $(@D)
	@echo "  build $@"
	@sh tools/embed_headers.sh $(EMBEDDED_HEADERS) > $@.tmp && mv $@.tmp $@

$(BUILD)/libgraft_core.a: $(LIB_OBJS) $(DSL_CORE_OBJS)
	@rm -f $@
	@echo "  build $@"
	@ar rcs $@ $^

$(BUILD)/graftc: $(BUILD)/obj/tools/graftc/graftc.o $(BUILD)/libgraft_core.a
	@echo "  build $@"
	@$(CC) -o $@ $^ $(LDFLAGS) $(LDLIBS)

$(RULE_SET_C): $(BUILD)/gen/rules_%.c: rules/%.rules $(BUILD)/graftc
	$(BUILD)/graftc $< $@.tmp $* && mv $@.tmp $@

# Rewritten only when the list of rule files changes.
$(BUILD)/gen/rules_list.txt: FORCE
	@mkdir -p $(@D)
	@echo "$(RULE_NAMES)" | cmp -s - $@ || echo "$(RULE_NAMES)" > $@

$(BUILD)/gen/rules_registry.c: $(BUILD)/gen/rules_list.txt tools/rules_registry.sh
	@echo "  build $@"
	@sh tools/rules_registry.sh $(RULE_NAMES) > $@.tmp && mv $@.tmp $@

$(BUILD)/libgraft_internal.a $(BUILD)/obj/libgraft_public.o $(BUILD)/libgraft.so: $(DSL_CORE_OBJS) $(RULE_OBJS)

.PHONY: FORCE
FORCE:
# bench/mlir_compare.c compares the fold rules with MLIR's canonicalizer.
PACKAGES += mlir-19-tools
# codegen/graft_kernel.h, the header every generated kernel includes, as a C
# string (cg_kernel_header) for hiprtc, the emu device and `graft compile`.
$(BUILD)/libgraft_internal.a $(BUILD)/obj/libgraft_public.o $(BUILD)/libgraft.so $(BUILD)/libgraft_core.a: $(BUILD)/obj/gen/graft_kernel_text.o
$(BUILD)/gen/graft_kernel_text.c: codegen/graft_kernel.h
	@mkdir -p $(@D)
	@echo "  build $@"
	@{ echo '/* Generated from codegen/graft_kernel.h. Do not edit. */'; \
	   echo 'const char cg_kernel_header[] ='; \
	   sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/    "/' -e 's/$$/\\n"/' $<; \
	   echo '    ;'; } > $@.tmp && mv $@.tmp $@
# Keep generated parsers and lexers: as intermediates make deleted them after
# each build, and every object (which depends on GEN_H) rebuilt next time.
.SECONDARY: $(GEN_C) $(GEN_H)
