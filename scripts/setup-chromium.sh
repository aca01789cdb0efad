#!/usr/bin/env bash
# Installs what the web viewer's end-to-end test (tests/serve_browser.rs) needs:
# Debian's headless browser `chromium`, its WebDriver `chromium-driver`, and `fonts-noto-cjk`
# (the board's kanji; without it the screenshots show empty boxes). Does nothing when all three
# are present; otherwise needs root (or password-less sudo) and Debian's package archive.
# Fails with a one-line reason.
set -euo pipefail
CJK_FONT=/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc
if [[ -x /usr/bin/chromium && -x /usr/bin/chromedriver && -f "$CJK_FONT" ]]; then
  exit 0
fi
fail() {
  echo "error: setup-chromium: $*" >&2
  exit 1
}
command -v apt-get >/dev/null 2>&1 \
  || fail "apt-get not found: install chromium, chromium-driver and fonts-noto-cjk by hand"
SUDO=()
if [[ "$(id -u)" != 0 ]]; then
  command -v sudo >/dev/null 2>&1 || fail "not root and no sudo: cannot install chromium and chromium-driver"
  SUDO=(sudo -n)
fi
export DEBIAN_FRONTEND=noninteractive
echo "setup-chromium: installing chromium, chromium-driver, fonts-noto-cjk (apt-get)" >&2
"${SUDO[@]}" apt-get update -qq >&2 || fail "apt-get update failed (no access to Debian's package archive?)"
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends chromium chromium-driver fonts-noto-cjk >&2 \
  || fail "apt-get install chromium chromium-driver fonts-noto-cjk failed"
[[ -x /usr/bin/chromium && -x /usr/bin/chromedriver ]] \
  || fail "chromium or chromedriver still missing after apt-get install"
