"""Reading a file: YAML anchors and merges, relative paths."""

from __future__ import annotations

from pathlib import Path

from mqconsole.config import (
    parse_config,
)


def test_yaml_anchors_and_merge_keys(tmp_path: Path) -> None:
    cfg = parse_config(
        """\
x-tls: &tls
  cipher_spec: ANY_TLS12
  channel: TLS.SVRCONN
profiles:
  - name: a
    backend:
      <<: *tls
      type: mq
      connection_name: h(1)
      channel: MINE.SVRCONN
""",
    )
    backend = cfg.profile("a").backend
    assert backend.cipher_spec == "ANY_TLS12" and backend.channel == "MINE.SVRCONN"
