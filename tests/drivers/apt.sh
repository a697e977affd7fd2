# Sourced by tests/drivers/run.sh and tests/browser/run.sh.

# apt_install PACKAGE...: installs the packages with apt-get, through sudo when not root (and
# fails saying so when there is no sudo); the package lists are updated once a run.
apt_updated=0
apt_install() {
    local sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null; then
            sudo=(sudo)
        else
            echo "need root (or sudo) to install: $*" >&2
            exit 1
        fi
    fi
    if [ "$apt_updated" -eq 0 ]; then
        "${sudo[@]}" apt-get update -qq
        apt_updated=1
    fi
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "$@"
}
