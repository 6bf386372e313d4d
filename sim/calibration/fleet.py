"""Priors learnt from a fleet of logs (empirical Bayes), always leaving the log under test out.

A profile's capacitances, conductances and power scales are *estimates* (die area, heatsink
mass, convection coefficients), good to a factor of a few.  Where a short training window cannot
determine a parameter (a step test that ends mid-rise does not show its slow mode; a sparse
report without a load change shows no gain at all), the prior decides the forecast, so a
systematically wrong estimate is paid on every such log.  Other logs of the same board class
say how wrong it is: each one, fitted on its whole length, gives the log-ratio ``log(fitted /
profile)`` of every parameter *its data determined* (posterior sd under half the prior's, see
``fit._posterior``).  Their mean, with the profile counted as one more observation of ratio 0
(so one other log moves the prior half way, ten move it most of the way), is the fleet's
correction; it multiplies the profile's value in every housing, so a housing's own scale is kept
and only the estimate's common error is removed (H. Robbins, "An empirical Bayes approach to
statistics", 1956; B. Efron and C. Morris, "Stein's estimation rule and its competitors",
JASA 68, 1973, for shrinking a group mean toward a prior guess).

The log under test is never part of its own prior: :func:`loo_ratios` drops every fit with the
same identity (``FleetFit.log``), and ``bench/fidelity.py --fleet`` judges each log that way.
Ambient and the initial offset are properties of one run, never pooled.

A profile may serve other products built on the same SoC (``importers.models.SAME_SOC_PROFILE``:
the Pi 400 and the CM4 on ``rpi4``, the CM5 on ``rpi5``: "a different board and heat path, but
the same OPP table and sensors").  The chip's thermal parameters are then shared, the board's are
not: a Pi 400 is a keyboard-sized board under a large aluminium spreader, and what the Pi 4 B
logs say of the Pi 4 B's board mass, links and other chips' power is no evidence about it.  The
power scales are the board's too: a profile's dynamic and static power come from wall readings
of one product, its regulator losses, DRAM and USB included (rpi4.toml's ``c_dyn`` takes 0.8 of
a Pi 4 B's wall power, ``rest_of_board_w`` its idle), and the error a fit finds in them is that
product's.  So each fit carries its product (:func:`product_of`), and a board-side parameter
(:func:`is_board_side`: those of the profile's rest-of-board node and of every node a housing
adds, ``dyn_scale`` and ``static_scale``) is pooled only among logs of the same product; the die,
the package and the link between them over every log of the profile.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from thermogov.board import BoardProfile, Enclosure, ThermalLink, ThermalNode
from thermogov.sim.calibration.fit import FittedParam
from thermogov.sim.calibration.fleetbound import on_network_bound

POOLED_KINDS = ("C[", "G[", "dyn_scale[", "static_scale")  # parameter names the fleet corrects
PROFILE_WEIGHT = 1.0  # the profile counts as this many observations of ratio 0


@dataclass(frozen=True)
class FleetFit:
    """One log fitted on its whole length: which board, and the data-determined log-ratios."""

    log: str  # the log's identity (file name or content hash): what leave-one-out compares
    board: str
    housing: str
    ratios: dict[str, float]
    product: str = ""  # the product the log names if the profile serves it as another board (product_of)


def product_of(model: str, profile: str) -> str:
    """The product a log's board is, for pooling: the board family its model string names when
    the profile serves that family as a different board on the same SoC (a Pi 400 on ``rpi4``),
    else the profile's own name (its own board, or a log that names none)."""
    from thermogov.importers.models import SAME_SOC_PROFILE, board_from_model

    family = board_from_model(model or "")
    return family if family is not None and SAME_SOC_PROFILE.get(family) == profile else profile


def board_side_nodes(board: BoardProfile) -> frozenset[str]:
    """The nodes that belong to the product rather than to the chip: the rest-of-board node and
    every node a housing adds."""
    added = {a.name for e in board.enclosures for a in e.nodes}
    return frozenset({board.thermal.rest_of_board_node, *added} - {""})


def is_board_side(name: str, nodes: frozenset[str]) -> bool:
    """Whether a pooled parameter is the product's: the power scales (wall readings of one board)
    and the capacitances and conductances of ``nodes`` (``C[board]``, ``G[package-board]``)."""
    if name == "static_scale" or name.startswith("dyn_scale["):
        return True
    inner = name[name.find("[") + 1 : name.rfind("]")] if "[" in name else ""
    return any(part in nodes for part in inner.split("-"))


