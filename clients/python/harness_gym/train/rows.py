"""Dataset rows for GRPO groups that trainers scatter across workers and processes.

A trainer repeats each prompt row G times and hands the copies to whichever worker is free, in other
processes, over other connections. A ``group_id`` is scoped to one session (PROTOCOL.md, "Groups"), so it
cannot tie those siblings together. The seed can: "the same seed with the same preset name (or the same
VariantSpec), the same task selector and the same options gives the same task and the same variant"
(PROTOCOL.md, "Messages"). So a row carries everything that fixes the episode (seed, variant, locale,
task selector, options) and every sibling resets from the row alone, with no ``group_id``.

Rows are plain JSON-able dicts, so they go into a parquet or JSONL dataset as they are.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Dict, List, Mapping, Optional, Union

VariantLike = Union[str, Mapping[str, Any]]

#: The keys a row carries. ``row_id`` names the group; the rest fix the episode.
ROW_KEYS = ("row_id", "seed", "variant", "locale", "task", "options", "group_size")


def group_rows(
    n_groups: int,
    *,
    seed: int = 0,
    variant: VariantLike = "train",
    locale: Optional[str] = None,
    group_size: int = 8,
    task: Optional[Mapping[str, Any]] = None,
    options: Optional[Mapping[str, Any]] = None,
) -> List[Dict[str, Any]]:
    """``n_groups`` rows, row ``k`` with seed ``seed + k`` (Gymnasium's batched-seed convention).

    ``variant``: a preset name (``welcome.variant_presets``) or a VariantSpec map (``{families, intensity,
    split, seed?, identity_share?}``). ``locale``: ``"zh-CN"`` or ``"en"`` (absent: the server's default).
    ``task``: a task selector (``{split?, intent?, id?}``). ``options``: further reset options shared by
    every sibling (``parser``, ``max_turns``, ``rewards``, ``faults``, ...); they are part of what fixes
    the episode, so they belong to the row, not to the sample. ``group_size`` is recorded for the trainer
    (how many copies to make of the row); the server never sees it.
    """
    if n_groups < 0 or group_size < 1:
        raise ValueError("n_groups must be >= 0 and group_size >= 1")
    if seed < 0 or seed + max(n_groups - 1, 0) > 0xFFFFFFFF:
        raise ValueError("seeds must stay within uint32")
    rows = []
    for k in range(n_groups):
        row: Dict[str, Any] = {
            "row_id": f"s{seed + k}-{variant_key(variant)}-{locale or 'default'}",
            "seed": seed + k,
            "variant": variant if isinstance(variant, str) else dict(variant),
            "group_size": group_size,
        }
        if locale is not None:
            row["locale"] = locale
        if task is not None:
            row["task"] = dict(task)
        if options:
            row["options"] = dict(options)
        rows.append(row)
    return rows


def variant_key(variant: VariantLike) -> str:
    """A short stable name for a variant: the preset's name, or ``spec-`` and a hash of the spec's sorted JSON."""
    if isinstance(variant, str):
        return variant
    canonical = json.dumps(dict(variant), sort_keys=True, separators=(",", ":"))
    return "spec-" + hashlib.sha256(canonical.encode()).hexdigest()[:12]


def expand_rows(rows: List[Mapping[str, Any]]) -> List[Dict[str, Any]]:
    """Each row repeated ``group_size`` times, with ``sample_index`` 0..G-1 (what a trainer's ``n`` does)."""
    out = []
    for row in rows:
        for j in range(int(row.get("group_size", 1))):
            out.append({**row, "sample_index": j})
    return out


def row_reset_item(row: Mapping[str, Any], extra_options: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
    """The ``ResetItem`` a row stands for: its seed, variant, task selector and options (locale included).

    ``extra_options`` (e.g. ``max_turns`` from a rollout config) are merged under the row's own options;
    pass the same ones for every sibling, since options are part of what fixes the episode. No
    ``group_id``: siblings meet through the seed, whatever session they are in.
    """
    item: Dict[str, Any] = {"seed": int(row["seed"])}
    if row.get("variant") is not None:
        item["variant"] = row["variant"]
    if row.get("task") is not None:
        item["task"] = dict(row["task"])
    options: Dict[str, Any] = dict(extra_options or {})
    options.update(row.get("options") or {})
    if row.get("locale") is not None:
        options["locale"] = row["locale"]
    if options:
        item["options"] = options
    return item


def plain(value: Any) -> Any:
    """``value`` with omegaconf containers, numpy arrays / scalars and tuples made plain dicts, lists and
    scalars, recursively: what hydra (verl), ROLL's env configs and parquet rows hand over, made encodable
    by msgpack and JSON. omegaconf is imported only when a value is one of its containers."""
    if (type(value).__module__ or "").startswith("omegaconf"):
        from omegaconf import OmegaConf

        if OmegaConf.is_config(value):
            value = OmegaConf.to_container(value, resolve=True)
    if isinstance(value, Mapping):
        return {k if isinstance(k, str) else str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    tolist = getattr(value, "tolist", None)
    if tolist is not None and type(value).__module__ == "numpy":  # ndarray -> list, numpy scalar -> item
        return plain(tolist())
    return value
