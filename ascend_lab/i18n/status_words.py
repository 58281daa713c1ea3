"""Status words that are values in the status JSON (English there) and shown translated
by the views: modes, verdicts, severities, and the summary's fixed parts."""

from ascend_lab.i18n import N_

WORDS = (
    N_("CPU mode"),
    N_("GPU mode"),
    N_("{} error"),
    N_("{} errors"),
    N_("match"),
    N_("mismatch"),
    N_("unknown"),
    N_(", driver {}"),  # the end of "MindSpore {} and CANN {} match{}."
    # the summary "NPU 8x910B3 · HBM 12% · OK": its health part, as the status bar shows it
    N_("{} · {} · {}"),
    N_("OK"),
    N_("error"),
    N_("warning"),
    N_("info"),
    # values that status messages are built from (ascend_install.py)
    N_("NPU driver"),
    N_("NPU firmware"),
    N_("Driver"),
    N_("Firmware"),
    N_("missing"),
    N_("a directory, not a file"),
    N_("unreadable ({})"),
    N_("empty or has no readable version= line"),
    N_("binary, not a text file"),
    N_("without a readable 'Ascend-cann-atb : <version>' line"),
    N_("Reinstall NNAL (Ascend-cann-nnal_<version>_linux-<arch>.run --install)"),
    # where CANN is (DeviceStatus.install_lines), and how it was found (ascend_install)
    N_("CANN home: {}"),
    N_("found via: {}"),
    N_("set_env.sh: {}"),
    N_("CANN not found; looked in: {}"),
    N_("CANN version from: {}"),
    N_("CANN versions side by side: {}"),
    N_("NNAL/ATB: {}"),
    N_("install-info file"),
    N_("folder name"),
    N_("conda-meta"),
    N_("version.cfg"),
    N_("component version.info"),
    N_("default"),
    N_("--root / ASCEND_LAB_ASCEND_ROOT"),
    N_("non-root install ($HOME/Ascend)"),
    N_("conda ($CONDA_PREFIX/Ascend)"),
)
