"""Writing a calibrated profile: TOML that ``thermogov sim --board FILE`` reads back unchanged.

The writer is the inverse of :func:`thermogov.board.parse_board` for every table, so a calibrated
profile differs from its original only in the fitted numbers; the header says where those came
from, because a profile without its provenance invites being trusted beyond the log it was fitted to.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from thermogov.board import BoardProfile
from thermogov.fanprofile import fan_profile_to_dict

if TYPE_CHECKING:
    from thermogov.sim.calibration.fit import CalibrationResult


def _input_rail_value(rails: Sequence[str]) -> str | list[str]:
    """``[board] input_rail`` as the profile wrote it: one label (or "none") alone, else the list."""
    return rails[0] if len(rails) == 1 else list(rails)


def board_to_dict(board: BoardProfile) -> dict[str, Any]:
    """The TOML tables of a profile, the inverse of :func:`thermogov.board.parse_board`."""

    def mhz(hz: Sequence[int]) -> list[float | int]:
        return [round(f / 1e6, 6) if f % 1_000_000 else f // 1_000_000 for f in hz]

    d: dict[str, Any] = {
        "board": {
            "name": board.name,
            "description": board.description,
            "dt_models": list(board.dt_models),
            **({"dt_socs": list(board.dt_socs)} if board.dt_socs else {}),
            **({"enclosure": board.enclosure} if board.enclosure != "default" else {}),
            **({"input_rail": _input_rail_value(board.input_rails)} if board.input_rails else {}),
            **({"summed_rails": list(board.summed_rails)} if board.summed_rails else {}),
        },
        "sensors": {
            s.name: {
                "weight": s.weight,
                "period_ms": s.period_ms,
                "hard_limit_c": s.hard_limit_c,
                "node": s.node,
                "noise_c": s.noise_c,
                "quant_c": s.quant_c,
                "lag_s": s.lag_s,
                "kind": s.kind,
                "sysfs_names": list(s.sysfs_names),
                "aliases": list(s.aliases),
            }
            for s in board.sensors
        },
        "domains": {
            dm.name: {
                "kind": dm.kind,
                "node": dm.node,
                "cores": dm.cores,
                "opp_mhz": mhz(dm.opp_hz),
                "volt_v": list(dm.volt_v),
                "c_dyn_uw_per_mhz_v2": _sig(dm.c_dyn_uw_per_mhz_v2),
                "idle_w": _sig(dm.idle_w),
                "leak_w_ref": dm.leak_w_ref,
                "leak_ref_c": dm.leak_ref_c,
                "leak_beta_per_k": dm.leak_beta_per_k,
                "sysfs_names": list(dm.sysfs_names),
                **({"listed_mhz": mhz(dm.listed_hz)} if dm.listed_hz else {}),
                **({"stock_mhz": dm.stock_hz / 1e6} if dm.stock_hz else {}),
                **(
                    {"stock_mhz_by_model": {k: hz / 1e6 for k, hz in dm.model_stock_hz}}
                    if dm.model_stock_hz
                    else {}
                ),
                **({"workload_activity": dict(dm.workload_activity)} if dm.workload_activity else {}),
            }
            for dm in board.domains
        },
        "thermal": {
            "rest_of_board_w": _sig(board.thermal.rest_of_board_w),
            "rest_of_board_node": board.thermal.rest_of_board_node,
            "links": [[lk.a, lk.b, _sig(lk.conductance_w_per_k)] for lk in board.thermal.links],
            "nodes": {
                n.name: {
                    "capacitance_j_per_k": _sig(n.capacitance_j_per_k),
                    "to_ambient_w_per_k": _sig(n.to_ambient_w_per_k),
                }
                for n in board.thermal.nodes
            },
        },
        "model": {
            "name": board.model.name,
            "fixed_ms": board.model.fixed_s * 1000.0,
            "batch_fixed_ms": board.model.batch_fixed_s * 1000.0,
            "cycles": dict(board.model.cycles),
            **({"threads": dict(board.model.threads)} if board.model.threads else {}),
        },
    }
    if board.enclosures:
        d["enclosures"] = {
            e.name: {
                "description": e.description,
                "to_ambient_w_per_k": dict(e.to_ambient_w_per_k),
                "capacitance_j_per_k": dict(e.capacitance_j_per_k),
                **({"fan": fan_profile_to_dict(e.fan)} if e.fan is not None else {}),
                **({"on_evidence_only": True} if e.on_evidence_only else {}),
                **(
                    {
                        "nodes": {
                            a.name: {
                                "capacitance_j_per_k": a.capacitance_j_per_k,
                                "to_ambient_w_per_k": a.to_ambient_w_per_k,
                                "attached_to": a.attached_to,
                                "pad_w_per_k": a.pad_w_per_k,
                            }
                            for a in e.nodes
                        }
                    }
                    if e.nodes
                    else {}
                ),
            }
            for e in board.enclosures
        }
    if board.battery is not None:
        b = board.battery
        d["battery"] = {
            "node": b.node,
            "capacity_ah": b.capacity_ah,
            "voltage_v": b.voltage_v,
            "r0_ohm": b.r0_ohm,
            "converter_efficiency": b.converter_efficiency,
            "initial_soc": b.initial_soc,
        }
    d["protections"] = [
        {
            "kind": p.kind,
            "nodes": list(p.nodes),
            "start_c": p.start_c,
            "full_c": p.full_c,
            "hyst_c": p.hyst_c,
            "period_ms": p.period_ms,
            "domains": list(p.domains),
            "floor_mhz": mhz(p.floor_hz),
            "visible": p.visible,
            "source": p.source,
            **({"limit_w": p.limit_w} if p.kind == "overcurrent" else {}),
        }
        for p in board.protections
    ]
    if board.fan is not None:
        d["fan"] = fan_profile_to_dict(board.fan)
    return d


def _sig(v: float, digits: int = 5) -> float:
    """Round to significant digits: a fitted 0.1834719... written as 0.18347 reads back the same model."""
    return float(f"{v:.{digits}g}") if v else 0.0


def board_toml(board: BoardProfile, header: Sequence[str] = ()) -> str:
    """A profile as TOML text in the layout of ``thermogov/boards/*.toml``."""
    from thermogov.tomlwrite import dumps

    d = board_to_dict(board)
    protections = d.pop("protections")
    text = "".join(f"# {line}\n" for line in header) + ("\n" if header else "") + dumps(d)
    for p in protections:
        text += "\n[[protections]]\n" + dumps(p)
    return text


def calibrated_profile_text(result: CalibrationResult, original: BoardProfile) -> str:
    """The calibrated profile with a header that says where its numbers came from."""
    rmse = "n/a" if result.rmse_holdout_c is None else f"{result.rmse_holdout_c:.2f} °C"
    header = [
        f"{result.board.name}: {original.name} calibrated by `thermogov calibrate` from",
        f"  {result.source}",
        f"Held-out RMSE {rmse} (tail from {result.holdout_from_s:.0f} s), train RMSE {result.rmse_train_c:.2f} °C.",
        f"Fitted ambient during the log: {result.ambient_c:.1f} °C (simulate with --ambient to compare).",
        "Fitted (value ± 1 sd, prior, determined by):",
        *(
            f"  {p.name} = {p.value:.4g} ± {p.sd:.2g} {p.unit} (prior {p.prior:.4g}; {p.determined_by})"
            for p in result.params
        ),
        "dyn_scale multiplies c_dyn_uw_per_mhz_v2, static_scale idle_w and rest_of_board_w (already applied below).",
        "Everything else is copied from " + (original.source_file or original.name) + ".",
    ]
    return board_toml(result.board, header)


def rename(board: BoardProfile, name: str, description: str) -> BoardProfile:
    return dataclasses.replace(board, name=name, description=description)
