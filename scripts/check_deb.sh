#!/usr/bin/env bash
# Checks a built .deb (cpack in the release build folder, .ci/run): its Depends name Qt
# Widgets, QCustomPlot and TBB (from dpkg-shlibdeps, so `apt install ./archipelago_*.deb`
# pulls them), its version is the project's, and its files hold the two programs, the desktop
# entry, the MIME type, the icon, both man pages and the presets.
#   scripts/check_deb.sh build/release/archipelago_0.1.0_amd64.deb [VERSION]
set -euo pipefail

deb=${1:?usage: scripts/check_deb.sh PACKAGE.deb [VERSION]}
version=${2:-}
[ -f "$deb" ] || { echo "check_deb: no such file: $deb" >&2; exit 1; }

failures=0
fail() {
  echo "check_deb: $*" >&2
  failures=$((failures + 1))
}

info=$(dpkg-deb --info "$deb")
contents=$(dpkg-deb --contents "$deb")
field() { dpkg-deb --field "$deb" "$1"; }

[ "$(field Package)" = archipelago ] || fail "Package is '$(field Package)', expected archipelago"
if [ -n "$version" ] && [ "$(field Version)" != "$version" ]; then
  fail "Version is '$(field Version)', expected $version"
fi
depends=$(field Depends)
for lib in libqt6widgets6 libqt6gui6 libqt6core6 libqcustomplot libtbb libstdc++6; do
  grep -q "\b$lib" <<<"$depends" || fail "Depends lacks $lib: $depends"
done

for path in \
  ./usr/bin/archipelago \
  ./usr/bin/archipelago-cli \
  ./usr/share/applications/archipelago.desktop \
  ./usr/share/mime/packages/archipelago.xml \
  ./usr/share/icons/hicolor/scalable/apps/archipelago.svg \
  ./usr/share/man/man1/archipelago.1.gz \
  ./usr/share/man/man1/archipelago-cli.1.gz \
  ./usr/share/archipelago/catalog.json \
  ./usr/share/doc/archipelago/README.md; do
  grep -q " $path\$" <<<"$contents" || fail "missing $path"
done
presets=$(grep -c ' \./usr/share/archipelago/presets/.*\.json$' <<<"$contents" || true)
[ "$presets" -ge 1 ] || fail "no presets in ./usr/share/archipelago/presets"
# Nothing from the build machine: no build folder, no absolute install prefix but /usr.
if grep -v ' \./usr/' <<<"$contents" | grep -vq ' \./$'; then
  fail "files outside /usr: $(grep -v ' \./usr/' <<<"$contents" | grep -v ' \./$' | head -3)"
fi

if [ "$failures" -gt 0 ]; then
  echo "check_deb: $failures problem(s) in $deb" >&2
  echo "$info" >&2
  exit 1
fi
echo "check_deb: $deb is good ($(field Version), $presets presets)"
echo "  Depends: $depends"
