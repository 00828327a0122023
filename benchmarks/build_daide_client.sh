#!/usr/bin/env bash
# Build David Norman's DumbBot (John Newbury's AiClient framework, release 8~3) from a
# checkout of https://github.com/diplomacy/daide-client at a named commit.
#
#   benchmarks/build_daide_client.sh [CHECKOUT_OR_MIRROR] [OUT_DIR]
#
# CHECKOUT_OR_MIRROR  a git clone (working tree or bare) of diplomacy/daide-client that holds
#                     the commit below, or a plain directory of its files at that commit (a
#                     GitHub zip/tarball); without it the script clones from GitHub into
#                     OUT_DIR/src (needs the network).
# OUT_DIR             where the build goes (default ${XDG_CACHE_HOME:-~/.cache}/detente/
#                     daide-client-<short commit>); the binaries end in OUT_DIR/bin.
#
# The daide-client licence reserves all rights: we build and run it, we never copy its code
# into this repository. Everything happens in a copy under OUT_DIR; the checkout given is
# only read.
#
# One change is made to that copy: the 2019 refactor of the repository flipped DumbBot's
# m_size_square_coefficient from 1 (AiClient 8~2~b, Norman's release) to -1, which values
# powers as -x^2 + 4x + 16 instead of x^2 + 4x + 16, plays a different game and can spin
# forever. The script restores 1 (a sed on bots/dumbbot/dumbbot.h) and checks that it took.
# Every other DumbBot constant of the commit equals 8~2~b's.
#
# Needs: git (unless given a plain directory), cmake >= 3.14, a C++14 compiler, make.
# On Debian/Ubuntu: apt-get install -y git cmake g++ make
set -euo pipefail

# master of diplomacy/daide-client, 2019-08-12, "Added copyright notice to the Albert bot."
COMMIT=02b36aec6cb5e3a0d2cfcc526f0bdccbf0598d8c
SHORT=${COMMIT:0:10}
UPSTREAM=https://github.com/diplomacy/daide-client.git
TARGETS=(dumbbot holdbot randbot)

say() { printf 'build_daide_client: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

case "${1:-}" in
  -h|--help)
    sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'
    exit 0 ;;
esac

SRC_ARG=${1:-}
OUT_DIR=${2:-${XDG_CACHE_HOME:-$HOME/.cache}/detente/daide-client-$SHORT}

