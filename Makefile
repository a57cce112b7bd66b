# nbody-lab: the front door. `make all` reproduces everything the machine can run, `make test`
# verifies the code. Both install what they need on a fresh Debian 12 machine.
#
#   make all [PROFILE=smoke|default|full]   experiments -> results/ -> figures/ -> paper/paper.pdf
#                                           (committed results that are current are reused; FORCE=1
#                                           measures everything again)
#   make all PROFILE=gpu-smoke              a CUDA GPU: every GPU experiment at tiny sizes, in minutes,
#                                           into $(BUILD)/gpu-smoke/results/ (results/ untouched)
#   make test                               build, then the Catch2/CTest suite
#   make sanitize-test                      the bad-input corpus and the readers' fuzzers under ASan/UBSan
#   make gpu-check [GPU_CHECK_QUICK=1]      an NVIDIA GPU: its tests and compute-sanitizer on every CUDA engine
#   make plan [PROFILE=...]                 what `make all` would do here with each experiment, and why
#   make build | experiments | figures | paper | clean | help   (figures: plots only, from results/)
#   make run-E01_two_body_convergence       one experiment (any experiments/<ID>.toml)
#   make run-E07_cpu_engines MACHINE=NAME   one experiment on another class of machine, into
#                                           results/machines/NAME/ (the figures draw it beside this one's)
#   make reference-dualsphysics DUALSPHYSICS_GIT=DIR   DualSPHysics from its source, for E19's reference run
#   make reference-ryoanji RYOANJI_GIT=DIR  Ryoanji from its source (nvcc), for E17's reference run

PROFILE ?= default
BUILD   ?= build
JOBS    ?= $(shell nproc)
VENV    := .venv
PY      := $(VENV)/bin/python
NBODY   := $(BUILD)/nbody
RUNNER  := $(PY) experiments/runner.py

.PHONY: all build test sanitize-test gpu-check experiments plan figures paper clean help deps reference-dualsphysics \
        reference-ryoanji

ifeq ($(PROFILE),gpu-smoke)
all: experiments
	@echo "make all: done (profile gpu-smoke); the results are in $(GPU_SMOKE_RESULTS)/"
else
all: paper
	@echo "make all: done (profile $(PROFILE)); the paper is paper/paper.pdf"
endif

# The header comment above, up to its first blank line.
help:
	@sed -n '/^$$/q;p' Makefile

# System packages (apt), once per build folder or when the list changes.
deps: $(BUILD)/.deps.stamp
$(BUILD)/.deps.stamp: tools/install-deps.sh
	tools/install-deps.sh
	@mkdir -p $(BUILD) && touch $@

# Python for the runner and the plots, pinned, in a virtual environment.
$(VENV)/.stamp: requirements.txt | deps
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	@touch $@

# CUDA_ARCHITECTURES=90: the GPU architectures to compile for (default: this machine's GPU, or
# the common ones from sm_75 to sm_90: cmake/gpu.cmake).
$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(if $(CUDA_ARCHITECTURES),-DCMAKE_CUDA_ARCHITECTURES="$(CUDA_ARCHITECTURES)")

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

test: build $(VENV)/.stamp
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# The bad-input corpus (tests/bad_input/corpus.txt) against nbody built with AddressSanitizer and
# UBSan in its own folder, then each reader's fuzzer (tests/fuzz) for FUZZ_SECONDS from the files
# nbody writes and the regression corpus: clang (libFuzzer), without CUDA (both run host code),
# unoptimised (it builds in a fraction of the time). Any sanitizer report fails the target; a
# fuzzer's crash leaves its input in $(SANITIZE_BUILD)/fuzz/crash-* (tests/fuzz/README.md).
SANITIZE_BUILD ?= build-sanitize
FUZZ_SECONDS ?= 10
SANITIZER_OPTIONS := ASAN_OPTIONS=halt_on_error=1:detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/fuzz/lsan.supp
sanitize-test: | deps
	@grep -qs '^CMAKE_CXX_COMPILER:.*clang' $(SANITIZE_BUILD)/CMakeCache.txt || rm -rf $(SANITIZE_BUILD)  # made by another compiler
	cmake -S . -B $(SANITIZE_BUILD) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_COMPILER=clang++ -DNBODY_SANITIZE=ON \
	  -DNBODY_FUZZ=ON -DNBODY_ENABLE_CUDA=OFF -DBUILD_TESTING=OFF
	cmake --build $(SANITIZE_BUILD) -j $(JOBS) --target nbody fuzzers
	$(SANITIZER_OPTIONS) python3 tests/runner/test_bad_input.py $(SANITIZE_BUILD)/nbody --jobs $(JOBS)
	$(SANITIZER_OPTIONS) tests/fuzz/fuzz.sh $(SANITIZE_BUILD) $(FUZZ_SECONDS)

