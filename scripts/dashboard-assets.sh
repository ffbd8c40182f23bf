#!/bin/sh
# Re-fetches the dashboard's chart library (uPlot, MIT) from npm into
# dashboard/assets/, where go:embed picks it up: `go build` needs no npm.
#   scripts/dashboard-assets.sh [VERSION]
set -eu
version="${1:-1.6.32}"
here="$(cd "$(dirname "$0")/.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "uplot@$version" >/dev/null && tar xzf "uplot-$version.tgz")
cp "$tmp/package/dist/uPlot.iife.min.js" "$tmp/package/dist/uPlot.min.css" "$here/dashboard/assets/"
cp "$tmp/package/LICENSE" "$here/dashboard/assets/uPlot.LICENSE"
echo "uplot $version" >"$here/dashboard/assets/VERSION"
echo "dashboard/assets: uPlot $version"
