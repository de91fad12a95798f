#!/usr/bin/env bash
# Builds the Debian package and the tarball of portal-auth and portal-emulator, from this checkout:
#
#   scripts/package.sh            # dist/portal-auth_0.1.0-1_amd64.deb, dist/portal-auth-0.1.0-linux-x86_64.tar.gz
#
# Both hold release builds with the Swift runtime linked statically (`--static-swift-stdlib`, in
# their own build folder, .build-release, so the debug build in .build is left alone): they run
# on a Debian machine with no Swift installed. The script fails when either binary still loads a
# libswift library. Also: manual pages for every command, generated from the commands themselves
# (scripts/support/manpages.py), bash, zsh and fish completions (`portal-auth completion SHELL`), the
# README, changelogs and copyright. The package's Depends are the Debian packages of the libraries
# the binaries load (dpkg-shlibdeps on what they link, plus the packages of the libraries
# portal-auth opens with dlopen: libcurl, libcrypto, libgssapi_krb5); lintian runs on the .deb
# when installed, and an error from it fails the script.
#
# `--version` says which commit was built: the commit (taken before the rewrite) is written into
# Sources/PortalAuthBuildInfo/BuildInfo.swift's releaseCommit for the build and the file is put back
# afterwards (every other build gets its commit from the BuildCommit plugin).
#
# Environment: PORTAL_AUTH_PACKAGE_LINTIAN=0 (no lintian run), PORTAL_AUTH_DIST (output folder, default dist/), PORTAL_AUTH_RELEASE_SCRATCH
# (build folder, default .build-release), PORTAL_AUTH_MAINTAINER (the Maintainer field; default
# the top entry of debian/changelog).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
dist="${PORTAL_AUTH_DIST:-$root/dist}"
scratch="${PORTAL_AUTH_RELEASE_SCRATCH:-$root/.build-release}"
started=$(date +%s)
say() { printf 'package: %s\n' "$*" >&2; }
fail() { printf 'package: %s\n' "$*" >&2; exit 1; }

build_info=Sources/PortalAuthBuildInfo/BuildInfo.swift
version=$(sed -n 's/^ *public static let version = "\([^"]*\)"$/\1/p' "$build_info")
[ -n "$version" ] || fail "no version in $build_info"
deb_version=$(dpkg-parsechangelog -l debian/changelog -S Version)
[ "${deb_version%-*}" = "$version" ] ||
  fail "debian/changelog's top entry is $deb_version, $build_info says $version: add a changelog entry"
arch=$(dpkg --print-architecture)
case "$arch" in amd64) tar_arch=x86_64 ;; arm64) tar_arch=aarch64 ;; *) tar_arch=$arch ;; esac
maintainer="${PORTAL_AUTH_MAINTAINER:-$(dpkg-parsechangelog -l debian/changelog -S Maintainer)}"
commit=$(git rev-parse --short=7 HEAD 2>/dev/null || echo unknown)
# Uncommitted changes to tracked files (this script's own rewrite comes later) make it "-dirty".
if [ "$commit" != unknown ] && ! git diff --quiet HEAD -- 2>/dev/null; then commit="$commit-dirty"; fi
# The date of the commit, not of the build: the same commit packs the same dates.
date_iso=$(git log -1 --format=%cs 2>/dev/null || date -u +%F)
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}"

# 1. The release build, with the commit written into BuildInfo.swift for its duration. The copy
# keeps the file's time, so the debug build does not see a change once it is back.
saved=$(mktemp)
cp -p "$build_info" "$saved"
work=$(mktemp -d "${TMPDIR:-/tmp}/portal-auth-package.XXXXXX")
cleanup() {
  cp -p "$saved" "$build_info" && rm -f "$saved"
  rm -rf "$work"
}
trap cleanup EXIT
# (Written in place, as is the restore: the file keeps its inode, so the debug build, which
# compares time, size and inode, has nothing to rebuild afterwards.)
sed "s/^\( *public static let releaseCommit: String? = \)nil$/\1\"$commit\"/" "$saved" >"$build_info"
grep -q "static let releaseCommit: String? = \"$commit\"" "$build_info" || fail "could not write the commit into $build_info"
release=(swift build -c release --static-swift-stdlib --scratch-path "$scratch")
for product in portal-auth portal-auth-full portal-emulator; do
  say "building $product $version ($commit) in release, Swift runtime linked statically"
  "${release[@]}" --product "$product" >&2
done
bin=$("${release[@]}" --show-bin-path)
cp -p "$saved" "$build_info"

# 2. No Swift runtime to install: the binaries load no libswift*, and run with none on the path.
for program in portal-auth portal-auth-full portal-emulator; do
  ldd "$bin/$program" >"$work/ldd-$program" || fail "ldd $bin/$program failed"
  if grep -q 'libswift\|libFoundation\|libdispatch\|libBlocksRuntime\|not found' "$work/ldd-$program"; then
    cat "$work/ldd-$program" >&2
    fail "$program loads a Swift runtime library or a missing one: the package would need Swift installed"
  fi