def fleet_fit(
    log: str, board: str, housing: str, params: Iterable[FittedParam], product: str = ""
) -> FleetFit:
    """The log-ratios ``log(value / prior)`` of the parameters the log's data determined (a
    capacitance or conductance left on its hard bound was set by the bound: :mod:`fleetbound`)."""
    ratios: dict[str, float] = {}
    for p in params:
        if p.determined_by != "data" or not p.name.startswith(POOLED_KINDS) or on_network_bound(p):
            continue  # a bound, not the data, set a network parameter left on it (fleetbound.py)
        if p.prior > 0 and p.value > 0 and math.isfinite(p.value):
            ratios[p.name] = math.log(p.value / p.prior)
    return FleetFit(log, board, housing, ratios, product or board)


def loo_ratios(
    fits: Iterable[FleetFit],
    board: str,
    leave_out: str,
    product: str = "",
    board_nodes: frozenset[str] = frozenset(),
) -> dict[str, tuple[float, int]]:
    """Per parameter: the shrunken mean log-ratio over the board's other logs, and how many there were.

    Every fit whose ``log`` equals ``leave_out`` is skipped, so the log under test never
    informs its own prior.  With ``product`` (:func:`product_of`) the parameters of
    ``board_nodes`` (:func:`board_side_nodes`) come only from fits of the same product."""
    per: dict[str, list[float]] = {}
    mine = product or board
    for f in fits:
        if f.board != board or f.log == leave_out:
            continue
        other = (f.product or f.board) != mine
        for name, r in f.ratios.items():
            if other and is_board_side(name, board_nodes):
                continue
            per.setdefault(_pooled_name(name, f.housing), []).append(r)
    return {k: (float(np.sum(v)) / (len(v) + PROFILE_WEIGHT), len(v)) for k, v in per.items()}


def _pooled_name(name: str, housing: str) -> str:
    """Paths to ambient are pooled per housing (a fan heatsink's error is not a sealed case's);
    capacitances, internal links and power scales over the whole board class."""
    return f"{name}@{housing}" if name.endswith("-ambient]") else name


def with_ratios(board: BoardProfile, ratios: Mapping[str, tuple[float, int]]) -> BoardProfile:
    """The profile with each pooled correction applied, in its default housing and every alternative."""

    def factor(name: str, housing: str = board.enclosure) -> float:
        key = _pooled_name(name, housing)
        return math.exp(ratios[key][0]) if key in ratios else 1.0

    th = board.thermal
    nodes = tuple(
        ThermalNode(
            n.name,
            n.capacitance_j_per_k * factor(f"C[{n.name}]"),
            n.to_ambient_w_per_k * factor(f"G[{n.name}-ambient]"),
        )
        for n in th.nodes
    )
    links = tuple(
        ThermalLink(lk.a, lk.b, lk.conductance_w_per_k * factor(f"G[{lk.a}-{lk.b}]")) for lk in th.links
    )
    static = factor("static_scale")
    thermal = dataclasses.replace(th, nodes=nodes, links=links, rest_of_board_w=th.rest_of_board_w * static)
    domains = tuple(
        dataclasses.replace(
            d,
            c_dyn_uw_per_mhz_v2=d.c_dyn_uw_per_mhz_v2 * factor(f"dyn_scale[{d.name}]"),
            idle_w=d.idle_w * static,
        )
        for d in board.domains
    )
    enclosures = tuple(
        Enclosure(
            e.name,
            e.description,
            {n: g * factor(f"G[{n}-ambient]", e.name) for n, g in e.to_ambient_w_per_k.items()},
            {n: c * factor(f"C[{n}]") for n, c in e.capacitance_j_per_k.items()},
            e.fan,
            tuple(
                dataclasses.replace(
                    a,
                    capacitance_j_per_k=a.capacitance_j_per_k * factor(f"C[{a.name}]"),
                    to_ambient_w_per_k=a.to_ambient_w_per_k * factor(f"G[{a.name}-ambient]", e.name),
                    pad_w_per_k=a.pad_w_per_k * factor(f"G[{a.attached_to}-{a.name}]"),
                )
                for a in e.nodes
            ),
            e.on_evidence_only,
        )
        for e in board.enclosures
    )
    return dataclasses.replace(board, thermal=thermal, domains=domains, enclosures=enclosures)


def describe(ratios: Mapping[str, tuple[float, int]]) -> str:
    """One line for a note: each correction as a factor and how many logs it came from."""
    if not ratios:
        return "no other log of this board: the profile's priors"
    return ", ".join(f"{k} x{math.exp(r):.2f} ({n})" for k, (r, n) in sorted(ratios.items()))
