"""What a frequency choice costs: power per domain and time per inference.

Pure arithmetic shared by the simulator (to produce heat and completions), by model-based
policies (power_allocator maps a power budget to an OPP through it) and by the oracle.  The
forms follow the kernel energy model (Documentation/power/energy-model.rst) and the
compact thermal-model literature (HotSpot, DS3):

* dynamic power ``P = busy_cores * C * V^2 * f`` with C in uW/MHz/V^2 (kernel ``cpus.yaml``
  ``dynamic-power-coefficient``), so ``P[W] = C * V^2 * f[MHz] * 1e-6``;
* leakage ``P_leak = P_ref * (V / V_top) * exp(beta (T - T_ref))`` (exponential in
  temperature, DS3/HotSpot form; this is what makes thermal runaway possible);
* inference as a pipeline of stages, one per domain, overlapped as real deployments do
  (DeepStream/TensorRT pre/post-processing of frame n+1 on the CPU while the GPU runs frame n):
  stage time ``cycles_d / (f_d * threads_d)``, the accelerator's stage (the domain with the most
  cycles) also carries the frequency-independent ``fixed`` time (launch + memory-bound work,
  Kang, arXiv 2606.16106), and the pipeline's time per inference is its slowest stage.
  On the Orin Nano this gives 3.5 ms per YOLOv8n frame at full clocks, the published 286 FPS.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from thermogov.board import DomainProfile, ModelProfile


def dynamic_power_w(domain: DomainProfile, freq_hz: int, busy_cores: float) -> float:
    v = domain.volt_at(freq_hz)
    return busy_cores * domain.c_dyn_uw_per_mhz_v2 * v * v * (freq_hz / 1e6) * 1e-6


def leakage_w(domain: DomainProfile, freq_hz: int, temp_c: float) -> float:
    if domain.leak_w_ref == 0.0:
        return 0.0
    v = domain.volt_at(freq_hz)
    # Clamp the exponent: beyond ~200 °C the board has long shut down, and an unbounded
    # exponential would overflow during a deliberately unstable what-if.
    x = min(domain.leak_beta_per_k * (temp_c - domain.leak_ref_c), 50.0)
    return domain.leak_w_ref * (v / domain.volt_v[-1]) * math.exp(x)


def domain_power_w(domain: DomainProfile, freq_hz: int, busy_cores: float, temp_c: float) -> float:
    return domain.idle_w + dynamic_power_w(domain, freq_hz, busy_cores) + leakage_w(domain, freq_hz, temp_c)


def compute_time_s(model: ModelProfile, domain: str, freq_hz: int) -> float:
    """Seconds one inference keeps ``domain`` busy at ``freq_hz``."""
    cycles = model.cycles.get(domain, 0.0)
    if cycles == 0.0:
        return 0.0
    return cycles / (freq_hz * model.threads.get(domain, 1))


def accelerator(model: ModelProfile) -> str:
    """The domain doing most of the work; it also carries the fixed (memory/launch) time."""
    return max(model.cycles, key=lambda d: model.cycles[d])


def stage_times_s(model: ModelProfile, freqs_hz: Mapping[str, int]) -> dict[str, float]:
    acc = accelerator(model)
    return {
        d: compute_time_s(model, d, freqs_hz[d]) + (model.fixed_s if d == acc else 0.0) for d in model.cycles
    }


def per_item_time_s(model: ModelProfile, freqs_hz: Mapping[str, int]) -> float:
    """The pipeline's time per inference inside a batch: its slowest stage, no batch overhead."""
    return max(stage_times_s(model, freqs_hz).values())


def inference_time_s(model: ModelProfile, freqs_hz: Mapping[str, int], batch: int = 1) -> float:
    """Time per batch of ``batch`` inferences through the pipeline at the given clocks."""
    return model.batch_fixed_s + batch * per_item_time_s(model, freqs_hz)


def busy_cores(model: ModelProfile, freqs_hz: Mapping[str, int], utilisation: float) -> dict[str, float]:
    """Average busy cores per domain when the pipeline is busy ``utilisation`` of the time.

    A domain is drawing dynamic power while it computes (its cycles), not while it waits for
    memory or for the slower stage.
    """
    per = inference_time_s(model, freqs_hz)
    if per <= 0.0:
        return {}
    return {
        d: utilisation * compute_time_s(model, d, freqs_hz[d]) / per * model.threads.get(d, 1)
        for d in model.cycles
    }


def batch_busy_cores(
    model: ModelProfile, freqs_hz: Mapping[str, int], batch: int, utilisation: float
) -> dict[str, float]:
    """Average busy cores per domain when batches of ``batch`` keep the pipeline busy ``utilisation``.

    The per-batch overhead (``batch_fixed``: launch, synchronisation) is time without compute,
    so a larger batch computes a larger share of its time; at ``batch = 1`` this is
    :func:`busy_cores`.
    """
    per = per_item_time_s(model, freqs_hz)
    if per <= 0.0:
        return {}
    share = utilisation * batch * per / (model.batch_fixed_s + batch * per)
    return {
        d: share * compute_time_s(model, d, freqs_hz[d]) / per * model.threads.get(d, 1) for d in model.cycles
    }
