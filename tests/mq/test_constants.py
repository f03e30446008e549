"""Cross-check mqconsole's MQ numbers and names against IBM's own CMQC.py.

``ibmmq`` cannot be imported here (its C extension needs IBM's MQ client library), so its
pure-Python ``CMQC.py`` is executed by path, with the package folder on ``sys.path`` only
while it loads (it star-imports a platform file from there).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from mqconsole.mq import _generated_constants as g
from mqconsole.mq import names
from mqconsole.mq.dlh import MQDLH
from mqconsole.mq.md import MQMD, MQMD_V1_LENGTH, MQMD_V2_LENGTH
from mqconsole.mq.rfh2 import MQRFH, MQRFH2
from mqconsole.mq.xqh import MQMDE, MQXQH

FAMILIES = ["MQRC", "MQFB", "MQFMT", "MQMT", "MQPER", "MQAT", "MQRO", "MQMF", "MQEI", "MQPRI",
            "MQCCSI", "MQENC", "MQQT", "MQUS", "MQCC", "MQPL"]


def _ibmmq_folder() -> Path | None:
    try:
        spec = importlib.util.find_spec("ibmmq")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def load_cmqc(folder: Path) -> ModuleType:
    saved_path, saved_modules = list(sys.path), set(sys.modules)
    sys.path.insert(0, str(folder))
    try:
        spec = importlib.util.spec_from_file_location("_mqconsole_test_cmqc", folder / "CMQC.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:  # CMQC.py puts its folder on sys.path and imports a platform module: undo both
        sys.path[:] = saved_path
        for name in set(sys.modules) - saved_modules:
            del sys.modules[name]


@pytest.fixture(scope="module")
def cmqc() -> ModuleType:
    folder = _ibmmq_folder()
    if folder is None:
        pytest.skip("the ibmmq package is not installed (pip install -e '.[dev]' brings it)")
    assert (folder / "CMQC.py").is_file(), f"ibmmq at {folder} has no CMQC.py"
    return load_cmqc(folder)


def _family(cmqc: ModuleType, prefix: str) -> dict[str, int | str]:
    out: dict[str, int | str] = {}
    for name, value in vars(cmqc).items():
        if not name.startswith(prefix + "_"):
            continue
        if isinstance(value, bytes):
            value = value.decode("ascii")
        if isinstance(value, int | str) and not isinstance(value, bool):
            out[name] = value
    return out


def test_loading_cmqc_leaves_no_trace(cmqc):
    folder = _ibmmq_folder()
    path, modules = list(sys.path), set(sys.modules)
    again = load_cmqc(folder)
    assert sys.path == path
    assert set(sys.modules) == modules
    assert again.MQRC_Q_FULL == cmqc.MQRC_Q_FULL == 2053


@pytest.mark.parametrize("family", FAMILIES)
def test_generated_values_match_cmqc(cmqc, family):
    generated = getattr(g, family)
    assert generated, f"{family} is empty"
    expected = _family(cmqc, family)
    wrong = {n: (v, expected.get(n)) for n, v in generated.items() if expected.get(n) != v}
    assert wrong == {}
    assert set(generated) == set(expected), "family incomplete or with extra names"


def test_generated_module_is_only_these_families():
    tables = {n for n, v in vars(g).items() if isinstance(v, dict) and not n.startswith("_")}
    assert tables == set(FAMILIES)


def _codes(cmqc: ModuleType, prefix: str) -> dict[str, int]:
    return {n: v for n, v in _family(cmqc, prefix).items()
            if isinstance(v, int) and not n.endswith(("_FIRST", "_LAST"))}


def test_every_reason_code_is_named_by_cmqc(cmqc):
    for name, value in _codes(cmqc, "MQRC").items():
        shown = names.reason_name(value)
        assert shown.startswith("MQRC_"), (name, shown)
        assert getattr(cmqc, shown) == value, (name, shown)


def test_every_feedback_code_is_named_by_cmqc(cmqc):
    for name, value in _codes(cmqc, "MQFB").items():
        shown = names.feedback_name(value)
        assert getattr(cmqc, shown) == value, (name, shown)
        if value not in names.REASONS:
            assert names.reason_name(value) == shown


def test_names_functions_against_cmqc(cmqc):
    assert names.reason_name(2053) == "MQRC_Q_FULL" and cmqc.MQRC_Q_FULL == 2053
    assert names.reason_name(259) == "MQFB_COA" and cmqc.MQFB_COA == 259
    assert names.feedback_name(cmqc.MQFB_EXPIRATION) == "MQFB_EXPIRATION"
    assert names.reason_name(cmqc.MQRC_BACKOUT_THRESHOLD_REACHED) == \
        "MQRC_BACKOUT_THRESHOLD_REACHED"
    for name, value in _family(cmqc, "MQFMT").items():
        shown = names.format_name(value)
        assert getattr(cmqc, shown).decode("ascii") == value, (name, shown)
    for name, value in _codes(cmqc, "MQAT").items():
        shown = names.appl_type_name(value)
        assert getattr(cmqc, shown) == value, (name, shown)
    for name, value in _codes(cmqc, "MQMT").items():
        shown = names.msg_type_name(value)
        assert getattr(cmqc, shown) == value, (name, shown)
    for name, value in _codes(cmqc, "MQPER").items():
        shown = names.persistence_name(value)
        assert getattr(cmqc, shown) == value, (name, shown)
    for short, value in names.REASON_BY_NAME.items():
        assert getattr(cmqc, "MQRC_" + short) == value


def test_structure_constants_match_cmqc(cmqc):
    assert MQMD_V1_LENGTH == cmqc.MQMD_LENGTH_1
    assert MQMD_V2_LENGTH == cmqc.MQMD_LENGTH_2
    assert MQDLH.LENGTH == cmqc.MQDLH_LENGTH_1 == cmqc.MQDLH_CURRENT_LENGTH
    assert MQDLH.STRUC_ID.encode() == cmqc.MQDLH_STRUC_ID
    assert MQRFH2.FIXED_LENGTH == cmqc.MQRFH_STRUC_LENGTH_FIXED_2 == cmqc.MQRFH2_LENGTH_2
    assert MQRFH.FIXED_LENGTH == cmqc.MQRFH_STRUC_LENGTH_FIXED
    assert MQRFH2.STRUC_ID.encode() == cmqc.MQRFH_STRUC_ID
    assert MQXQH.LENGTH == cmqc.MQXQH_LENGTH_1
    assert MQXQH.STRUC_ID.encode() == cmqc.MQXQH_STRUC_ID
    assert MQMDE.LENGTH == cmqc.MQMDE_LENGTH_2
    assert MQMDE.STRUC_ID.encode() == cmqc.MQMDE_STRUC_ID
    for cls, fmt in ((MQDLH, cmqc.MQFMT_DEAD_LETTER_HEADER), (MQRFH2, cmqc.MQFMT_RF_HEADER_2),
                     (MQRFH, cmqc.MQFMT_RF_HEADER_1), (MQXQH, cmqc.MQFMT_XMIT_Q_HEADER),
                     (MQMDE, cmqc.MQFMT_MD_EXTENSION)):
        assert cls.FORMAT.encode() == fmt


def test_md_defaults_match_cmqc(cmqc):
    md = MQMD()
    assert md.struc_id.encode() == cmqc.MQMD_STRUC_ID
    assert md.version == cmqc.MQMD_CURRENT_VERSION
    assert md.msg_type == cmqc.MQMT_DATAGRAM
    assert md.expiry == cmqc.MQEI_UNLIMITED
    assert md.feedback == cmqc.MQFB_NONE
    assert md.ccsid == cmqc.MQCCSI_Q_MGR
    assert md.format.encode() == cmqc.MQFMT_NONE
    assert md.priority == cmqc.MQPRI_PRIORITY_AS_Q_DEF
    assert md.persistence == cmqc.MQPER_PERSISTENCE_AS_Q_DEF
    assert md.msg_id == cmqc.MQMI_NONE and md.correl_id == cmqc.MQCI_NONE
    assert md.original_length == cmqc.MQOL_UNDEFINED
    assert md.msg_seq_number == 1 and md.offset == 0 and md.msg_flags == cmqc.MQMF_NONE
    assert MQMDE().original_length == cmqc.MQOL_UNDEFINED
    assert MQRFH2().ccsid == cmqc.MQCCSI_INHERIT
    assert MQRFH2().name_value_ccsid == 1208


def test_encodings_from_cmqc(cmqc):
    assert cmqc.MQENC_S390 == 785 and cmqc.MQENC_NORMAL == 273 and cmqc.MQENC_REVERSED == 546
    assert cmqc.MQENC_INTEGER_NORMAL == 1 and cmqc.MQENC_INTEGER_REVERSED == 2
    assert cmqc.MQENC_INTEGER_MASK == 0xF
