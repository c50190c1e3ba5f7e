# dpagg — PGXS build.  The C++17 core (src/core) and the C glue (src/pg) link into one module.
EXTENSION = dpagg
MODULE_big = dpagg
# The version is dpagg.control's default_version.  Its install script is generated (see "The SQL
# surface" below): DATA_built.  The kept install scripts of earlier releases and the upgrade
# scripts between them are in versions/ (docs/versions.md): DATA.
EXTVERSION := $(shell sed -n "s/^default_version = '\(.*\)'/\1/p" dpagg.control)
DATA_built = dpagg--$(EXTVERSION).sql
DATA = $(filter-out versions/dpagg--$(EXTVERSION).sql,$(wildcard versions/dpagg--*.sql))
# Installed beside pg_upgrade: carries the ledger over after it (docs/guides/budgets.md).
SCRIPTS = scripts/dpagg_carry_ledger
PGFILEDESC = "dpagg - differentially private aggregates"

CORE_SRCS := $(sort $(wildcard src/core/*.cpp src/core/*/*.cpp src/core/*/*/*.cpp))
GLUE_SRCS := $(sort $(wildcard src/pg/*.c src/pg/*/*.c))
CORE_OBJS := $(CORE_SRCS:.cpp=.o)
OBJS = $(CORE_OBJS) $(GLUE_SRCS:.c=.o)

PG_CPPFLAGS = -I$(srcdir)/src/core -I$(srcdir)/src/pg -DDPAGG_VERSION='"$(EXTVERSION)"'
PG_CXXFLAGS = -std=c++17 -fPIC -O2 -Wextra -Wno-unused-parameter -fno-fast-math
PG_CFLAGS = -fno-fast-math
SHLIB_LINK = -lstdc++ -lm -lcrypto

REGRESS = $(patsubst sql/%.sql,%,$(sort $(wildcard sql/*.sql)))
REGRESS_OPTS = --inputdir=. --outputdir=build/regress

# The generated C table of dpagg's aggregate functions (site.c includes it; see below).
PG_CPPFLAGS += -Ibuild/generated

# No LLVM bitcode for JIT inlining: it would need clang, and the hot paths are C anyway.
override with_llvm = no

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# Header dependencies (PGXS tracks none without --enable-depend): rebuild on any header change.
CORE_HDRS := $(wildcard src/core/*.h src/core/*/*.h src/core/*/*/*.h)
$(CORE_OBJS): $(CORE_HDRS)
$(GLUE_SRCS:.c=.o): $(CORE_HDRS) $(wildcard src/pg/*.h src/pg/*/*.h)

# ---- The SQL surface: one source, scripts/generate_sql.py ----
# From its table of aggregates (and the hand-written src/pg/aggregates/vector.sql, src/pg/labels/protect.sql and
# src/pg/ledger/budgets.sql) the
# generator writes the extension script and the C table by which site.c recognises dpagg's own
# aggregates, so the two cannot disagree.  Neither output is committed (.gitignore): a committed
# copy would be a second source that could go stale, so there is nothing to check for staleness.
# `make clean` removes both (the script as DATA_built, the header by clean-generated: EXTRA_CLEAN
# below is set after including PGXS, which tests it with ifdef, so it does not).
# Needs python3 (scripts/install-deps.sh).
SQL_GENERATOR := scripts/generate_sql.py
GENERATED_HDR := build/generated/dpagg_functions.h

dpagg--$(EXTVERSION).sql: $(SQL_GENERATOR) dpagg.control src/pg/aggregates/vector.sql src/pg/labels/protect.sql src/pg/ledger/budgets.sql
	python3 $(SQL_GENERATOR) --sql $@

# The frozen copy of the current version's install script (docs/versions.md): written only on
# request, when the surface of an unreleased version changes; scripts/check_versions.py compares
# it with the generated one.
.PHONY: freeze-sql
freeze-sql: dpagg--$(EXTVERSION).sql
	cp dpagg--$(EXTVERSION).sql versions/dpagg--$(EXTVERSION).sql

$(GENERATED_HDR): $(SQL_GENERATOR)
	python3 $(SQL_GENERATOR) --header $@

$(GLUE_SRCS:.c=.o): $(GENERATED_HDR)

# The library's version is compiled in (base/version.c).
src/pg/base/version.o: dpagg.control

.PHONY: clean-generated
clean: clean-generated
clean-generated:
	rm -rf build/generated

# ---- C++ unit tests of the core (GoogleTest; no PostgreSQL involved) ----
UNIT_SRCS := $(sort $(wildcard tests/unit/*.cpp tests/unit/oracles/*.cpp))
UNIT_OBJS := $(patsubst tests/unit/%.cpp,build/unit/%.o,$(UNIT_SRCS))
UNIT_BIN := build/unit_tests

build/unit/%.o: tests/unit/%.cpp $(CORE_HDRS) $(wildcard tests/unit/*.h tests/unit/oracles/*.h)
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 -O2 -Wall -Isrc/core -Itests/unit -c -o $@ $<

$(UNIT_BIN): $(UNIT_OBJS) $(CORE_OBJS)
	$(CXX) -o $@ $(UNIT_OBJS) $(CORE_OBJS) -lgtest -lgtest_main -pthread -lm -lcrypto

.PHONY: unit
unit: $(UNIT_BIN)
	$(UNIT_BIN)

installcheck: build/regress
build/regress:
	@mkdir -p build/regress

EXTRA_CLEAN = build

# ---- tools: calibration benchmark and paper report (appended; see tools/, scripts/) ----
# make bench-calibration : build build/bench_calibration and run scripts/bench_calibration.sh
#                          (cold table + repeated-call figure via SQL; writes docs/calibration_benchmark.md)
# make report            : scripts/report.sh (build/report -> docs/report/, then the heat maps)
TOOLS_CXXFLAGS = -std=c++17 -O2 -Wall -Wextra -Wno-unused-parameter -fno-fast-math -Isrc/core

build/bench_calibration: tools/bench_calibration.cpp $(CORE_OBJS) $(CORE_HDRS)
	@mkdir -p build
	$(CXX) $(TOOLS_CXXFLAGS) -o $@ tools/bench_calibration.cpp $(CORE_OBJS) -lm -lcrypto

build/report: tools/report.cpp $(CORE_OBJS) $(CORE_HDRS)
	@mkdir -p build
	$(CXX) $(TOOLS_CXXFLAGS) -o $@ tools/report.cpp $(CORE_OBJS) -lm -lcrypto

build/compare: tools/compare.cpp $(CORE_OBJS) $(CORE_HDRS)
	@mkdir -p build
	$(CXX) $(TOOLS_CXXFLAGS) -o $@ tools/compare.cpp $(CORE_OBJS) -lm -lcrypto

.PHONY: bench-calibration report compare
bench-calibration: build/bench_calibration
	scripts/bench_calibration.sh

report: build/report
	scripts/report.sh

# make compare : every mechanism on the paper grid (docs/report/mechanisms.{csv,md,png})
compare: build/compare
	scripts/compare.sh
# ---- end of tools targets ----