done
built_version=$("$bin/portal-auth" --version)
[ "$built_version" = "$version ($commit)" ] || fail "portal-auth --version says '$built_version', not '$version ($commit)'"

# 3. The tree both artifacts are made of (FHS paths under usr/).
stage="$work/stage"
install -d -m 0755 "$stage/usr/bin" "$stage/usr/libexec/portal-auth" "$stage/usr/share/man/man1" "$stage/usr/share/doc/portal-auth" \
  "$stage/usr/share/bash-completion/completions" "$stage/usr/share/zsh/vendor-completions" \
  "$stage/usr/share/fish/vendor_completions.d"
# portal-auth is the small program; every command it does not answer runs
# /usr/libexec/portal-auth/portal-auth-full (Sources/portal-auth-front/FullProgram.swift).
install -m 0755 "$bin/portal-auth-full" "$stage/usr/libexec/portal-auth/portal-auth-full"
for program in portal-auth portal-emulator; do
  install -m 0755 "$bin/$program" "$stage/usr/bin/$program"
done
for file in usr/bin/portal-auth usr/libexec/portal-auth/portal-auth-full usr/bin/portal-emulator; do
  # As dh_strip does: symbols out (no debug package is made), the Swift metadata sections stay.
  strip --remove-section=.comment --remove-section=.note --strip-unneeded "$stage/$file"
done
"$stage/usr/bin/portal-auth" --version >/dev/null || fail "the stripped portal-auth does not run"

# Manual pages, from the commands themselves, gzipped as Debian wants them (-n: no name or time inside).
mkdir -p "$work/man"
for program in portal-auth portal-emulator; do
  python3 scripts/support/manpages.py --date "$date_iso" --source "portal-auth $version" \
    "$stage/usr/bin/$program" "$work/man" >/dev/null
done
for page in "$work/man"/*.1; do
  gzip -9n <"$page" >"$stage/usr/share/man/man1/$(basename "$page").gz"
done
chmod 0644 "$stage"/usr/share/man/man1/*

# Completions, where each shell looks for a package's.
# (bash-completion sources its files: no #! line, as lintian wants.)
"$stage/usr/bin/portal-auth" completion bash | sed '1{/^#!/d}' >"$stage/usr/share/bash-completion/completions/portal-auth"
"$stage/usr/bin/portal-auth" completion zsh >"$stage/usr/share/zsh/vendor-completions/_portal-auth"
"$stage/usr/bin/portal-auth" completion fish >"$stage/usr/share/fish/vendor_completions.d/portal-auth.fish"
bash -n "$stage/usr/share/bash-completion/completions/portal-auth" || fail "the bash completion is not valid bash"

# The systemd user units: portal-auth serve from login (or its port held from login and serve started
# on use), and a daily portal-auth renew (docs/serve.md, docs/unattended.md). Enabled by each user
# (systemctl --user enable), never by the package.
install -d -m 0755 "$stage/usr/lib/systemd/user"
install -m 0644 debian/systemd/portal-auth-serve.service debian/systemd/portal-auth-serve.socket \
  debian/systemd/portal-auth-renew.service debian/systemd/portal-auth-renew.timer "$stage/usr/lib/systemd/user/"

# Documentation: the README, the project's changelog (CHANGELOG.md, or the README's Changelog
# section while there is none), Debian's changelog and the copyright.
doc="$stage/usr/share/doc/portal-auth"
install -m 0644 README.md "$doc/README.md"
gzip -9n "$doc/README.md"
if [ -f CHANGELOG.md ]; then
  gzip -9n <CHANGELOG.md >"$doc/changelog.gz"
else
  awk '/^## Changelog$/ {on=1; print; next} on && /^## / {exit} on {print}' README.md | gzip -9n >"$doc/changelog.gz"
fi
gzip -9n <debian/changelog >"$doc/changelog.Debian.gz"
install -m 0644 debian/copyright "$doc/copyright"
chmod 0644 "$doc"/*

# 4. The Debian package.
pkg="$work/deb"
cp -a "$stage" "$pkg"
install -d -m 0755 "$pkg/DEBIAN"
# What the binaries link, as dpkg-shlibdeps words it (package names and minimum versions)...
mkdir -p "$work/shlibs/debian"
printf 'Source: portal-auth\n\nPackage: portal-auth\nArchitecture: any\n' >"$work/shlibs/debian/control"
linked=$(cd "$work/shlibs" && dpkg-shlibdeps -O "$pkg/usr/bin/portal-auth" "$pkg/usr/libexec/portal-auth/portal-auth-full" "$pkg/usr/bin/portal-emulator" 2>/dev/null |
  sed -n 's/^shlibs:Depends=//p')
# ...and the packages of the libraries portal-auth opens itself (Sources/CPortalAuth: curl.c,
# crypto.c, gss.c), which neither ldd nor dpkg-shlibdeps see.
opened=()
# (Read whole, never piped into a reader that exits early: under pipefail the writer's SIGPIPE, exit
# 141, would end the script; a GIS workstation's ldconfig -p is long.)
libraries=$(ldconfig -p)
for library in libcurl.so.4 libcrypto.so.3 libgssapi_krb5.so.2; do
  path=$(awk -v lib="$library" '$1 == lib && /x86-64|AArch64|x32/ {print $NF; exit}' <<<"$libraries")
  [ -n "$path" ] || path=$(awk -v lib="$library" '$1 == lib {print $NF; exit}' <<<"$libraries")
  [ -n "$path" ] || fail "$library is not installed here: cannot name its package (scripts/setup.sh installs it)"
  owner=$(dpkg -S "$(readlink -f "$path")" 2>/dev/null | awk -F: 'NR == 1 {print $1}') ||
    owner=$(dpkg -S "$path" | awk -F: 'NR == 1 {print $1}')
  [ -n "$owner" ] || fail "no Debian package owns $path"
  opened+=("$owner")
done
depends=$(printf '%s\n' "$linked" | tr ',' '\n' | sed 's/^ *//; /^$/d')
for owner in "${opened[@]}"; do
  grep -q "^$owner\( \|$\)" <<<"$depends" || depends=$(printf '%s\n%s' "$depends" "$owner")
