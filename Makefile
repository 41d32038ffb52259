# graft: build, test, demo, deps, bench, install.
#
# Sources are found by directory: every .c under ir/ ops/ import/ engine/ dsl/
# codegen/ goes into libgraft; every .re (re2c) and .y (bison) there is
# generated into $(BUILD)/gen first; tools/*.c make the graft command;
# tests/unit/*.c are one test program each. Generated code never leaves
# $(BUILD).

BUILD   ?= build
PREFIX  ?= /usr/local
CC      ?= cc
SAN     ?=
OPT     ?= -O2

PACKAGES = gcc make pkg-config re2c bison clang libclang-rt-14-dev \
           libopenblas-dev libprotobuf-c-dev protobuf-c-compiler libonnx-dev libonnx-testdata python3-onnx \
           hipcc libamdhip64-dev

LIB_DIRS = ir ops import engine dsl codegen api
INCLUDES = -Iinclude $(addprefix -I,$(LIB_DIRS)) -I$(BUILD)/gen -Itests
WARN     = -Wall -Wextra -Werror -Wno-unused-function
# The plain build is a release build (NDEBUG: no self-checks in the driver's
# hot path); the sanitizer build is the debug build, so `make test` runs the
# suite both ways.
DEBUGFLAGS = -DNDEBUG
ifeq ($(SAN),1)
SANFLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
OPT      = -O1
DEBUGFLAGS =
endif
CFLAGS  ?=
CFLAGS  += -std=c11 -D_GNU_SOURCE $(DEBUGFLAGS) $(OPT) -g -fPIC -fvisibility=hidden $(WARN) $(INCLUDES) $(SANFLAGS)
# Generated parsers are not held to our warning set.
GEN_CFLAGS = $(filter-out -Werror -Wextra,$(CFLAGS)) -Wno-unused -Wno-sign-compare
LDLIBS   = -lopenblas -lprotobuf-c -lm -ldl -lpthread
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
TEST_SRCS = $(wildcard tests/unit/*.c)
TEST_BINS = $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(TEST_SRCS))

.PHONY: all deps test demo bench install clean check-unit fuzz
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

$(BUILD)/libgraft.a: $(LIB_OBJS)
	@rm -f $@
	@echo "  build $@"
	@ar rcs $@ $^

$(BUILD)/libgraft.so: $(LIB_OBJS)
	@echo "  build $@"
	@$(CC) -shared -o $@ $^ $(LDFLAGS) $(LDLIBS)

$(BUILD)/graft: $(TOOL_OBJS) $(BUILD)/libgraft.a
	@echo "  build $@"
	@$(CC) -o $@ $(TOOL_OBJS) $(BUILD)/libgraft.a $(LDFLAGS) $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c tests/check.h $(wildcard tests/unit/*.h) $(BUILD)/libgraft.a
	@mkdir -p $(@D)
	@echo "  build $@"
	@$(CC) $(CFLAGS) -fvisibility=default -o $@ $< $(BUILD)/libgraft.a $(LDFLAGS) $(LDLIBS)

check-unit: $(BUILD)/graft $(TEST_BINS)

# Benchmark programs (bench/NAME.c), built like the unit tests; bench/run.sh
# asks for them.
$(BUILD)/bench/%: bench/%.c $(BUILD)/libgraft.a
	@mkdir -p $(@D)
	@echo "  build $@"
	@$(CC) $(CFLAGS) -fvisibility=default -o $@ $< $(BUILD)/libgraft.a $(LDFLAGS) $(LDLIBS)

# The whole suite, then again under AddressSanitizer + UBSan.
test: deps
	@$(MAKE) --no-print-directory all check-unit
	@$(MAKE) --no-print-directory BUILD=build/san SAN=1 CC=clang all check-unit
	@sh tests/run.sh build build/san

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
	    SANFLAGS="-fsanitize=fuzzer-no-link $(FUZZ_SAN)" build/fuzz/libgraft.a
	clang -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer $(FUZZ_SAN) $(INCLUDES:$(BUILD)/gen=build/fuzz/gen) \
	    -o build/fuzz/fuzz_$(FUZZ) tests/fuzz/fuzz_$(FUZZ).c build/fuzz/libgraft.a $(LDLIBS)
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

$(BUILD)/libgraft.a $(BUILD)/libgraft.so: $(DSL_CORE_OBJS) $(RULE_OBJS)

.PHONY: FORCE
FORCE:
# bench/mlir_compare.c compares the fold rules with MLIR's canonicalizer.
PACKAGES += mlir-19-tools
# Keep generated parsers and lexers: as intermediates make deleted them after
# each build, and every object (which depends on GEN_H) rebuilt next time.
.SECONDARY: $(GEN_C) $(GEN_H)