missing=()
for tool in cmake make; do command -v "$tool" >/dev/null || missing+=("$tool"); done
if ! command -v "${CXX:-g++}" >/dev/null && ! command -v c++ >/dev/null; then missing+=(g++); fi
if ((${#missing[@]})); then
  die "missing: ${missing[*]}. On Debian/Ubuntu: sudo apt-get install -y cmake g++ make (cmake >= 3.14)"
fi

mkdir -p "$OUT_DIR"
OUT_DIR=$(cd "$OUT_DIR" && pwd)
SRC="$OUT_DIR/src"
BUILD="$OUT_DIR/build"
# AiClient joins its arguments with spaces and takes the program's name up to the first one.
[[ "$OUT_DIR" != *[[:space:]]* ]] || die "OUT_DIR must not contain spaces (AiClient misreads its command line)"
if [[ -n "$SRC_ARG" && -d "$SRC_ARG" && "$(cd "$SRC_ARG" && pwd)" == "$SRC"* ]]; then
  die "give an OUT_DIR outside the checkout: $SRC is rebuilt from scratch"
fi
rm -rf "$SRC" "$BUILD"
mkdir -p "$SRC"

# 1. The sources at $COMMIT, in $SRC.
if [[ -z "$SRC_ARG" ]]; then
  command -v git >/dev/null || die "git is needed to clone $UPSTREAM (or pass a checkout)"
  say "cloning $UPSTREAM"
  rm -rf "$SRC"
  git clone --quiet "$UPSTREAM" "$SRC"
  git -C "$SRC" -c advice.detachedHead=false checkout --quiet "$COMMIT"
elif [[ -d "$SRC_ARG" ]] && command -v git >/dev/null \
    && { git --git-dir="$SRC_ARG" rev-parse --git-dir >/dev/null 2>&1 \
         || git -C "$SRC_ARG" rev-parse --git-dir >/dev/null 2>&1; }; then
  if [[ "$(git --git-dir="$SRC_ARG" rev-parse --is-bare-repository 2>/dev/null)" == true ]]; then
    GIT=(git --git-dir="$SRC_ARG")            # a bare repository (a mirror)
  else
    GIT=(git -C "$SRC_ARG")                   # a working tree
  fi
  "${GIT[@]}" cat-file -e "$COMMIT^{commit}" 2>/dev/null \
    || die "$SRC_ARG does not hold commit $COMMIT (git fetch $UPSTREAM master there first)"
  say "extracting $COMMIT from $SRC_ARG"
  "${GIT[@]}" archive --format=tar "$COMMIT" | tar -x -C "$SRC"
elif [[ -f "$SRC_ARG/bots/dumbbot/dumbbot.h" && -f "$SRC_ARG/CMakeLists.txt" ]]; then
  say "warning: $SRC_ARG is not a git repository; cannot check that it is commit $COMMIT"
  UNVERIFIED=" (unverified: built from the plain directory $SRC_ARG)"
  cp -R "$SRC_ARG"/. "$SRC"/
  rm -rf "$SRC/.git"
else
  die "$SRC_ARG is neither a git clone of $UPSTREAM nor a directory of its files"
fi

# 2. Restore the AiClient 8~2~b constant (the only one the refactor changed).
HEADER="$SRC/bots/dumbbot/dumbbot.h"
sed -i 's/\(m_size_square_coefficient[[:space:]]*{\)[[:space:]]*-1[[:space:]]*}/\11}/' "$HEADER"
grep -q 'm_size_square_coefficient {1}' "$HEADER" \
  || die "could not set m_size_square_coefficient to 1 in $HEADER (not commit $COMMIT?)"
say "patched $HEADER: m_size_square_coefficient {1} (AiClient 8~2~b)"

# 3. Build. The project writes its binaries to <source>/bin, which at this commit holds
#    prebuilt binaries: remove them so only what is compiled here is used.
rm -rf "$SRC/bin"
JOBS=$( (command -v nproc >/dev/null && nproc) || echo 2)
start=$(date +%s)
cmake -S "$SRC" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >"$OUT_DIR/cmake.log" 2>&1 \
  || { cat "$OUT_DIR/cmake.log" >&2; die "cmake configure failed (log: $OUT_DIR/cmake.log)"; }
cmake --build "$BUILD" --target "${TARGETS[@]}" -j "$JOBS" >>"$OUT_DIR/cmake.log" 2>&1 \
  || { tail -n 40 "$OUT_DIR/cmake.log" >&2; die "build failed (log: $OUT_DIR/cmake.log)"; }
end=$(date +%s)

mkdir -p "$OUT_DIR/bin"
for target in "${TARGETS[@]}"; do
  [[ -x "$SRC/bin/$target" ]] || die "the build did not produce $SRC/bin/$target"
  cp "$SRC/bin/$target" "$OUT_DIR/bin/$target"
done
printf '%s%s\n' "$COMMIT" "${UNVERIFIED:-}" >"$OUT_DIR/bin/COMMIT"
say "built ${TARGETS[*]} at $COMMIT in $((end - start)) s (log: $OUT_DIR/cmake.log)"

cat >&2 <<EOF

DumbBot: $OUT_DIR/bin/dumbbot   (also holdbot, randbot beside it)
Run it against a detente server's DAIDE TCP port:
  $OUT_DIR/bin/dumbbot -i127.0.0.1 -p16713            # -sHOSTNAME instead of -iIP; -lN logs to ./biglog.txt
  $OUT_DIR/bin/dumbbot -i127.0.0.1 -p16713 -rFRA:1234 # NME ('FRA:DumbBot'); IAM (FRA) (1234) if the NME is refused
Point the tests and benchmarks at it:
  export DETENTE_DAIDE_CLIENT=$OUT_DIR/bin/dumbbot
EOF
printf '%s\n' "$OUT_DIR/bin/dumbbot"
