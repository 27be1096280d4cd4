"""What the comparison scripts (sweep-*, fuzz-*) share: where the stackproof binary and
the real helm binaries are, and an environment that gives helm a scratch config, cache
and data folder, so a run neither reads nor changes the user's helm setup."""
import os
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SP = os.environ.get("STACKPROOF_BIN", os.path.join(ROOT, "target/release/stackproof"))
ORACLES = os.environ.get("STACKPROOF_ORACLES", "")
HELM = {"3": os.path.join(ORACLES, "helm"), "4": os.path.join(ORACLES, "helm-v4.3.1")}


def helm_home(prefix):
    """A new temporary folder, named PREFIX..., for helm's config, cache and data."""
    return tempfile.mkdtemp(prefix=prefix)


def helm_env(home, **extra):
    """The process environment with helm's folders under HOME, plus EXTRA variables."""
    return dict(os.environ, HELM_CONFIG_HOME=home + "/c", HELM_CACHE_HOME=home + "/k",
                HELM_DATA_HOME=home + "/d", **extra)
