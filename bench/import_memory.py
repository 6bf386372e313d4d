"""Peak memory of ``thermogov import`` on a small and a large log, side by side.

A week of 1 s tegrastats lines is ~150 MB, and the importers read a whole log into memory
(:func:`thermogov.importers.common.read_log`, bounded at 1 GiB) before parsing it line by line,
so the peak resident set grows with the file.  This bench writes synthetic logs of the sizes
asked for (JetPack 6 tegrastats lines with ``--logfile`` stamps, or a CSV table of the same
readings), runs the installed ``thermogov import`` on each in its own process under
``/usr/bin/time -f %M`` (peak RSS in KiB, GNU time) and prints peak RSS, the ratio of peak RSS to
file size, and wall time.  Only the ratios between sizes mean anything on a shared machine; no
test asserts any of it.

    nice python bench/import_memory.py [--sizes 2,200] [--kind tegrastats,csv] [--keep DIR]
    nice python bench/import_memory.py --stages [--sizes 5] [--kind tegrastats,csv]
    nice python bench/import_memory.py --identity record|check DIR [--sizes 20]
    nice python bench/import_memory.py --compare OTHER/bin/thermogov [--sizes 20,50]

``--identity`` guards a change to how samples are held: ``record`` stores one digest per log of
``repr((samples, skipped_lines, notes))`` from ``parse_log`` (every file under ``tests/data/logs``
and ``$THERMOGOV_REAL_DATA``, an error's message where it fails) and of ``trace.csv`` and
``samples.csv`` written by the installed script from the bench's synthetic logs; ``check``
recomputes them and lists every one that differs (exit 1).  Record on the old code, check on the
new.  ``--compare`` runs another installation's ``thermogov`` beside this one on each log, in
turn, and prints the ratio of peak RSS (new / old).

``--stages`` says where the memory goes instead, in this process under :mod:`tracemalloc`: the
decoded text, the cleaned text, the reader's peak and what its samples hold once the text is
gone, per row.  That is what decides what streaming has to change (docs/importing.md, "Reviewed,
session 22"): a few hundred bytes of samples per 30-byte table row, not the text.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_MB = 1 << 20


def _tegrastats_line(k: int) -> str:
    h, m, s = (k // 3600) % 24, (k // 60) % 60, k % 60
    day = 5 + k // 86400
    return (
        f"12-{day:02d}-2026 {h:02d}:{m:02d}:{s:02d} RAM 2000/7620MB (lfb 2x4MB) SWAP 0/3810MB (cached 0MB) "
        f"CPU [{k % 97}%@1510,5%@1510,off,off,4%@1510,3%@1510] EMC_FREQ 0%@2133 GR3D_FREQ {k % 89}%@[305] "
        "NVENC off NVDEC off NVJPG off NVJPG1 off VIC off OFA off APE 174 "
        f"cpu@{45 + (k % 200) / 10:.1f}C soc2@44.1C soc0@43.9C gpu@44.0C tj@{45 + (k % 200) / 10:.1f}C "
        f"soc1@44.2C VDD_IN {5000 + k % 700}mW/5000mW VDD_CPU_GPU_CV 600mW/600mW VDD_SOC 1500mW/1500mW\n"
    )


def _csv_line(k: int) -> str:
    return f"{1764928800 + k},{45 + (k % 200) / 10:.1f},1510,{k % 97},{5 + (k % 700) / 1000:.3f}\n"


def write_log(path: Path, kind: str, size_mb: float) -> int:
    """A log of about ``size_mb`` MB; the number of lines written."""
    line = _tegrastats_line if kind == "tegrastats" else _csv_line
    target = int(size_mb * _MB)
    written = n = 0
    with path.open("w", encoding="utf-8") as f:
        if kind == "csv":
            f.write("epoch,temp_c,freq_mhz,cpu_pct,power_w\n")
        while written < target:
            chunk = "".join(line(k) for k in range(n, n + 1000))
            f.write(chunk)
            written += len(chunk)
            n += 1000
    return n


def _this_exe() -> Path:
    return Path(sys.executable).parent / "thermogov"


def measure(path: Path, out: Path, exe: Path | None = None) -> tuple[int, float, int]:
    """(peak RSS in KiB, wall seconds, exit status) of one ``thermogov import``."""
    exe = exe or _this_exe()
    start = time.perf_counter()
    p = subprocess.run(
        ["/usr/bin/time", "-f", "%M", str(exe), "import", str(path), "--out", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - start
    rss = int(p.stderr.strip().splitlines()[-1])
    return rss, wall, p.returncode


def stages(path: Path, kind: str, rows: int) -> str:
    """One line: MB held after each import stage of ``path``, and bytes per row of the samples."""
    import tracemalloc

    from thermogov.importers import table, tegrastats
    from thermogov.importers.common import read_log
    from thermogov.importers.textclean import clean_text

    tracemalloc.start()
    raw, _ = read_log(path)
    decoded = tracemalloc.get_traced_memory()[0]
    text, _ = clean_text(raw, str(path))
    del raw
    cleaned = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    parse = tegrastats.parse_text if kind == "tegrastats" else table.parse_text
    log = parse(text, str(path))
    peak = tracemalloc.get_traced_memory()[1]
    del text
    held = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    assert len(log.samples) == rows, "every synthetic row is a sample"
    return (
        f"{kind:<11}{rows:>9} rows  text {decoded / _MB:.0f} MB, cleaned {cleaned / _MB:.0f} MB, "
        f"reader's peak {peak / _MB:.0f} MB, samples {held / _MB:.0f} MB = {held / rows:.0f} B/row"
    )


def _digest(data: bytes | str) -> str:
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


def _log_files() -> list[Path]:
    roots = [Path(__file__).resolve().parent.parent / "tests" / "data" / "logs"]
    if os.environ.get("THERMOGOV_REAL_DATA"):
        roots.append(Path(os.environ["THERMOGOV_REAL_DATA"]))
    return sorted(p for r in roots for p in r.rglob("*") if p.is_file() and p.suffix != ".md")


def identity_digests(sizes: list[float]) -> dict[str, str]:
    """name -> digest of what the importers make of each log (see ``--identity``)."""
    from thermogov.importers import parse_log
    from thermogov.importers.common import LogFormatError

    out: dict[str, str] = {}
    for path in _log_files():
        try:
            log = parse_log(path)
            text = repr((tuple(log.samples), log.skipped_lines, log.notes))
        except (LogFormatError, ValueError) as e:
            text = f"error: {e}"
        out[path.name] = _digest(text)
    with tempfile.TemporaryDirectory(prefix="import-identity-") as tmp:
        for kind in ("csv", "tegrastats"):
            for size in sizes:
                log = Path(tmp) / f"{kind}-{size:g}MB.log"
                write_log(log, kind, size)
                run = Path(tmp) / "out"
                _, _, code = measure(log, run)
                for name in ("trace.csv", "samples.csv"):
                    f = run / name
                    out[f"{log.name}/{name}"] = _digest(f.read_bytes()) if f.exists() else f"exit {code}"
                shutil.rmtree(run, ignore_errors=True)
                log.unlink()
    return out


def identity(action: str, where: Path, sizes: list[float]) -> int:
    """Record the digests in ``where`` or check them against it; the exit status."""
    now = identity_digests(sizes)
    store = where / "import_identity.json"
    if action == "record":
        where.mkdir(parents=True, exist_ok=True)
        store.write_text(json.dumps(now, indent=1, sort_keys=True))
        print(f"recorded {len(now)} digests in {store}")
        return 0
    old = json.loads(store.read_text())
    bad = sorted(k for k in old.keys() | now.keys() if old.get(k) != now.get(k))
    for k in bad:
        print(f"DIFFERS {k}")
    print(f"{len(old) - len(bad)} of {len(old)} identical")
    return 1 if bad else 0


def compare(other: Path, kinds: list[str], sizes: list[float]) -> None:
    """Peak RSS of ``other``'s ``thermogov import`` and this one's on the same logs, side by side."""
    print(
        f"{'kind':<11}{'size MB':>9}{'rows':>10}{'old MB':>9}{'new MB':>9}{'new/old':>9}"
        f"{'old us/row':>11}{'new us/row':>11}  exits"
    )
    with tempfile.TemporaryDirectory(prefix="import-compare-") as tmp:
        for kind in kinds:
            for size in sizes:
                log = Path(tmp) / f"{kind}.log"
                rows = write_log(log, kind, size)
                real_mb = log.stat().st_size / _MB
                old_rss, old_wall, old_code = measure(log, Path(tmp) / "old", other)
                new_rss, new_wall, new_code = measure(log, Path(tmp) / "new")
                print(
                    f"{kind:<11}{real_mb:>9.1f}{rows:>10}{old_rss / 1024:>9.0f}{new_rss / 1024:>9.0f}"
                    f"{new_rss / old_rss:>9.3f}{1e6 * old_wall / rows:>11.0f}{1e6 * new_wall / rows:>11.0f}"
                    f"  {old_code},{new_code}"
                )
                shutil.rmtree(Path(tmp) / "old", ignore_errors=True)
                shutil.rmtree(Path(tmp) / "new", ignore_errors=True)
                log.unlink()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="2,200", help="log sizes in MB, comma-separated")
    ap.add_argument("--kind", default="tegrastats,csv", help="tegrastats, csv or both")
    ap.add_argument("--keep", type=Path, help="write the logs and run folders here and keep them")
    ap.add_argument("--stages", action="store_true", help="where the memory goes, stage by stage")
    ap.add_argument("--identity", nargs=2, metavar=("record|check", "DIR"), help="guard identical output")
    ap.add_argument(
        "--compare", type=Path, help="another installation's thermogov script, run beside this one"
    )
    args = ap.parse_args()
    sizes = [float(s) for s in args.sizes.split(",")]
    if args.identity:
        action, where = args.identity
        if action not in ("record", "check"):
            sys.exit("--identity takes record or check, then a folder")
        sys.exit(identity(action, Path(where), sizes))
    if args.compare:
        if not shutil.which("/usr/bin/time"):
            sys.exit("needs GNU time at /usr/bin/time")
        compare(args.compare, args.kind.split(","), sizes)
        return
    if args.stages:
        with tempfile.TemporaryDirectory(prefix="import-stages-") as tmp:
            for kind in args.kind.split(","):
                for size in (float(s) for s in args.sizes.split(",")):
                    log = Path(tmp) / f"{kind}.log"
                    print(stages(log, kind, write_log(log, kind, size)))
        return
    if not shutil.which("/usr/bin/time"):
        sys.exit("needs GNU time at /usr/bin/time")
    root = args.keep or Path(tempfile.mkdtemp(prefix="import-memory-"))
    root.mkdir(parents=True, exist_ok=True)
    print(f"{'kind':<11}{'size MB':>9}{'lines':>10}{'peak RSS MB':>13}{'RSS/size':>10}{'wall s':>9}  exit")
    try:
        for kind in args.kind.split(","):
            for size in (float(s) for s in args.sizes.split(",")):
                log = root / f"{kind}-{size:g}MB.log"
                lines = write_log(log, kind, size)
                real_mb = log.stat().st_size / _MB
                rss, wall, code = measure(log, root / "out")
                rss_mb = rss / 1024
                ratio = rss_mb / real_mb
                print(
                    f"{kind:<11}{real_mb:>9.1f}{lines:>10}{rss_mb:>13.0f}{ratio:>10.1f}{wall:>9.1f}  {code}"
                )
                if not args.keep:
                    log.unlink()
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
