#!/usr/bin/env bash
# The whole test suite, on a fresh Debian machine: installs what is missing, builds, and runs
# every test against the real Secret Service (a private, unlocked gnome-keyring) and the real
# portal-emulator over HTTPS on loopback; then the Python adapter's tests and the packages' test.
#   scripts/test.sh [extra swift test arguments, e.g. --filter StorageTests]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# One format (.swift-format, 120 columns): CI keeps it.
swift format lint --strict --recursive --parallel Sources Plugins Tests Benchmarks Fuzz Package.swift
# A function longer than a screen (60 lines) is two: Sources (the library, the programs, the emulator)
# and the plugins hold none (it lists any).
scripts/checks/long-functions.sh Sources Plugins
# docs/development/architecture.md's trace of a 499 names functions in files: they must be there.
scripts/checks/architecture-trace.py
# This package's own warnings are errors here (Package.swift), so the build stays quiet.
export PORTAL_AUTH_WARNINGS_AS_ERRORS=1
swift build --build-tests
# Plugins on the public API: OAuthUser and IAP built as an outside package's targets (about 30 s).
swift build --package-path Tests/ExternalPlugin --scratch-path .build/external-plugin
# The CLI on the public products (Tests/ExternalCLI): no CLI file takes a symbol the library does not
# make public (issue #35, item 5).
scripts/checks/external-cli.sh
# The unit tier first (Tests/PortalAuthUnitTests: no server, no keyring, no child process; under a
# minute), then the integration tier (the emulator, the web tier, the keyring, the CLI).
swift test --skip-build --filter PortalAuthUnitTests
if [ $# -eq 0 ]; then
  # ServeAbuseTests (300 MB through serve, 70 aborted downloads, 150 clients at once) loads both
  # cores for minutes: beside the rest of the tier, on a busy machine, it starved other tests past
  # their 30 s deadlines. It runs alone, after the tier, and so does ServeStreamingTests (a 100 MB
  # form through serve's debug build: 220 s beside the tier on a quiet machine, over 600 s on a
  # busy one).
  # At most TEST_WIDTH (8) tests at once: unbounded, all ~500 start together, and on a busy 2-core
  # runner the emulators' TLS handshakes waited past libcurl's 15 s connect timeout (16 tests
  # failed in CI with "did not answer in time"). `swift test` does not pass the width on, so the
  # test binary is run directly (as scripts/sanitize.sh does).
  tests="$(swift build --show-bin-path)/portal-authPackageTests.xctest"
  # `env --default-signal`: the tests start with every signal at its default action. Started as a
  # background job of a shell without job control, they would inherit SIGINT and SIGQUIT ignored,
  # and so would exec and COMMAND in ExecTests (an ignored signal stays ignored across exec).
  env --default-signal scripts/with-keyring.sh "$tests" --testing-library swift-testing --skip PortalAuthUnitTests \
    --skip ServeAbuseTests --skip ServeStreamingTests --experimental-maximum-parallelization-width "${TEST_WIDTH:-8}"
  env --default-signal scripts/with-keyring.sh swift test --skip-build --filter ServeStreamingTests
  env --default-signal scripts/with-keyring.sh swift test --skip-build --filter ServeAbuseTests
else
  env --default-signal scripts/with-keyring.sh swift test --skip-build --skip PortalAuthUnitTests "$@"
fi
# With arguments (a filter), only the Swift tests run. Otherwise also the Python adapter's tests
# (pytest, against the debug build) and the packages': built, installed with dpkg, used, purged.
if [ $# -eq 0 ]; then
  scripts/checks/python-adapter-test.sh
  scripts/checks/package-test.sh
fi
