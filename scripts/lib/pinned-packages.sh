# Sourced, not run: the one place that installs pinned PyPI packages into a project venv and
# checks their versions, for scripts/setup-python.sh and scripts/setup-python-rl.sh. Why one
# place: both keep a venv whose packages are pinned in the script, and a second run must only
# check the versions (well under a second), so the check and the install go together.
# The caller defines die and say (they carry its name in its messages).

# pinned_missing PYTHON SPEC...: prints nothing when every `name==version` SPEC is installed in
# PYTHON's environment at its version, else the first one that is not.
pinned_missing() {
  local python="$1"
  shift
  "$python" - "$@" <<'PY' 2>/dev/null || echo "(could not check)"
import importlib.metadata as m, sys
for spec in sys.argv[1:]:
    name, version = spec.split("==")
    try:
        if m.version(name) != version:
            print(spec); break
    except m.PackageNotFoundError:
        print(spec); break
PY
}

# pinned_install PYTHON VENV COST SPEC...: installs the SPECs from PyPI with PYTHON's pip when
# one is missing or at another version (COST, such as "about 15 s, 120 MB", goes in the message),
# then checks them again; dies when pip fails or a SPEC is still missing.
pinned_install() {
  local python="$1" venv="$2" cost="$3"
  shift 3
  [ -n "$(pinned_missing "$python" "$@")" ] || return 0
  say "installing $* from PyPI into $venv ($cost) ..."
  if ! "$python" -m pip install --disable-pip-version-check --progress-bar off --quiet \
        "$@" >&2; then
    die "pip could not install $* (is PyPI reachable? see the pip output above)."
  fi
  local still
  still="$(pinned_missing "$python" "$@")"
  [ -z "$still" ] || die "$still is still missing after pip install."
}
