"""The stored aggregates folded by the export's readers (``summary.PartWriter``) and merged
(``merge_partials``) are exactly those ``summarize`` computes from the written files."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq

from mqconsole.audit.summary import PartWriter, merge_partials, summarize

from .reportdata import SCHEMA, make_rows, write_snapshot

PLUGIN = "json_field_customer"


def _stored(root) -> dict:
    out = {"info": json.loads((root / "_summary" / "summary.json").read_text())}
    for name in ("lists", "arrivals", "duplicates"):
        path = root / "_summary" / f"{name}.parquet"
        out[name] = sorted(map(repr, pq.read_table(path).to_pylist())) if path.exists() else None
    return out


def _rows():
    rows = make_rows(700, seed=5)
    for i, row in enumerate(rows):
        row[PLUGIN] = None if i % 4 == 0 else f"C{i % 3}"
    return rows


def test_parts_folded_while_reading_merge_into_what_the_files_give(tmp_path) -> None:
    rows = _rows()
    schema = SCHEMA.append(pa.field(PLUGIN, pa.string()))
    table = pa.Table.from_pylist(
        [{**r, "properties": None if r["properties"] is None else list(r["properties"].items())}
         for r in rows], schema=schema)
    parts = tmp_path / "parts"
    parts.mkdir()
    # three readers, batches of uneven sizes, chunks smaller than a reader's rows
    bounds = [0, 250, 251, 700]
    for index in range(3):
        writer = PartWriter(parts, index, schema, chunk_rows=64)
        part = table.slice(bounds[index], bounds[index + 1] - bounds[index])
        for batch in part.to_batches(max_chunksize=37):
            writer.add(batch)
        writer.close()
    assert merge_partials(parts, 3, tmp_path / "merged")
    write_snapshot(tmp_path / "snap", rows, extra={PLUGIN: pa.string()})
    summarize(tmp_path / "snap" / "messages", tmp_path / "files")
    merged, files = _stored(tmp_path / "merged"), _stored(tmp_path / "files")
    assert merged == files
    assert merged["info"]["rows"] == 700 and merged["info"]["plugins"] == [PLUGIN]


def test_a_missing_part_is_said_and_nothing_is_written(tmp_path) -> None:
    schema = SCHEMA
    writer = PartWriter(tmp_path, 0, schema)
    writer.close()  # a reader of nothing: an empty part is still a part
    assert not merge_partials(tmp_path, 2, tmp_path / "out")
    assert not (tmp_path / "out").exists()
    assert merge_partials(tmp_path, 1, tmp_path / "out")
    assert json.loads((tmp_path / "out" / "_summary" / "summary.json").read_text())[
        "rows"] == 0