done
depends=$(printf '%s\n' "$depends" | sort -u | paste -sd, | sed 's/,/, /g')
installed_size=$(du -sk --apparent-size "$pkg/usr" | cut -f1)
cat >"$pkg/DEBIAN/control" <<EOF
Package: portal-auth
Version: $deb_version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $installed_size
Depends: $depends
Recommends: gnome-keyring
Section: net
Priority: optional
Description: sign people and scripts in to ArcGIS portals
 portal-auth signs people, scripts and programs in to ArcGIS portals (ArcGIS
 Online, ArcGIS Enterprise) and the services they secure: ArcGIS tokens, OAuth
 user and application sign-ins, federated ArcGIS Server tokens, portals behind
 Microsoft Entra Application Proxy, and web-tier credentials (Basic, Digest,
 NTLM, Kerberos, client certificates). Credentials are kept in the desktop
 keyring (the Secret Service) and handed to curl, GDAL, Python and any other
 program with "portal-auth token" and "portal-auth exec".
 .
 The package also holds portal-emulator, a local HTTPS server that behaves like
 a portal and a federated ArcGIS Server, for tests and CI.
EOF
(cd "$pkg" && find usr -type f -print0 | sort -z | xargs -0 md5sum) >"$pkg/DEBIAN/md5sums"
chmod 0644 "$pkg/DEBIAN/control" "$pkg/DEBIAN/md5sums"
find "$pkg" -type d -exec chmod 0755 {} +
mkdir -p "$dist"
deb="$dist/portal-auth_${deb_version}_${arch}.deb"
dpkg-deb --build --root-owner-group -Zxz "$pkg" "$deb" >/dev/null
say "made $deb (Depends: $depends)"

# 5. The tarball: the same files, under portal-auth-VERSION-linux-ARCH/ as bin/ and share/, to
# unpack into /usr/local (or ~/.local) with --strip-components=1.
name="portal-auth-$version-linux-$tar_arch"
tree="$work/$name"
mkdir -p "$tree"
cp -a "$stage/usr/bin" "$stage/usr/libexec" "$stage/usr/share" "$tree/"
# Shells look in these folders under a prefix such as /usr/local (bash-completion and fish in
# share/bash-completion/completions and share/fish/vendor_completions.d of XDG_DATA_DIRS, zsh in
# PREFIX/share/zsh/site-functions).
mv "$tree/share/zsh/vendor-completions" "$tree/share/zsh/site-functions"
install -m 0644 LICENSE "$tree/LICENSE"
tarball="$dist/$name.tar.gz"
tar --sort=name --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner -C "$work" -cf - "$name" |
  gzip -9n >"$tarball"
say "made $tarball"

# 6. lintian, when installed (scripts/setup.sh installs it): errors fail, warnings are shown.
if [ "${PORTAL_AUTH_PACKAGE_LINTIAN:-1}" = 0 ]; then
  say "lintian: skipped (PORTAL_AUTH_PACKAGE_LINTIAN=0)"
elif command -v lintian >/dev/null; then
  lintian_out=$(lintian --tag-display-limit 0 "$deb" 2>&1 || true)
  [ -z "$lintian_out" ] || printf '%s\n' "$lintian_out" | sed 's/^/package: lintian: /' >&2
  if grep -q '^E: ' <<<"$lintian_out"; then fail "lintian reports errors on $deb"; fi
else
  say "lintian is not installed: not checked (apt-get install lintian)"
fi
say "done in $(($(date +%s) - started)) s"
printf '%s\n%s\n' "$deb" "$tarball"