# On a machine with an NVIDIA GPU and a CUDA toolkit: nbody_tests on the GPU tags, then
# compute-sanitizer memcheck, racecheck and synccheck on every CUDA engine of the registry in every
# precision (two values of each launch knob, the clamp off and on), the device-resident steps, the
# tree engines, the cell-list builders, DPD, SPH and potentials on the GPU. Everything goes to
# $(BUILD)/gpu-check/ (summary.txt); without a CUDA device or compute-sanitizer it refuses in one
# line (exit 2). GPU_CHECK_STEPS=tests|sanitizer|..., GPU_CHECK_QUICK=1 (a quick subset) and the
# rest: tests/gpu/check.sh --help.
gpu-check: build
	tests/gpu/check.sh $(BUILD)

# Every experiments/E*.toml, then every figures/E*.py, which also write the paper's tables and
# numbers (paper/generated/). An experiment runs only when its committed results are out of date
# (another profile, experiment file or solver source: runner.py --help); finished points are
# reused, so an interrupted run resumes. FORCE=1 runs everything again (results of a larger
# profile stay).
# PROFILE=gpu-smoke: the experiments that need CUDA, at the smoke profile's sizes, into a folder of
# their own (no figures: those draw on every experiment's results).
RUNNER_FLAGS := $(if $(FORCE),--force)
GPU_SMOKE_RESULTS := $(BUILD)/gpu-smoke/results
# MACHINE=NAME: results of another class of machine (the GPU host's 16 cores), in a folder of their
# own that the runner decides on as on results/ and the figures and provenance table read beside it.
ifneq ($(MACHINE),)
RUNNER_ENV := NBODYLAB_RESULTS=$(CURDIR)/results/machines/$(MACHINE)
endif
ifeq ($(PROFILE),gpu-smoke)
RUNNER_ENV := NBODYLAB_RESULTS=$(CURDIR)/$(GPU_SMOKE_RESULTS)
SCOPE := --profile smoke --requiring cuda
else
SCOPE := --profile $(PROFILE)
endif
experiments: build $(VENV)/.stamp
	$(RUNNER_ENV) $(RUNNER) all $(SCOPE) --nbody $(NBODY) $(RUNNER_FLAGS)

plan: build $(VENV)/.stamp
	$(RUNNER_ENV) $(RUNNER) plan $(SCOPE) --nbody $(NBODY) $(RUNNER_FLAGS)

run-%: build $(VENV)/.stamp
	$(RUNNER_ENV) $(RUNNER) run $* --profile $(PROFILE) --nbody $(NBODY) $(RUNNER_FLAGS)
	$(if $(MACHINE),,$(RUNNER) figures $*)

figures: $(VENV)/.stamp
	$(RUNNER) figures

# The paper is dated by the checkout's last commit (its PDF metadata too), and told the profile.
# Then its commands are checked against nbody, and every figure and table must sit on the page of
# its first citation or the next (a smoke-profile draft, whose text is shorter, and a FORCE=1
# measurement, whose new numbers may move a float, only report it).
paper: experiments
	cd paper && SOURCE_DATE_EPOCH=$$(git log -1 --format=%ct 2>/dev/null || date +%s) FORCE_SOURCE_DATE=1 \
	  latexmk -pdf -interaction=nonstopmode -halt-on-error -quiet \
	  -usepretex='\def\nbodyprofile{$(PROFILE)}' paper.tex
	python3 tools/check_paper_commands.py $(NBODY) paper/paper.pdf
	$(if $(or $(filter smoke,$(PROFILE)),$(FORCE)),-)python3 tools/check_paper_floats.py paper/paper.pdf paper/paper.aux

# DualSPHysics built from its own source into build/reference/dualsphysics/, what the reference
# experiment E19_sph_dam_break_dualsphysics needs (requires = "reference:dualsphysics"): from
# DUALSPHYSICS_GIT, a git directory (at DUALSPHYSICS_COMMIT, default its HEAD) or a source tree.
# Nothing is downloaded (tools/reference/dualsphysics/build.sh).
reference-dualsphysics:
	@test -n "$(DUALSPHYSICS_GIT)" || { echo "make reference-dualsphysics: set DUALSPHYSICS_GIT=DIR, a DualSPHysics git directory or source tree" >&2; exit 2; }
	JOBS=$(JOBS) tools/reference/dualsphysics/build.sh "$(DUALSPHYSICS_GIT)" $(DUALSPHYSICS_COMMIT)

# Ryoanji built from its own source by nvcc into build/reference/ryoanji/, with the driver that
# times it on nbody's bodies: what the reference experiment E17_ryoanji needs (requires =
# "reference:ryoanji"); from RYOANJI_GIT, a git directory (at RYOANJI_COMMIT, default its HEAD),
# for CUDA_ARCH (default 90). Nothing is downloaded (tools/reference/ryoanji/build.sh).
reference-ryoanji:
	@test -n "$(RYOANJI_GIT)" || { echo "make reference-ryoanji: set RYOANJI_GIT=DIR, a Ryoanji git directory" >&2; exit 2; }
	JOBS=$(JOBS) tools/reference/ryoanji/build.sh "$(RYOANJI_GIT)" $(RYOANJI_COMMIT)

clean:
	rm -rf $(BUILD) $(SANITIZE_BUILD) results/.points
	cd paper && latexmk -C -quiet paper.tex || true
