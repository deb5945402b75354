#!/usr/bin/env bash
# install-llama.sh: lay out a prebuilt llama.cpp (headers, shared libraries,
# llama.pc, a BERT vocabulary) for chitta's llamacpp subpackage, without
# building anything from source.
#
# Both halves come from the same node-llama-cpp release on npm:
#   node-llama-cpp@3.21.1            package/llama/gitRelease.bundle (llama.cpp source: headers, vocab)
#   @node-llama-cpp/linux-x64@3.21.1 package/bins/linux-x64/*.so      (prebuilt CPU libraries)
#
# Usage:  eval "$(scripts/install-llama.sh)"
#
# stdout carries only `export NAME=value` lines (PKG_CONFIG_PATH,
# LD_LIBRARY_PATH, CHITTA_LLAMA_DIR, CHITTA_LLAMA_VOCAB); progress goes to
# stderr. The layout lives in ${CHITTA_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/chitta}/llama-3.21.1
# and a second run is a no-op once the marker file .installed exists.
# Needs node/npm, git, tar, readelf (binutils) and pkg-config; pkg-config is
# installed with apt-get when missing and running as root.
set -euo pipefail

VERSION=3.21.1
CACHE_ROOT="${CHITTA_CACHE_DIR:-${XDG_CACHE_HOME:-${HOME:?set HOME or CHITTA_CACHE_DIR}/.cache}/chitta}"
PREFIX="$CACHE_ROOT/llama-$VERSION"
MARKER="$PREFIX/.installed"

log() { printf 'install-llama: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# prepend DIR LIST: DIR followed by LIST without DIR (so re-running eval in
# the same shell does not grow the variable).
prepend() {
	local dir="$1" list="$2" out="$1" item
	local IFS=:
	for item in $list; do
		[ -n "$item" ] && [ "$item" != "$dir" ] && out="$out:$item"
	done
	printf '%s' "$out"
}

print_env() {
	printf 'export PKG_CONFIG_PATH=%q\n' "$(prepend "$PREFIX/lib/pkgconfig" "${PKG_CONFIG_PATH:-}")"
	printf 'export LD_LIBRARY_PATH=%q\n' "$(prepend "$PREFIX/lib" "${LD_LIBRARY_PATH:-}")"
	printf 'export CHITTA_LLAMA_DIR=%q\n' "$PREFIX"
	printf 'export CHITTA_LLAMA_VOCAB=%q\n' "$PREFIX/models/ggml-vocab-bert-bge.gguf"
}

ensure_pkg_config() {
	command -v pkg-config >/dev/null 2>&1 && return 0
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		log "pkg-config missing: installing it with apt-get"
		DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pkg-config >&2
	else
		die "pkg-config is missing; install it (e.g. apt-get install pkg-config)"
	fi
}

ensure_pkg_config

mkdir -p "$CACHE_ROOT"
# Serialise concurrent runs (parallel CI jobs sharing a cache).
if command -v flock >/dev/null 2>&1; then
	exec 9>"$CACHE_ROOT/.llama-$VERSION.lock"
	flock 9
fi

if [ -f "$MARKER" ]; then
	log "already installed in $PREFIX"
	print_env
	exit 0
fi

for tool in npm git tar readelf; do
	command -v "$tool" >/dev/null 2>&1 || die "$tool is required"
done

WORK="$(mktemp -d "$CACHE_ROOT/.llama-work.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

log "fetching node-llama-cpp@$VERSION and @node-llama-cpp/linux-x64@$VERSION from npm"
(cd "$WORK" && npm pack --silent "node-llama-cpp@$VERSION" "@node-llama-cpp/linux-x64@$VERSION" >&2)
mkdir -p "$WORK/src-pkg" "$WORK/bin-pkg"
tar -xzf "$WORK/node-llama-cpp-$VERSION.tgz" -C "$WORK/src-pkg" package/llama
tar -xzf "$WORK/node-llama-cpp-linux-x64-$VERSION.tgz" -C "$WORK/bin-pkg" package/bins/linux-x64

BUNDLE="$WORK/src-pkg/package/llama/gitRelease.bundle"
BINS="$WORK/bin-pkg/package/bins/linux-x64"
[ -f "$BUNDLE" ] || die "gitRelease.bundle missing from node-llama-cpp@$VERSION"
[ -f "$BINS/libllama.v0.4.0.so" ] || die "libllama.v0.4.0.so missing from @node-llama-cpp/linux-x64@$VERSION"

# Headers and libraries must come from the same llama.cpp release: the source
# package records its tag in llama.cpp.info.json, the binary package in
# _nlcBuildMetadata.json.
src_tag="$(sed -n 's/.*"tag": *"\([^"]*\)".*/\1/p' "$WORK/src-pkg/package/llama/llama.cpp.info.json")"
bin_tag="$(sed -n 's/.*"release": *"\([^"]*\)".*/\1/p' "$BINS/_nlcBuildMetadata.json")"
[ -n "$src_tag" ] && [ "$src_tag" = "$bin_tag" ] ||
	die "llama.cpp release mismatch: source bundle '$src_tag', prebuilt binaries '$bin_tag'"
log "llama.cpp release $src_tag (headers and libraries agree)"

log "unpacking the llama.cpp source bundle"
git clone --quiet --no-checkout "$BUNDLE" "$WORK/llama.cpp" >&2
git -C "$WORK/llama.cpp" -c advice.detachedHead=false checkout --quiet HEAD -- \
	include ggml/include models/ggml-vocab-bert-bge.gguf >&2
commit="$(git -C "$WORK/llama.cpp" rev-parse HEAD)"

STAGE="$WORK/stage"
mkdir -p "$STAGE/include" "$STAGE/lib/pkgconfig" "$STAGE/models"
cp "$WORK/llama.cpp/include/"*.h "$WORK/llama.cpp/ggml/include/"*.h "$STAGE/include/"
cp "$WORK/llama.cpp/models/ggml-vocab-bert-bge.gguf" "$STAGE/models/"
cp "$BINS/"lib*.so "$STAGE/lib/"

# The linker needs unversioned names; at run time the loader looks for each
# library's SONAME (libllama.v0.4.0.so, libggml.v0.4.0.so, libggml-base.so),
# which are the real files, found through the rpath written into llama.pc.
for lib in "$STAGE/lib/"lib*.v*.so; do
	base="$(basename "$lib")"
	soname="$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')"
	[ "$soname" = "$base" ] || die "$base has SONAME '$soname'"
	ln -sf "$base" "$STAGE/lib/${base%%.v*}.so"
done
for need in libllama.so libggml.so libggml-base.so; do
	[ -e "$STAGE/lib/$need" ] || die "$need missing after layout"
done

cat >"$STAGE/lib/pkgconfig/llama.pc" <<EOF
prefix=$PREFIX
exec_prefix=\${prefix}
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: llama
Description: llama.cpp $src_tag (commit $commit) prebuilt by node-llama-cpp $VERSION, CPU only
Version: ${src_tag#v}
Libs: -L\${libdir} -Wl,-rpath,\${libdir} -lllama -lggml -lggml-base
Cflags: -I\${includedir}
EOF

cat >"$STAGE/VERSION" <<EOF
node-llama-cpp $VERSION
llama.cpp $src_tag
commit $commit
EOF

rm -rf "$PREFIX"
mv "$STAGE" "$PREFIX"
touch "$MARKER"
log "installed llama.cpp $src_tag into $PREFIX"
print_env
